-- Four axes of 100000 values: more points than a 64-bit count holds.
-- expect: runner: $SCRIPT:4: speedup: the grid has more than 2^64 points (limit --max-points 1000000)
local axis = range(1, 100000)
sweep "speedup" { base = axis, jitter = axis, workers = axis, trials = axis }
