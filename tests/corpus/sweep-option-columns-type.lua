-- columns as one string instead of a list.
-- expect: runner: $SCRIPT:3: speedup: sweep option 'columns' must be a list of column names, got string
sweep("speedup", { workers = 8 }, { columns = "speedup" })
