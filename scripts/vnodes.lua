-- Are virtual nodes decoration? Take them away (120 -> 1 point per node)
-- and watch the busiest/idlest ratio (docs/science.md section 4, experiment 2).
local report = require "report"

local opt = options {
  vnodes = { default = { 120, 30, 8, 1 }, doc = "ring points per node to compare" },
  keys   = { default = 20000, doc = "keys placed" },
  nodes  = { default = 8, doc = "nodes before one joins" },
}

local rows = sweep("sharding", {
  keys = opt.keys, nodes = opt.nodes, vnodes = opt.vnodes,
}, {
  title = "Ring balance vs virtual nodes per node",
  columns = {"vnodes", "load_max", "load_min", "load_ratio", "load_cv", "load_cv_expected",
             "moved_ring", "moved_ideal"},
})

-- Under --shard the rows are this shard's only: the summary waits for the merge.
if runner.shard then return printf("%s\n", runner.shard.note) end

local fewest, most = report.span(opt.vnodes)
local many = report.find(rows, { vnodes = most })
local few = report.find(rows, { vnodes = fewest })
printf("busiest/idlest: %.2f at %d points per node, %.2f at %d; "
       .. "load spread (cv) %s -> %s\n",
       many.load_ratio, many.vnodes, few.load_ratio, few.vnodes,
       report.percent(many.load_cv), report.percent(few.load_cv))
printf("virtual nodes are load balancing: removing them makes the busiest node %.1fx "
       .. "busier than the idlest instead of %.1fx\n", few.load_ratio, many.load_ratio)
