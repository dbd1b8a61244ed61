-- A seed with a plus sign: integers are plain decimal digits.
-- flags: --seed +5
-- expect: runner: --seed +5: expected a non-negative integer; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
