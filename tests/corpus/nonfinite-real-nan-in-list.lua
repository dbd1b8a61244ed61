-- A NaN computed inside an axis (0/0 is -nan on x86; the sign is not shown).
-- expect: runner: $SCRIPT:4: speedup: jitter: expected a finite number, got nan
local zero = 0
sweep "speedup" { jitter = { 1, zero / zero } }
