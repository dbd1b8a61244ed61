-- A title that is not a string.
-- expect: runner: $SCRIPT:3: speedup: sweep option 'title' must be a string, got number
sweep("speedup", { workers = 8 }, { title = 42 })
