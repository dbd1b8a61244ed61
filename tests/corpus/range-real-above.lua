-- A real above its declared maximum.
-- expect: runner: $SCRIPT:3: speedup: base: 2000000000 is out of range [0, 1000000000] s
sweep "speedup" { base = 2e9 }
