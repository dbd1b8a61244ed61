-- What does a 1000x bigger model cost on the wire? 1e6 -> 1e9 parameters at
-- 8 and 64 workers (docs/science.md section 2, experiment 3).
local report = require "report"

local opt = options {
  params  = { default = { 1000000, 1000000000 }, doc = "model sizes (parameters)" },
  workers = { default = { 8, 64 }, doc = "worker counts" },
}

local rows = sweep("comm", {
  model_params = opt.params, bytes_per_param = 4, workers = opt.workers,
}, {
  title = "Bytes per round by model size, workers and scheme (float32)",
  columns = {"model_params", "workers", "scheme", "counted_at", "bytes_per_round",
             "mib_per_round", "gib_per_round"},
})

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

local small, large = report.span(opt.params)
for _, k in ipairs(opt.workers) do
  local ps = report.find(rows, { model_params = large, workers = k, scheme = "ps" })
  local ring_small = report.find(rows, { model_params = small, workers = k, scheme = "ring" })
  local ring_large = report.find(rows, { model_params = large, workers = k, scheme = "ring" })
  printf("%d workers, %g parameters: the server moves %s per round; each ring worker %s "
         .. "(%s at %g parameters, %.0fx)\n",
         k, large, report.bytes(ps.bytes_per_round), report.bytes(ring_large.bytes_per_round),
         report.bytes(ring_small.bytes_per_round), small,
         ring_large.bytes_per_round / ring_small.bytes_per_round)
end
