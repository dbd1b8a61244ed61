-- From what message size does ring all-reduce beat recursive doubling?
-- Bisection over the gradient size on stored rows of the comm plugin's
-- alpha-beta model (scripts/lib/search.lua), beside the analytic crossover
-- (docs/science.md, "Which all-reduce when").
local search = require "search"

local opt = options {
  workers   = { default = { 4, 8, 64, 512 }, doc = "worker counts k (powers of two)" },
  latency   = { default = 5e-6, doc = "alpha: start-up time of one message, s" },
  bandwidth = { default = 12.5e9, doc = "1/beta: link bytes per second" },
  reduce    = { default = 100e9, doc = "1/gamma: bytes per second one node reduces" },
  bytes_per_param = { default = 4, doc = "bytes per gradient entry" },
}

-- Ring: 2(k-1) alpha + n (k-1)/k (2 beta + gamma); recursive doubling:
-- lg k alpha + n lg k (beta + gamma). Equal at n = (2(k-1) - lg k) alpha /
-- (lg k (beta + gamma) - (k-1)/k (2 beta + gamma)).
local function crossover_bytes(k)
  local lg = math.ceil(math.log(k, 2) - 1e-12)
  local alpha, beta, gamma = opt.latency, 1 / opt.bandwidth, 1 / opt.reduce
  local share = (k - 1) / k
  return (2 * (k - 1) - lg) * alpha / (lg * (beta + gamma) - share * (2 * beta + gamma))
end

local function time_of(rows, scheme)
  for _, row in ipairs(rows) do
    if row.scheme == scheme then return row.time_s end
  end
  error("no row for scheme " .. scheme)
end

for _, k in ipairs(opt.workers) do
  local found = search.bisect {
    plugin = "comm",
    params = { workers = k, schemes = "all", latency_s = opt.latency,
               bandwidth_bytes_per_s = opt.bandwidth, reduce_bytes_per_s = opt.reduce,
               bytes_per_param = opt.bytes_per_param },
    x = "model_params", lo = 1, hi = 1000000000000, integer = true, log = true,
    -- Positive once recursive doubling is the slower of the two.
    value = function(rows) return time_of(rows, "recursive_doubling") - time_of(rows, "ring") end,
    target = 0, batch = 3, budget = 400,
    title = string.format("ring vs recursive doubling at k = %d", k),
  }
  local exact = crossover_bytes(k)
  local lo_bytes = found.before * opt.bytes_per_param
  local hi_bytes = found.x * opt.bytes_per_param
  printf("k = %d: the two cross between %d and %d bytes (ring the faster above); "
         .. "analytic crossover %.6f bytes: %s (%d points in %d rounds)\n", k, lo_bytes,
         hi_bytes, exact, (exact > lo_bytes and exact <= hi_bytes) and "agree" or "DISAGREE",
         found.evaluations, found.rounds)
end
