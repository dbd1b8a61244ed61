-- Two scripts on one command line.
-- flags: scripts/jitter.lua
-- expect: runner: sweep: unexpected argument 'scripts/jitter.lua'; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
