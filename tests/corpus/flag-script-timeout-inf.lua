-- An infinite time limit (strtod reads "inf"): a limit must be a number.
-- flags: --script-timeout inf
-- expect: runner: --script-timeout inf: expected a positive number of seconds; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
