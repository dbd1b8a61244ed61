-- An integer option given 1.3e-9, which is no exact integer.
-- flags: --set base=1.3e-9
-- expect: runner: $SCRIPT:4: --set base=1.3e-9: expected an integer, got 1.3e-09
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
