-- A float that overflows to infinity.
-- flags: --set jitter=1e999
-- expect: runner: $SCRIPT:4: --set jitter=1e999: expected a finite number
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
