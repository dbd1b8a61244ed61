-- A memory limit of zero.
-- flags: --script-memory 0
-- expect: runner: --script-memory 0: expected MiB between 1 and 1048576; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
