-- An integer below its declared minimum.
-- expect: runner: $SCRIPT:3: speedup: trials: -1 is out of range [0, 10000000000] rounds
sweep "speedup" { trials = -1 }
