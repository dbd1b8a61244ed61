-- print = "no" instead of false.
-- expect: runner: $SCRIPT:3: speedup: sweep option 'print' must be true or false, got string
sweep("speedup", { workers = 8 }, { print = "no" })
