-- A time limit with its unit written in.
-- flags: --script-timeout 10s
-- expect: runner: --script-timeout 10s: expected a positive number of seconds; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
