-- A parameter name holding a newline must not split the error into two lines.
-- The name is refused where it enters (name_check), before it is looked up.
-- expect: runner: $SCRIPT:4: speedup: parameter 'ji\nter' holds a control character (names are UTF-8 text without control characters, 256 bytes at most)
sweep "speedup" { ["ji\nter"] = 1 }
