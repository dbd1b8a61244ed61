-- linspace with n = 0.
-- expect: runner: $SCRIPT:3: an axis needs between 1 and 1e8 values, got 0
sweep "speedup" { jitter = linspace(0.5, 2, 0) }
