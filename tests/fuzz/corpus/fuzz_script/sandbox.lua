assert(io == nil and load == nil and dofile == nil and loadfile == nil)
assert(os.execute == nil and os.getenv == nil and string.dump == nil)
local ok = pcall(require, "../etc/passwd")
ok = pcall(require, "nosuchmodule")
local report = require "report"
printf("%s %s\n", runner.version, runner.script)
local t = {}
for i = 1, 100 do t[i] = string.rep("x", i) end
local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
printf("%d %s\n", co(), os.date("!%Y", 0))
