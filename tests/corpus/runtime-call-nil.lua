-- A typo in a helper's name.
-- expect: runner: $SCRIPT:3: attempt to call a nil value (global 'linspce')
sweep "speedup" { jitter = linspce(0.5, 2, 4) }
