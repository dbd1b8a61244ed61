-- A NaN time limit.
-- flags: --script-timeout nan
-- expect: runner: --script-timeout nan: expected a positive number of seconds; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
