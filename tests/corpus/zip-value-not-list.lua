-- A single value inside zip.
-- expect: runner: $SCRIPT:3: speedup: zip{...}: 'jitter' needs a list of values
sweep "speedup" { zip { jitter = 1, workers = { 1, 2 } } }
