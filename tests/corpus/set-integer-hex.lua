-- Integers are base 10.
-- flags: --set base=0x1e
-- expect: runner: $SCRIPT:4: --set base=0x1e: expected an integer
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
