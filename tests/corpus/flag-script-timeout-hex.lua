-- A time limit in hexadecimal (strtod reads 0x10 as 16): seconds are decimal.
-- flags: --script-timeout 0x10
-- expect: runner: --script-timeout 0x10: expected a positive number of seconds; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
