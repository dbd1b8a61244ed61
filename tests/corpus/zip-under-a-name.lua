-- A zip group given as a parameter's value.
-- expect: runner: $SCRIPT:3: speedup: jitter: zip{...} goes in the list part of the sweep table, not under a parameter name
sweep "speedup" { jitter = zip { base = { 1, 2 } } }
