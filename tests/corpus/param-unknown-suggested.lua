-- A misspelt parameter, with a suggestion.
-- expect: runner: $SCRIPT:3: speedup: unknown parameter 'wrokers' (did you mean 'workers'?)
sweep "speedup" { wrokers = 4 }
