-- A parameter name holding a newline must not split the error into two lines.
-- BUG: runner echoes the name raw, so stderr is two lines.
-- expect: runner: $SCRIPT:4: speedup: unknown parameter 'ji\nter' (did you mean 'jitter'?)
sweep "speedup" { ["ji\nter"] = 1 }
