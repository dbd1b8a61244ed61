sweep "testkit" { zip { x = {1, 2, 3}, rows = {1, 2, 0} }, label = "b" }
local r = sweep("testkit", { x = 0.5 }, { print = false, keep_rows = true })
printf("%g\n", r[1].y)
