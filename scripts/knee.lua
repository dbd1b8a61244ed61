-- Where does adding workers stop paying? For several jitters, the smallest
-- worker count at which efficiency falls below 50%, found by bisection on
-- stored rows (scripts/lib/search.lua), beside the closed form of the
-- speedup model (docs/science.md, "Where efficiency halves").
local search = require "search"
local report = require "report"

local opt = options {
  base    = { default = 30.0, doc = "seconds one worker needs for a round alone" },
  jitters = { default = { 0.5, 1.0, 2.0, 4.0 }, doc = "worst extra delay per round, s" },
  target  = { default = 0.5, doc = "the efficiency whose crossing is sought" },
  batch   = { default = 3, doc = "candidates per round (run together with --jobs)" },
}

-- Efficiency of the walk-through model (exact waits) is
-- (base + J/2) / (base + J k^2/(k+1)); it falls below target where
-- J k^2 - c k - c > 0 with c = (base + J/2)/target - base, i.e. above the
-- positive root of that quadratic.
local function closed_form(base, jitter, target)
  local c = (base + jitter / 2) / target - base
  local root = (c + math.sqrt(c * c + 4 * jitter * c)) / (2 * jitter)
  local k = math.floor(root) + 1
  return k, root
end

for _, jitter in ipairs(opt.jitters) do
  local found = search.bisect {
    plugin = "speedup", params = { base = opt.base, jitter = jitter },
    x = "workers", lo = 1, hi = 1000000, integer = true, log = true,
    value = "efficiency", target = opt.target, batch = opt.batch, budget = 200,
    title = string.format("knee at jitter %.17g s", jitter),
  }
  local expected, root = closed_form(opt.base, jitter, opt.target)
  -- Enough digits that "below the target" stays visible (0.49996, not 0.5000).
  printf("jitter %.17g s: efficiency falls below %.17g at k = %d (%s there, %s at k = %d); "
         .. "closed form k > %.6f gives %d: %s (%d points in %d rounds)\n",
         jitter, opt.target, found.x, report.beside(found.value, opt.target),
         report.beside(found.value_before, opt.target), found.before, root,
         expected, found.x == expected and "agree" or "DISAGREE", found.evaluations, found.rounds)
end
