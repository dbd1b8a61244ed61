-- Which all-reduce is fastest for a message of n bytes? The alpha-beta time
-- of every scheme at a fixed number of ranks across log-spaced message sizes,
-- and the sizes at which the fastest one changes (docs/science.md section 2,
-- "Beyond"; docs/plugins/comm.md has the formulas).
local report = require "report"

local opt = options {
  workers   = { default = 64, doc = "ranks p" },
  latency   = { default = 5e-6, doc = "alpha: s per message" },
  bandwidth = { default = 12.5e9, doc = "bytes/s per link and direction (12.5e9 = 100 Gb/s)" },
  reduce    = { default = 1e11, doc = "bytes/s one rank reduces" },
  smallest  = { default = 1024, doc = "smallest message, bytes" },
  largest   = { default = 1073741824, doc = "largest message, bytes" },
  sizes     = { default = 11, doc = "number of log-spaced message sizes" },
}

-- Message sizes in whole bytes: n = model_params with one byte per parameter.
local sizes = {}
for _, x in ipairs(logspace(opt.smallest, opt.largest, opt.sizes)) do
  sizes[#sizes + 1] = math.floor(x + 0.5)
end

local rows = sweep("comm", {
  model_params = sizes, bytes_per_param = 1, workers = opt.workers,
  latency_s = opt.latency, bandwidth_bytes_per_s = opt.bandwidth,
  reduce_bytes_per_s = opt.reduce, schemes = "all",
}, { title = "All-reduce schemes across message sizes", print = false })

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

local schemes = { "ps", "ring", "recursive_doubling", "halving_doubling", "binary_tree",
                  "double_binary_tree" }
local short = { ps = "ps", ring = "ring", recursive_doubling = "rec_dbl",
                halving_doubling = "halv_dbl", binary_tree = "tree",
                double_binary_tree = "dbl_tree" }

-- A time with its unit: us, ms or s.
local function seconds(s)
  if s >= 1 then return string.format("%.3g s", s) end
  if s >= 1e-3 then return string.format("%.3g ms", s * 1e3) end
  return string.format("%.3g us", s * 1e6)
end

-- A size that may be fractional (a crossover): bytes below 1 KiB.
local function size(n)
  if n < 1024 then return string.format("%.0f B", n) end
  return report.bytes(n)
end

printf("All-reduce of n bytes on %d ranks: alpha %g s, links %g bytes/s (%g Gb/s), "
       .. "reduction %g bytes/s\n", opt.workers, opt.latency, opt.bandwidth,
       opt.bandwidth * 8 / 1e9, opt.reduce)
printf("time per round (alpha-beta model); bytes = what the bandwidth term charges at "
       .. "the busiest node\n\n")
printf("%-10s", "n")
for _, s in ipairs(schemes) do printf(" %10s", short[s]) end
printf("  %-10s\n", "fastest")
for _, n in ipairs(sizes) do
  printf("%-10s", size(n))
  local best
  for _, s in ipairs(schemes) do
    local row = report.find(rows, { model_params = n, scheme = s })
    printf(" %10s", seconds(row.time_s))
    if row.fastest then best = s end
  end
  printf("  %s\n", best)
end
printf("%-10s", "bytes/n")
local first = sizes[1]
for _, s in ipairs(schemes) do
  printf(" %10s", string.format("%.3g", report.find(rows, { model_params = first, scheme = s })
                                          .copies_per_round))
end
printf("  (copies of n per round at the busiest node)\n\n")

-- The fastest scheme as a function of n does not depend on n itself: any
-- size's rows carry the same ranges.
local ranges = {}
for _, s in ipairs(schemes) do
  local row = report.find(rows, { model_params = first, scheme = s })
  if row.fastest_from_bytes == row.fastest_from_bytes then
    ranges[#ranges + 1] = row
  end
end
table.sort(ranges, function(a, b) return a.fastest_from_bytes < b.fastest_from_bytes end)
local parts = {}
for _, row in ipairs(ranges) do
  if row.fastest_to_bytes == math.huge then
    parts[#parts + 1] = string.format("%s above %s", row.scheme, size(row.fastest_from_bytes))
  elseif row.fastest_from_bytes == 0 then
    parts[#parts + 1] = string.format("%s up to %s (%.0f B)", row.scheme,
                                      size(row.fastest_to_bytes), row.fastest_to_bytes)
  else
    parts[#parts + 1] = string.format("%s from %s to %s", row.scheme,
                                      size(row.fastest_from_bytes), size(row.fastest_to_bytes))
  end
end
printf("fastest: %s\n", table.concat(parts, "; "))
for _, s in ipairs(schemes) do
  local row = report.find(rows, { model_params = first, scheme = s })
  local n = row.ring_crossover_bytes
  if n == n then
    printf("  ring and %s take equal time at n* = %.0f B (%s); %s is faster below\n",
           s, n, size(n), s)
  elseif s ~= "ring" then
    -- No crossing at n > 0: one of the two is faster at every size.
    local ring = report.find(rows, { model_params = first, scheme = "ring" })
    if row.time_s == ring.time_s then
      printf("  ring and %s take the same time at every size\n", s)
    else
      printf("  ring and %s never cross at n > 0: %s is faster at every size\n", s,
             row.time_s < ring.time_s and s or "ring")
    end
  end
end
