-- Infinity for an integer.
-- expect: runner: $SCRIPT:3: speedup: workers: expected a finite integer, got inf
sweep "speedup" { workers = math.huge }
