-- What does one GPU hold under data parallelism, and what does ZeRO take
-- away? Per-GPU bytes of weights, gradients and Adam state for DDP and ZeRO
-- stages 1-3 (Rajbhandari et al. 2020), then the largest model that fits as
-- the number of GPUs grows. Sizes are printed in decimal GB, as the paper
-- does, with GiB alongside; the database keeps exact bytes.
local report = require "report"

local opt = options {
  params  = { default = 7500000000, doc = "model size of the first table, parameters" },
  workers = { default = 64, doc = "data-parallel GPUs of the first table" },
  scale   = { default = { 8, 64, 1024 }, doc = "GPU counts of the largest-model table" },
  gpu     = { default = 80000000000, unit = "bytes", doc = "memory of one GPU (80e9 = 80 GB; --set gpu=80GiB)" },
}

local stages = { "ddp", "zero1", "zero2", "zero3" }
local label = { ddp = "DDP", zero1 = "ZeRO-1", zero2 = "ZeRO-2", zero3 = "ZeRO-3" }

-- A parameter count in words, so 5e9 and 5.12e12 read at a glance.
local function count(n)
  if n >= 1e12 then return string.format("%.2f trillion", n / 1e12) end
  return string.format("%.1f billion", n / 1e9)
end

-- 1. The paper's example: one model on N_d GPUs, one row per stage.
local rows = sweep("memory", {
  model_params = opt.params, workers = opt.workers, gpu_memory_bytes = opt.gpu,
}, {
  title = string.format("Per-GPU model states: %s parameters on %d GPUs, mixed-precision Adam (K = 12)",
                        count(opt.params), opt.workers),
  columns = { "stage", "weights_bytes", "gradients_bytes", "optimizer_bytes", "total_bytes",
              "total_gb", "total_gib", "fits", "reduction_vs_ddp", "comm_vs_ddp" },
})

-- Under --shard the rows are this shard's only: the summaries wait for the merge.
local whole = not runner.shard
local parts = {}
if whole then
  for _, stage in ipairs(stages) do
    local row = report.find(rows, { stage = stage })
    parts[#parts + 1] = string.format("%s %s (%s)%s", label[stage], report.gb(row.total_bytes),
                                      report.gib(row.total_bytes), row.fits and "" or ", does not fit")
  end
  local zero3 = report.find(rows, { stage = "zero3" })
  printf("=> per GPU (%s each): %s; ZeRO-3 holds %.0fx less than DDP for %.1fx its traffic\n\n",
         report.gb(opt.gpu), table.concat(parts, "; "), zero3.reduction_vs_ddp, zero3.comm_vs_ddp)
end

-- 2. The largest model per stage as the cluster grows (model_params is not
-- used by max_params_that_fit; it keeps its default).
local scale = sweep("memory", { workers = opt.scale, gpu_memory_bytes = opt.gpu }, {
  title = string.format("Largest model that fits on %s GPUs, per stage and GPU count",
                        report.gb(opt.gpu)),
  columns = { "workers", "stage", "max_params_that_fit" },
})

if not whole then return printf("%s\n", runner.shard.note) end
local few, many = report.span(opt.scale)
parts = {}
for _, stage in ipairs(stages) do
  local small = report.find(scale, { workers = few, stage = stage }).max_params_that_fit
  local large = report.find(scale, { workers = many, stage = stage }).max_params_that_fit
  parts[#parts + 1] = string.format("%s %s -> %s", label[stage], count(small), count(large))
end
-- ZeRO-1 keeps the fp16 weights and gradients whole on every GPU (4 bytes per
-- parameter), ZeRO-2 the weights (2 bytes): whatever N_d, that caps them
-- below gpu / 4 and gpu / 2 parameters.
printf("=> from %d to %d GPUs: %s parameters. DDP is stuck at what one GPU holds; "
       .. "ZeRO-1 and ZeRO-2 level off below %s and %s (the replicated weights and "
       .. "gradients); only ZeRO-3 grows with the GPU count (%.0fx)\n",
       few, many, table.concat(parts, ", "), count(opt.gpu / 4), count(opt.gpu / 2),
       report.find(scale, { workers = many, stage = "zero3" }).max_params_that_fit
         / report.find(scale, { workers = few, stage = "zero3" }).max_params_that_fit)
