-- logspace from zero (log scale needs positive ends).
-- expect: runner: $SCRIPT:3: logspace(0, 10, 5): ends must be positive and finite
sweep "speedup" { jitter = logspace(0, 10, 5) }
