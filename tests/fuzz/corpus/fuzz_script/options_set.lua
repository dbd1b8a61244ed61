--set n=3
--set xs=1,2.5,-4
--set flag=true
--set name=c
local opt = options {
  n    = { default = 1, doc = "rows per point" },
  xs   = { default = { 1, 2 }, doc = "x values" },
  flag = false,
  name = "a",
  unused = 0.5,
}
sweep("testkit", { x = opt.xs, rows = opt.n, fail = opt.flag, label = opt.name })
