-- The script's own error(): its message at the line of the error call.
-- expect: runner: $SCRIPT:4: too many sections: 5
local function check(n)
  if n > 3 then error("too many sections: " .. n) end
end
check(5)
