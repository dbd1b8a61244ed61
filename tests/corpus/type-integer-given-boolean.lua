-- A boolean for an integer.
-- expect: runner: $SCRIPT:3: speedup: workers: expected an integer, got a boolean
sweep "speedup" { workers = true }
