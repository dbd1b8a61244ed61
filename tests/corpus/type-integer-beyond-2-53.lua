-- A float too large to be an exact integer.
-- expect: runner: $SCRIPT:3: speedup: model_params: 1.152921504606847e+18 is out of the exact integer range [-2^53, 2^53]
sweep "speedup" { model_params = 2^60 }
