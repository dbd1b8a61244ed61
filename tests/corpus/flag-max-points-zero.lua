-- --max-points 0.
-- flags: --max-points 0
-- expect: runner: --max-points 0: expected a positive integer; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
