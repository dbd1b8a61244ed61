-- A well-formed value the plugin's range refuses.
-- flags: --set base=-5
-- expect: runner: $SCRIPT:11: speedup: base: -5 is out of range [0, 1000000000] s
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
