-- An empty axis.
-- expect: runner: $SCRIPT:4: speedup: workers: a list of values must be a non-empty sequence {v1, v2, ...}
local chosen = {}
sweep "speedup" { workers = chosen }
