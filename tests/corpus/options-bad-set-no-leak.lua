-- A --set value that does not parse (and, under ASan, leaks nothing).
-- flags: --set flag=maybe
-- expect: runner: $SCRIPT:4: --set flag=maybe: expected true or false
local o = options { flag = false, n = 3 }
