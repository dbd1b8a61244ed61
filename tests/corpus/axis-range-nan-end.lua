-- A NaN end: refused, and spelt "nan" as everywhere else.
-- BUG: runner prints "range(0, -nan, 1): ..." (core/script/script.c formats with %g).
-- expect: runner: $SCRIPT:4: range(0, nan, 1): the step never reaches the end
sweep "speedup" { jitter = range(0, 0/0) }
