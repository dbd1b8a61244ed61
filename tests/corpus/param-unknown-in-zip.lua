-- A misspelt parameter inside a zip group.
-- expect: runner: $SCRIPT:3: speedup: unknown parameter 'wokers' (did you mean 'workers'?)
sweep "speedup" { zip { jitter = { 1, 2 }, wokers = { 1, 2 } } }
