-- A float end of 1e9: an axis of more than 1e8 values.
-- expect: runner: $SCRIPT:3: an axis needs between 1 and 1e8 values, got 1000000000
sweep "speedup" { workers = range(1, 1e9) }
