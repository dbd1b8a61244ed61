-- A fraction for an option whose default is an integer.
-- flags: --set base=60.5
-- expect: runner: $SCRIPT:4: --set base=60.5: expected an integer, got 60.5
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
