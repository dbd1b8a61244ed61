-- Placement schemes side by side (docs/science.md section 4, "Beyond"): on the
-- same keys, how many move when a ninth node joins eight and when it leaves
-- again, how even the load is, and what one lookup costs.
local report = require "report"

local opt = options {
  keys    = { default = 100000, doc = "keys placed" },
  nodes   = { default = 8, doc = "N: the table shows N -> N+1 and N+1 -> N" },
  vnodes  = { default = 120, doc = "ring points per node (ring, and bounded's ring)" },
  epsilon = { default = 0.25, doc = "bounded: capacity ceil((1+epsilon) keys/N)" },
  hash    = { default = "md5", doc = "key hash; md5 puts ketama (md5 by definition) on the same hashes" },
  measure = { default = true, doc = "time lookups into lookup_ns (not reproducible)" },
}

local schemes = { "mod", "ring", "jump", "rendezvous", "maglev", "ketama", "bounded" }
local n, m = opt.nodes, opt.nodes + 1
local rows = sweep("sharding", {
  keys = opt.keys, nodes = { n, m }, vnodes = opt.vnodes, hash = opt.hash, scheme = schemes,
  epsilon = opt.epsilon, measure_lookup = opt.measure,
}, { title = "Placement schemes: moves, balance and lookup cost", print = false })

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

local function pct(x) return report.percent(x, 2) end

printf("Placement schemes on the same %d keys (%s): %d -> %d nodes and back\n",
       opt.keys, opt.hash, n, m)
printf("%-11s %9s %9s %9s %9s  %8s %8s %7s  %7s %10s %9s\n",
       "scheme", n .. "->" .. m, "excess", m .. "->" .. n, "excess",
       "max/mean", "max/min", "cv", "probes", "table", "lookup")
for _, scheme in ipairs(schemes) do
  local grow = report.find(rows, { scheme = scheme, nodes = n })
  local shrink = report.find(rows, { scheme = scheme, nodes = m })
  printf("%-11s %9s %9s %9s %9s  %8.3f %8.3f %7s  %7.2f %10s %9s\n",
         scheme, pct(grow.moved_grow), pct(grow.moved_grow_excess),
         pct(shrink.moved_shrink), pct(shrink.moved_shrink_excess),
         grow.load_max_over_mean, grow.load_ratio, pct(grow.load_cv),
         grow.probes_per_lookup, report.bytes(grow.table_bytes),
         grow.lookup_ns and string.format("%.1f ns", grow.lookup_ns) or "-")
end
printf("(%s->%s: share of all keys that move when node %d joins, %s->%s when it leaves again;\n"
       .. " excess: share of all keys that move although not to the new node, or not off the\n"
       .. " leaving one: 0 is minimal movement; balance, probes and table on %d nodes; lookup:\n"
       .. " wall clock on this machine, key already hashed, not reproducible)\n\n",
       n, m, n, m, n, n)

-- Summary.
local ideal = 1 / m
local minimal, extra = {}, {}
for _, scheme in ipairs(schemes) do
  local r = report.find(rows, { scheme = scheme, nodes = n })
  if r.moved_grow_excess == 0 then
    minimal[#minimal + 1] = scheme
  else
    extra[#extra + 1] = string.format("%s %s", scheme, pct(r.moved_grow_excess))
  end
end
printf("=> adding a node moves %s under mod-N but %s on the ring (ideal 1/%d = %s); "
       .. "nothing moves between old nodes under %s; beyond the new node's share: %s\n",
       pct(report.find(rows, { scheme = "mod", nodes = n }).moved_grow),
       pct(report.find(rows, { scheme = "ring", nodes = n }).moved_grow), m, pct(ideal),
       table.concat(minimal, ", "), table.concat(extra, ", "))

local same = true
for _, scheme in ipairs(schemes) do
  local grow = report.find(rows, { scheme = scheme, nodes = n })
  local shrink = report.find(rows, { scheme = scheme, nodes = m })
  if grow.moved_grow_keys ~= shrink.moved_shrink_keys then same = false end
end
printf("=> %s -> %s moves %s the keys %s -> %s moved, for every scheme: each placement is a "
       .. "function of the set of nodes alone\n", m, n, same and "exactly" or "NOT", n, m)

local ring = report.find(rows, { scheme = "ring", nodes = n })
local bounded = report.find(rows, { scheme = "bounded", nodes = n })
local jump = report.find(rows, { scheme = "jump", nodes = n })
local maglev = report.find(rows, { scheme = "maglev", nodes = n })
local ketama = report.find(rows, { scheme = "ketama", nodes = n })
printf("=> balance (busiest/mean): jump %.3f and maglev %.3f are only key noise; ring %.3f "
       .. "(%d points/node) and ketama %.3f (160) carry their arcs' spread\n",
       jump.load_max_over_mean, maglev.load_max_over_mean, ring.load_max_over_mean, opt.vnodes,
       ketama.load_max_over_mean)
if ring.load_max > bounded.capacity then
  printf("=> bounded caps the busiest node at %d keys (%.3f of the mean, ring %d) and pays "
         .. "%s of extra moves\n", bounded.capacity, bounded.load_max_over_mean, ring.load_max,
         pct(bounded.moved_grow - ring.moved_grow))
else
  printf("=> bounded places every key as the ring does: the ring's busiest node (%d keys) is "
         .. "already under the cap of %d; try --set vnodes=10\n", ring.load_max, bounded.capacity)
end
printf("=> lookup: maglev reads 1 entry of a %s table, jump takes %.2f steps with no table "
       .. "(H_%d = %.2f), rendezvous scores all %d nodes, the ring %.2f points of %s\n",
       report.bytes(maglev.table_bytes), jump.probes_per_lookup, n,
       (function() local h = 0 for j = 1, n do h = h + 1 / j end return h end)(), n,
       ring.probes_per_lookup, report.bytes(ring.table_bytes))
