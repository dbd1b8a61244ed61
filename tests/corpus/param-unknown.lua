-- A parameter the plugin does not have, nothing close to suggest.
-- expect: runner: $SCRIPT:3: speedup: unknown parameter 'colour'; 'runner plugins speedup' lists its parameters
sweep "speedup" { colour = "red" }
