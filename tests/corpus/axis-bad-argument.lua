-- A helper given a word: Lua's own argument check.
-- expect: runner: $SCRIPT:3: bad argument #1 to 'linspace' (number expected, got string)
sweep "speedup" { jitter = linspace("low", 1, 3) }
