-- A list with a hole (a nil in the middle).
-- expect: runner: $SCRIPT:4: speedup: workers: a list of values must be a non-empty sequence {v1, v2, ...}
local missing
sweep "speedup" { workers = { 1, missing, 4 } }
