-- A positive step from a larger start to a smaller end.
-- expect: runner: $SCRIPT:3: range(1, 0, 0.25): the step never reaches the end
sweep "speedup" { jitter = range(1.0, 0.0, 0.25) }
