-- A float too large to be an exact integer.
-- expect: runner: $SCRIPT:3: speedup: model_params: expected an integer, got 1.152921504606847e+18
sweep "speedup" { model_params = 2^60 }
