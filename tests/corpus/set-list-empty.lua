-- A list option with only separators.
-- flags: --set jitters=,,
-- expect: runner: $SCRIPT:4: --set jitters=,,: expected a comma-separated list
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
