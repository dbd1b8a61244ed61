-- A value with its unit written in.
-- expect: runner: $SCRIPT:3: speedup: base: expected a number, got a text
sweep "speedup" { base = "30 s" }
