-- A step of zero.
-- expect: runner: $SCRIPT:3: range(1, 10, 0): the step never reaches the end
sweep "speedup" { workers = range(1, 10, 0) }
