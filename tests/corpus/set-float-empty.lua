-- An empty value for a float option.
-- flags: --set jitter=
-- expect: runner: $SCRIPT:4: --set jitter=: expected a finite number
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
