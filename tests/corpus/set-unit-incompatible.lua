-- An option that declares its unit converts --set values into it, and
-- refuses one that does not convert.
-- flags: --set jitters=500ms,2GiB
-- expect: runner: $SCRIPT:5: --set jitters=500ms,2GiB: '2GiB': GiB (bytes) does not convert to s (time)
local opt = options {
  base    = 30,
  jitters = { default = { 2.0, 1.0 }, unit = "s", doc = "worst extra delay per round" },
}
sweep("speedup", { base = opt.base, jitter = opt.jitters, workers = { 1, 2 } }, { print = false })
