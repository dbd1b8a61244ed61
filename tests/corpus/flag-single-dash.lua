-- A short option (runner has none).
-- flags: -j 4
-- expect: runner: sweep: unknown option '-j'; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
