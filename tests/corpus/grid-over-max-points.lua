-- A grid one thousand points over the default limit of 1000000.
-- expect: runner: $SCRIPT:3: speedup: the grid has 1001000 points, more than --max-points 1000000
sweep "speedup" { workers = range(1, 1000), jitter = linspace(0.1, 1, 1001) }
