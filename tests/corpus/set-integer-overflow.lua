-- An integer beyond 64 bits.
-- flags: --set base=99999999999999999999
-- expect: runner: $SCRIPT:4: --set base=99999999999999999999: expected an integer
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
