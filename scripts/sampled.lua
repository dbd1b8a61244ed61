-- Which input moves the speedup of the combined model most? A Sobol design
-- over base, jitter, gradient size and bandwidth (scripts/lib/design.lua),
-- crossed with three worker counts, checked point by point against the
-- closed form of the combined model (docs/science.md, "The combined
-- model"), then ranked by Spearman correlation with the speedup.
local design = require "design"

local opt = options {
  points  = { default = 64, doc = "Sobol points per worker count" },
  workers = { default = { 8, 64, 512 }, doc = "worker counts crossed with the design" },
}

local space = {
  base                  = design.uniform(10, 120),
  jitter                = design.loguniform(0.1, 4),
  model_params          = design.loginteger(1000000, 10000000000),
  bandwidth_bytes_per_s = design.loguniform(1.25e9, 50e9),
}
local rows = sweep("speedup", {
  model = "combined", workers = opt.workers,
  design.sobol(opt.points, space, { stream = "combined" }),
}, { title = "Sobol design over the combined model", print = false })

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

-- T_k = base/k + 2(k-1) alpha + n (k-1)/k (2 beta + gamma) + J k/(k+1);
-- T_1 = base + J/2 (one worker exchanges nothing); S = T_1 / T_k.
local function closed_form(r)
  local k, n = r.workers, r.model_params * r.bytes_per_param
  local comm = 2 * (k - 1) * r.latency_s
             + n * (k - 1) / k * (2 / r.bandwidth_bytes_per_s + 1 / r.reduce_bytes_per_s)
  return (r.base + r.jitter / 2) / (r.base / k + comm + r.jitter * k / (k + 1))
end

local worst = 0
for _, r in ipairs(rows) do
  local rel = math.abs(r.speedup - closed_form(r)) / closed_form(r)
  if rel > worst then worst = rel end
end
printf("%d points: largest relative gap to the closed form %.3g\n", #rows, worst)

-- Spearman rank correlation of each input with the speedup, per k.
local function ranks(values)
  local order = {}
  for i = 1, #values do order[i] = i end
  table.sort(order, function(a, b) return values[a] < values[b] end)
  local r = {}
  for rank, i in ipairs(order) do r[i] = rank end
  return r
end
local function spearman(xs, ys)
  local rx, ry, n, d2 = ranks(xs), ranks(ys), #xs, 0
  for i = 1, n do d2 = d2 + (rx[i] - ry[i]) ^ 2 end
  return 1 - 6 * d2 / (n * (n * n - 1))
end
local inputs = { "base", "jitter", "model_params", "bandwidth_bytes_per_s" }
for _, k in ipairs(opt.workers) do
  local at = {}
  for _, r in ipairs(rows) do if r.workers == k then at[#at + 1] = r end end
  local speedups = {}
  for i, r in ipairs(at) do speedups[i] = r.speedup end
  local parts = {}
  for _, name in ipairs(inputs) do
    local xs = {}
    for i, r in ipairs(at) do xs[i] = r[name] end
    parts[#parts + 1] = string.format("%s %+.2f", name, spearman(xs, speedups))
  end
  printf("k = %d: rank correlation with speedup: %s\n", k, table.concat(parts, ", "))
end
