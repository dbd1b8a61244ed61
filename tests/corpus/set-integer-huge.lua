-- An integer option given 1e30, which is no exact integer.
-- flags: --set base=1e30
-- expect: runner: $SCRIPT:4: --set base=1e30: 1e+30 is out of the exact integer range [-2^53, 2^53]
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
