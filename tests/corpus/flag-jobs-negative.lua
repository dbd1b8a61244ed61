-- A negative thread count, in the --name=VALUE form.
-- flags: --jobs=-1
-- expect: runner: --jobs -1: expected a number of threads between 1 and 1024; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
