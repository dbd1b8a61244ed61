-- A zip group without names.
-- expect: runner: $SCRIPT:3: speedup: zip{...} takes name = {values} pairs
sweep "speedup" { zip { { 1, 2 }, { 3, 4 } } }
