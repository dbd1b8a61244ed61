-- An integer above its declared maximum, at the end of an axis.
-- expect: runner: $SCRIPT:3: speedup: workers: 10000001 is out of range [1, 10000000] workers
sweep "speedup" { workers = { 1, 1000, 10000001 } }
