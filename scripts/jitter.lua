-- How far does the speedup ceiling rise when the worst delay shrinks?
-- (docs/science.md section 5, first 30-second experiment: jitter 2.0 -> 0.5.)
local report = require "report"

local opt = options {
  base    = { default = 30, doc = "seconds one worker needs for a round alone" },
  jitters = { default = { 2.0, 1.0, 0.5 }, unit = "s", doc = "worst extra delay per round" },
}

local rows = sweep("speedup", {
  base    = opt.base,
  jitter  = opt.jitters,
  workers = { 1, 2, 4, 8, 16, 64, 256, 512 },
}, { title = "Speedup vs workers, per jitter (exact expected waits)" })

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

for _, jitter in ipairs(opt.jitters) do
  local at512 = report.find(rows, { jitter = jitter, workers = 512 })
  printf("jitter %g s: ceiling T1/J = %.1fx (Amdahl base/J = %.1fx); "
         .. "512 workers deliver %.2fx at %.1f%% efficiency\n",
         jitter, at512.ceiling, at512.ceiling_amdahl, at512.speedup,
         100 * at512.efficiency)
end
-- The largest delay against the smallest, whatever order --set gave.
local smallest, largest = report.span(opt.jitters)
if smallest < largest then
  printf("shrinking the worst delay %g -> %g s raises the ceiling %.1fx -> %.1fx\n",
         largest, smallest,
         report.find(rows, { jitter = largest, workers = 1 }).ceiling,
         report.find(rows, { jitter = smallest, workers = 1 }).ceiling)
end
