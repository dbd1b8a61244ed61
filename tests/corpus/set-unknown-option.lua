-- A misspelt option name, with a suggestion.
-- flags: --set jiters=2
-- expect: runner: $SCRIPT:4: --set jiters: the script has no option 'jiters' (did you mean 'jitters'?)
local opt = options {
  base    = 30,
  jitter  = 2.0,
  jitters = { 2.0, 1.0 },
  verbose = false,
  model   = "walkthrough",
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, model = opt.model,
                   workers = { 1, 2 } }, { print = false })
