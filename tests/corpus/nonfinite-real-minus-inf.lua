-- Minus infinity for a real.
-- expect: runner: $SCRIPT:3: speedup: base: expected a finite number, got -inf
sweep "speedup" { base = -math.huge }
