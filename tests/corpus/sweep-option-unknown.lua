-- An option sweep() does not have.
-- expect: runner: $SCRIPT:3: speedup: unknown sweep option 'colour' (expected title, print, keep_rows, columns)
sweep("speedup", { workers = 8 }, { colour = "red" })
