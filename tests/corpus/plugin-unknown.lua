-- A misspelt plugin name, with the closest installed one suggested.
-- expect: runner: $SCRIPT:3: unknown plugin 'straggle' (did you mean 'straggler'?); 'runner plugins' lists the installed ones
sweep "straggle" { workers = 8 }
