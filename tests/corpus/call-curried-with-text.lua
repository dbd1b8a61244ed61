-- The curried form given a string instead of a table.
-- expect: runner: $SCRIPT:3: sweep "speedup" needs a table of parameters: sweep "speedup" { name = value, ... }
sweep "speedup" "workers = 8"
