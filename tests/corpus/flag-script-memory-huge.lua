-- A memory limit past 1 TiB.
-- flags: --script-memory 1048577
-- expect: runner: --script-memory 1048577: expected MiB between 1 and 1048576; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
