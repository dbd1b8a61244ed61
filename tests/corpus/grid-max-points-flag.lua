-- --max-points lower than the grid.
-- flags: --max-points 7
-- expect: runner: $SCRIPT:4: speedup: the grid has 8 points, more than --max-points 7
sweep "speedup" { workers = powers_of_two(1, 128) }
