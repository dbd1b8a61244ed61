-- NaN for an integer reads "nan" as it does for a real.
-- BUG: runner prints "got -nan" (core/plugin/param.c formats a NaN integer with %g).
-- expect: runner: $SCRIPT:4: speedup: workers: expected a finite integer, got nan
sweep "speedup" { workers = 0/0 }
