-- --max-points with a suffix.
-- flags: --max-points 2k
-- expect: runner: --max-points 2k: expected a positive integer; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
