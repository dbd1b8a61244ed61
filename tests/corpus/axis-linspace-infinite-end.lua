-- linspace to infinity.
-- expect: runner: $SCRIPT:3: linspace: ends must be finite
sweep "speedup" { jitter = linspace(0, math.huge, 3) }
