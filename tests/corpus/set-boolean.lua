-- A boolean option set to a word.
-- flags: --set verbose=yes
-- expect: runner: $SCRIPT:4: --set verbose=yes: expected true or false
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
