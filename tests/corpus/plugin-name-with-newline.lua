-- A plugin name holding a newline must not split the error into two lines.
-- BUG: runner echoes the name raw, so stderr is two lines
-- ("unknown plugin 'spe" / "edup' (did you mean ...").
-- expect: runner: $SCRIPT:5: unknown plugin 'spe\nedup' (did you mean 'speedup'?); 'runner plugins' lists the installed ones
sweep "spe\nedup" { workers = 8 }
