-- Three zipped axes, one a value longer.
-- expect: runner: $SCRIPT:3: speedup: zipped parameters 'base' (2 values) and 'workers' (3 values) must have the same length
sweep "speedup" {
  zip { jitter = { 1, 2 }, base = { 10, 20 }, workers = { 1, 2, 4 } },
}
