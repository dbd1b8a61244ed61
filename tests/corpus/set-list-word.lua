-- A word in a list of numbers: the plugin's check names the sweep line.
-- flags: --set jitters=2,fast
-- expect: runner: $SCRIPT:11: speedup: jitter: expected a number, got a text
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
