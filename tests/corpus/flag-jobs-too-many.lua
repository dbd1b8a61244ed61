-- More threads than runner allows.
-- flags: --jobs 2000
-- expect: runner: --jobs 2000: expected a number of threads between 1 and 1024; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
