-- keep_rows = 0 instead of false.
-- expect: runner: $SCRIPT:3: speedup: sweep option 'keep_rows' must be true or false, got number
sweep("speedup", { workers = 8 }, { keep_rows = 0 })
