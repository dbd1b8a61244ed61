-- A value written in words: text that is no number (with a unit or without).
-- expect: runner: $SCRIPT:3: speedup: base: expected a number, got a text
sweep "speedup" { base = "thirty seconds" }
