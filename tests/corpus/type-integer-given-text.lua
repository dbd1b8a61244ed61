-- A number written as a string.
-- expect: runner: $SCRIPT:3: speedup: workers: expected an integer, got a text
sweep "speedup" { workers = "8" }
