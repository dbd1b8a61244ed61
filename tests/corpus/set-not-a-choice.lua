-- A string option outside the plugin's choices.
-- flags: --set model=ring
-- expect: runner: $SCRIPT:11: speedup: model: 'ring' is not one of 'walkthrough', 'combined'
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
