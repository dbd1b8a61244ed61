-- A thread count with a plus sign.
-- flags: --jobs=+4
-- expect: runner: --jobs +4: expected a number of threads between 1 and 1024; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
