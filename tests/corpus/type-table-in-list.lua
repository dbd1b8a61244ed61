-- A nested list inside an axis.
-- expect: runner: $SCRIPT:3: speedup: workers: expected a number, string or boolean, got a table
sweep "speedup" { workers = { 1, { 2, 4 } } }
