-- A plugin name holding a newline must not split the error into two lines.
-- The name is refused where it enters (name_check), before it is looked up.
-- expect: runner: $SCRIPT:4: sweep: plugin 'spe\nedup' holds a control character (names are UTF-8 text without control characters, 256 bytes at most)
sweep "spe\nedup" { workers = 8 }
