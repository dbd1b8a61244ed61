-- A runaway loop, stopped by --script-timeout at the line it was on.
-- flags: --script-timeout 0.5
-- expect: runner: $SCRIPT:5: the script ran for more than 0.5 s of its own time (--script-timeout)
local n = 0
while true do n = n + 1 end
