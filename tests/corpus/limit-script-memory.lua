-- Unbounded allocation, stopped by --script-memory (Lua's own message).
-- flags: --script-memory 8
-- expect: runner: not enough memory
local t = {}
for i = 1, 1e9 do t[i] = i end
