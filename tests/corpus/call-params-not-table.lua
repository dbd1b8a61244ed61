-- sweep() with a number for the parameter table.
-- expect: runner: $SCRIPT:3: sweep("speedup", params): params must be a table
sweep("speedup", 8)
