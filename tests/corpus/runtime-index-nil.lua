-- Indexing a field that does not exist.
-- expect: runner: $SCRIPT:4: attempt to index a nil value (field 'sweeps')
local config = {}
sweep "speedup" { workers = config.sweeps.workers }
