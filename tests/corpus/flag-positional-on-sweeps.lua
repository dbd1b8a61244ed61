-- `runner sweeps` takes no positional argument (it used to ignore one).
-- command: sweeps 3 --db $DB
-- expect: runner: sweeps: unexpected argument '3'; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
