-- Help for a command runner does not have.
-- command: help frobnicate
-- expect: runner: unknown command 'frobnicate'; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
