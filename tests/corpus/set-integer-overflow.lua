-- An integer beyond 64 bits.
-- flags: --set base=99999999999999999999
-- expect: runner: $SCRIPT:4: --set base=99999999999999999999: 1e+20 is out of the exact integer range [-2^53, 2^53]
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
