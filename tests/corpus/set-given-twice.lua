-- The same option twice on the command line: the second must not silently lose.
-- flags: --set n=1 --set n=2
-- expect: runner: --set n: given twice; give each option once
local o = options { n = 0 }
