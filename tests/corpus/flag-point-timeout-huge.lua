-- A point time limit past the largest (1e9 s).
-- flags: --point-timeout 1e10
-- expect: runner: --point-timeout 1e10: expected a positive number of seconds; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
