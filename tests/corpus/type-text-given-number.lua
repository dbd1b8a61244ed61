-- A number for a text parameter.
-- expect: runner: $SCRIPT:3: speedup: model: expected a string, got an integer
sweep "speedup" { model = 1 }
