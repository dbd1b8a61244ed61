-- A bare list in the list part (zip forgotten).
-- expect: runner: $SCRIPT:3: speedup: sweep tables map parameter names to values; the list part holds only zip{...} groups
sweep "speedup" { { jitter = { 1, 2 }, workers = { 1, 2 } } }
