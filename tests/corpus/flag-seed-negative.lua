-- A negative seed.
-- flags: --seed -1
-- expect: runner: --seed -1: expected a non-negative integer; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
