-- A seed of 2^64, one past the largest.
-- flags: --seed 18446744073709551616
-- expect: runner: --seed 18446744073709551616: expected a non-negative integer; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
