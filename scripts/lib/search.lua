-- search: adaptive sweeps built from sweep() calls (docs/lua-api.md,
-- "Adaptive searches"). Each round is one sweep() section; every decision
-- is taken from the rows that round stored, never from a clock or a random
-- draw. So a sweep killed at any moment and resumed replays the same
-- decisions from the stored rows without running stored points again, and
-- --jobs or MPI change nothing in the rows: only how fast a round's batch of
-- candidates runs.
local report = require "report"

local search = {}

-- A search's own errors are raised as { search_error = text } and re-raised
-- by the public wrapper (the end of this file) at the script line that
-- called the search; anything else (a sweep()'s error, Ctrl-C) passes
-- through unchanged.
local function fail(fmt, ...)
  error({ search_error = string.format(fmt, ...) }, 0)
end

local function check(ok, fmt, ...)
  if not ok then fail(fmt, ...) end
end

local function finite(x) return type(x) == "number" and x == x and x > -math.huge and x < math.huge end

local function fmt_value(x)
  if math.type(x) == "integer" then return tostring(x) end
  return string.format("%.17g", x)
end

-- Checks what every search takes: plugin, params, x, value, where, and the
-- bounds lo < hi (integers when integer = true; above 0 when log = true).
local function check_common(kind, spec)
  check(type(spec) == "table", "search.%s{...}: needs a table of settings", kind)
  check(runner.shard == nil, "search.%s: an adaptive search decides from every point's rows; "
        .. "run it without --shard (one process, --jobs or MPI)", kind)
  check(type(spec.plugin) == "string", "search.%s: plugin must be a plugin name", kind)
  check(spec.params == nil or type(spec.params) == "table",
        "search.%s: params must be a table of fixed parameters", kind)
  check(type(spec.value) == "string" or type(spec.value) == "function",
        "search.%s: value must be a column name or a function(rows) returning a number", kind)
  check(spec.where == nil or type(spec.where) == "table", "search.%s: where must be a table", kind)
  if spec.x ~= nil then
    check(type(spec.x) == "string", "search.%s: x must be the name of the searched parameter", kind)
    check(spec.params == nil or spec.params[spec.x] == nil,
          "search.%s: '%s' is searched, so params must not fix it", kind, spec.x)
    check(finite(spec.lo) and finite(spec.hi), "search.%s: lo and hi must be finite numbers", kind)
    check(spec.lo < spec.hi, "search.%s: lo (%s) must be below hi (%s)", kind, fmt_value(spec.lo),
          fmt_value(spec.hi))
    if spec.integer then
      check(math.type(spec.lo) == "integer" and math.type(spec.hi) == "integer",
            "search.%s: integer = true needs integer lo and hi", kind)
    end
    if spec.log then
      check(spec.lo > 0, "search.%s: log = true needs lo above 0, got %s", kind, fmt_value(spec.lo))
    end
  end
  local batch = spec.batch or 1
  check(math.type(batch) == "integer" and batch >= 1 and batch <= 1000,
        "search.%s: batch must be an integer from 1 to 1000", kind)
  check(spec.budget == nil or (math.type(spec.budget) == "integer" and spec.budget >= 1),
        "search.%s: budget must be a positive integer number of points", kind)
  return batch
end

-- An evaluator runs the x values not yet known in one sweep() section and
-- remembers each x's value, so no point runs twice within a search.
local function evaluator(kind, spec)
  local known, order, rounds = {}, {}, 0
  local self = {}
  function self.run(xs)
    local todo, queued = {}, {}
    for _, x in ipairs(xs) do
      if known[x] == nil and not queued[x] then
        queued[x] = true
        todo[#todo + 1] = x
      end
    end
    if #todo == 0 then return nil end
    table.sort(todo)
    rounds = rounds + 1
    local params = {}
    for k, v in pairs(spec.params or {}) do params[k] = v end
    params[spec.x] = todo
    local title = string.format("%s %s: round %d", kind, spec.x, rounds)
    if spec.title then title = spec.title .. " (" .. title .. ")" end
    local rows = sweep(spec.plugin, params, { title = title, print = false })
    for _, x in ipairs(todo) do
      local where = { [spec.x] = x }
      for k, v in pairs(spec.where or {}) do where[k] = v end
      local matching = report.filter(rows, where)
      if #matching == 0 then
        return string.format("search.%s: no row for %s = %s (the point failed or where{} matches "
                             .. "nothing); 'runner show last' shows it", kind, spec.x, fmt_value(x))
      end
      local v
      if type(spec.value) == "string" then
        v = matching[1][spec.value]
        if type(v) ~= "number" then
          return string.format("search.%s: column '%s' is not a number at %s = %s", kind,
                               spec.value, spec.x, fmt_value(x))
        end
      else
        v = spec.value(matching)
        if type(v) ~= "number" then
          return string.format("search.%s: value(rows) returned a %s at %s = %s, not a number",
                               kind, type(v), spec.x, fmt_value(x))
        end
      end
      known[x] = v
      order[#order + 1] = x
    end
    return nil
  end
  function self.value(x) return known[x] end
  function self.points()
    local list = {}
    for _, x in ipairs(order) do list[#list + 1] = { x = x, value = known[x] } end
    table.sort(list, function(a, b) return a.x < b.x end)
    return list
  end
  function self.count() return #order end
  function self.rounds() return rounds end
  return self
end

-- Candidates strictly inside (lo, hi): count values evenly spaced (in log
-- space with log = true), rounded and deduplicated for integers.
local function interior(lo, hi, count, integer, log)
  local out, seen = {}, {}
  for k = 1, count do
    local f = k / (count + 1)
    local x = log and math.exp(math.log(lo) + f * (math.log(hi) - math.log(lo)))
              or lo + f * (hi - lo)
    if integer then
      x = math.floor(x + 0.5)
      if x <= lo then x = lo + 1 end
      if x >= hi then x = hi - 1 end
    end
    if x > lo and x < hi and not seen[x] then
      seen[x] = true
      out[#out + 1] = x
    end
  end
  return out
end

-- Whether the bracket [lo, hi] is narrow enough to stop.
local function narrow(lo, hi, spec)
  if spec.integer then return hi - lo <= 1 end
  if spec.rtol then return hi / lo - 1 <= spec.rtol end
  return hi - lo <= spec.tolerance
end

-- The rounds a bracket search needs at most, when every round keeps the
-- widest sub-bracket (what budget is checked against before any point runs).
local function worst_case_points(spec, batch, ends)
  local lo, hi, points = spec.lo, spec.hi, ends
  for _ = 1, 10000 do
    if narrow(lo, hi, spec) then return points end
    local xs = interior(lo, hi, batch, spec.integer, spec.log)
    if #xs == 0 then return points end
    points = points + #xs
    local bounds = { lo }
    for _, x in ipairs(xs) do bounds[#bounds + 1] = x end
    bounds[#bounds + 1] = hi
    local best = 1
    for i = 2, #bounds - 1 do
      if bounds[i + 1] - bounds[i] > bounds[best + 1] - bounds[best] then best = i end
    end
    lo, hi = bounds[best], bounds[best + 1]
  end
  return points
end

local function check_tolerance(kind, spec)
  if spec.integer then return end
  check(spec.tolerance ~= nil or spec.rtol ~= nil,
        "search.%s: a real x needs tolerance (absolute) or rtol (relative) to know when to stop", kind)
  check(spec.tolerance == nil or (finite(spec.tolerance) and spec.tolerance > 0),
        "search.%s: tolerance must be a positive number", kind)
  check(spec.rtol == nil or (finite(spec.rtol) and spec.rtol > 0),
        "search.%s: rtol must be a positive number", kind)
  check(spec.rtol == nil or spec.lo > 0, "search.%s: rtol needs lo above 0", kind)
end

local function check_budget(kind, spec, needed)
  check(spec.budget == nil or spec.budget >= needed,
        "search.%s: a budget of %d points cannot decide: narrowing [%s, %s] needs up to %d "
        .. "points; raise budget, batch or the tolerance", kind, spec.budget or 0,
        fmt_value(spec.lo), fmt_value(spec.hi), needed)
end

---------------------------------------------------------------------------
-- bisect: the first x (from lo) at which value(x) is on the other side of
-- target than value(lo) is, for a value monotone in x. Each round runs
-- `batch` candidates at once (k-section), so --jobs can run them together.

function search.bisect(spec)
  local batch = check_common("bisect", spec)
  check(spec.x ~= nil, "search.bisect: x, lo and hi name the searched parameter and its range")
  check(finite(spec.target), "search.bisect: target must be a finite number")
  check_tolerance("bisect", spec)
  check_budget("bisect", spec, worst_case_points(spec, batch, 2))

  local eval = evaluator("bisect", spec)
  local err = eval.run({ spec.lo, spec.hi })
  if err then fail("%s", err) end
  local below_at_lo = eval.value(spec.lo) < spec.target
  local function crossed(x) return (eval.value(x) < spec.target) ~= below_at_lo end
  if not crossed(spec.hi) then
    fail("search.bisect: %s does not cross %s between %s = %s (%.6g) and %s (%.6g); widen lo..hi",
         type(spec.value) == "string" and spec.value or "value", fmt_value(spec.target), spec.x,
         fmt_value(spec.lo), eval.value(spec.lo), fmt_value(spec.hi), eval.value(spec.hi))
  end
  local lo, hi = spec.lo, spec.hi
  while not narrow(lo, hi, spec) do
    local xs = interior(lo, hi, batch, spec.integer, spec.log)
    if #xs == 0 then break end
    err = eval.run(xs)
    if err then fail("%s", err) end
    local new_lo, new_hi = lo, hi
    for _, x in ipairs(xs) do
      if crossed(x) then
        if x < new_hi then new_hi = x end
      elseif x > new_lo then
        new_lo = x
      end
    end
    -- A value that is not monotone could leave new_lo above new_hi: keep
    -- the first crossing seen from lo, as documented.
    if new_lo > new_hi then new_lo = lo end
    lo, hi = new_lo, new_hi
  end
  local vlo, vhi = eval.value(lo), eval.value(hi)
  local at = hi
  if not spec.integer and vhi ~= vlo then
    at = lo + (spec.target - vlo) * (hi - lo) / (vhi - vlo)
  end
  return { x = hi, before = lo, value = vhi, value_before = vlo, at = at,
           evaluations = eval.count(), rounds = eval.rounds(), points = eval.points() }
end

---------------------------------------------------------------------------
-- minimize / maximize: golden-section search (batch = 1) or k-section
-- (batch > 1) for the extremum of a unimodal value on [lo, hi].

local PHI = (math.sqrt(5) - 1) / 2

local function extremum(kind, spec, sign)
  local batch = check_common(kind, spec)
  check(spec.x ~= nil, "search.%s: x, lo and hi name the searched parameter and its range", kind)
  check_tolerance(kind, spec)
  check(not spec.log, "search.%s: log = true is not supported; search over the exponent", kind)
  local eval = evaluator(kind, spec)
  local function f(x) return sign * eval.value(x) end
  local function pick(a, b)
    if spec.integer then
      local xs = {}
      for x = a, b do xs[#xs + 1] = x end
      return xs
    end
    return { a, b }
  end
  local a, b = spec.lo, spec.hi
  local needed = 0
  do -- the budget this tolerance needs, before any point runs
    local w, shrink = b - a, batch == 1 and PHI or 2 / (batch + 1)
    needed = batch == 1 and 2 or 0
    while not narrow(0 + (spec.rtol and a or 0), w + (spec.rtol and a or 0), spec)
          and w > (spec.integer and 3 or 0) do
      w = w * shrink
      needed = needed + batch
      if needed > 1e7 then break end
    end
    needed = needed + (spec.integer and 4 or 0)
  end
  check_budget(kind, spec, needed)

  local function run(xs)
    local err = eval.run(xs)
    if err then fail("%s", err) end
  end
  local function round_x(x)
    if spec.integer then return math.floor(x + 0.5) end
    return x
  end
  if batch == 1 then
    local c, d = round_x(b - PHI * (b - a)), round_x(a + PHI * (b - a))
    run({ c, d })
    while not narrow(a, b, spec) and (not spec.integer or b - a > 3) do
      if f(c) <= f(d) then
        b, d = d, c
        c = round_x(b - PHI * (b - a))
        if spec.integer and c >= d then c = d - 1 end
        run({ c })
      else
        a, c = c, d
        d = round_x(a + PHI * (b - a))
        if spec.integer and d <= c then d = c + 1 end
        run({ d })
      end
    end
  else
    while not narrow(a, b, spec) and (not spec.integer or b - a > batch + 1) do
      local xs = interior(a, b, batch, spec.integer, false)
      run(xs)
      local best = 1
      for i = 2, #xs do if f(xs[i]) < f(xs[best]) then best = i end end
      a = xs[best - 1] or a
      b = xs[best + 1] or b
    end
  end
  run(pick(a, b))
  local best
  for _, p in ipairs(eval.points()) do
    if p.x >= a and p.x <= b and (best == nil or sign * p.value < sign * best.value) then best = p end
  end
  return { x = best.x, value = best.value, lo = a, hi = b, evaluations = eval.count(),
           rounds = eval.rounds(), points = eval.points() }
end

function search.minimize(spec) return extremum("minimize", spec, 1) end
function search.maximize(spec) return extremum("maximize", spec, -1) end

---------------------------------------------------------------------------
-- refine: starts from `initial` evenly spaced x values and, round after
-- round, adds the midpoints of the neighbours whose values differ the most,
-- until no two neighbours differ by more than tolerance or the budget is
-- spent. Each round adds up to `batch` midpoints (default 8).

function search.refine(spec)
  check(type(spec) == "table", "search.refine{...}: needs a table of settings")
  spec.batch = spec.batch or 8
  check_common("refine", spec)
  check(spec.x ~= nil, "search.refine: x, lo and hi name the refined parameter and its range")
  check(finite(spec.tolerance) and spec.tolerance > 0,
        "search.refine: tolerance (the largest change of value between neighbours) must be a "
        .. "positive number")
  local initial = spec.initial or 9
  check(math.type(initial) == "integer" and initial >= 2,
        "search.refine: initial must be an integer of at least 2")
  check(math.type(spec.budget) == "integer",
        "search.refine: budget (the most points to run) is required: refinement stops there")
  check(spec.budget >= initial,
        "search.refine: a budget of %d points is below the %d initial points; raise budget",
        spec.budget, initial)
  local min_width = spec.min_width or (spec.integer and 1 or 0)

  local eval = evaluator("refine", spec)
  local xs = {}
  for k = 0, initial - 1 do
    local f = k / (initial - 1)
    local x = spec.log and math.exp(math.log(spec.lo) + f * (math.log(spec.hi) - math.log(spec.lo)))
              or spec.lo + f * (spec.hi - spec.lo)
    if spec.integer then x = math.floor(x + 0.5) end
    if k == 0 then x = spec.lo elseif k == initial - 1 then x = spec.hi end
    xs[#xs + 1] = x
  end
  local err = eval.run(xs)
  if err then fail("%s", err) end
  local converged = false
  while eval.count() < spec.budget do
    local points, gaps = eval.points(), {}
    for i = 1, #points - 1 do
      local a, b = points[i], points[i + 1]
      local change = math.abs(b.value - a.value)
      if change > spec.tolerance and b.x - a.x > min_width then
        gaps[#gaps + 1] = { a = a.x, b = b.x, change = change }
      end
    end
    if #gaps == 0 then converged = true break end
    table.sort(gaps, function(p, q)
      if p.change ~= q.change then return p.change > q.change end
      return p.a < q.a
    end)
    local mids = {}
    for i = 1, math.min(#gaps, spec.batch, spec.budget - eval.count()) do
      local g = gaps[i]
      local m = spec.log and math.sqrt(g.a * g.b) or (g.a + g.b) / 2
      if spec.integer then m = math.max(g.a + 1, math.floor(m)) end
      if m > g.a and m < g.b then mids[#mids + 1] = m end
    end
    if #mids == 0 then converged = true break end
    err = eval.run(mids)
    if err then fail("%s", err) end
  end
  return { points = eval.points(), converged = converged, evaluations = eval.count(),
           rounds = eval.rounds() }
end

---------------------------------------------------------------------------
-- halving: successive halving. Every configuration runs with budget
-- parameter `resource` at min_budget; the best 1/eta (by value, goal
-- "min" or "max") go on with eta times the budget, until one is left or
-- max_budget is reached.

function search.halving(spec)
  check(type(spec) == "table", "search.halving{...}: needs a table of settings")
  check_common("halving", spec)
  check(type(spec.configs) == "table" and #spec.configs >= 2,
        "search.halving: configs must be a list of at least 2 parameter tables")
  check(type(spec.resource) == "string", "search.halving: resource must name the budget parameter")
  local eta = spec.eta or 3
  check(math.type(eta) == "integer" and eta >= 2, "search.halving: eta must be an integer of at least 2")
  check(math.type(spec.min_budget) == "integer" and spec.min_budget >= 1,
        "search.halving: min_budget must be a positive integer")
  local max_budget = spec.max_budget or spec.min_budget * eta ^ 20
  check(max_budget >= spec.min_budget, "search.halving: max_budget must be at least min_budget")
  local goal = spec.goal or "min"
  check(goal == "min" or goal == "max", "search.halving: goal must be \"min\" or \"max\"")
  for i, c in ipairs(spec.configs) do
    check(type(c) == "table", "search.halving: configs[%d] must be a parameter table", i)
    check(c[spec.resource] == nil, "search.halving: configs[%d] must not set the resource '%s'",
          i, spec.resource)
  end

  local alive, budget, rungs = {}, spec.min_budget, {}
  for i = 1, #spec.configs do alive[i] = i end
  local names = {}
  do
    local seen = {}
    for _, c in ipairs(spec.configs) do
      for k in pairs(c) do if not seen[k] then seen[k] = true; names[#names + 1] = k end end
    end
    table.sort(names)
  end
  while true do
    local columns = {}
    for _, name in ipairs(names) do
      local values = {}
      for j, i in ipairs(alive) do
        local v = spec.configs[i][name]
        if v == nil then v = runner.default end
        values[j] = v
      end
      columns[name] = values
    end
    local params = {}
    for k, v in pairs(spec.params or {}) do params[k] = v end
    params[spec.resource] = math.tointeger(budget) or budget
    params[1] = zip(columns)
    local title = string.format("halving: %d configurations at %s = %s", #alive, spec.resource,
                                fmt_value(params[spec.resource]))
    if spec.title then title = spec.title .. " (" .. title .. ")" end
    local rows = sweep(spec.plugin, params, { title = title, print = false })
    local scored = {}
    for _, i in ipairs(alive) do
      local where = {}
      for k, v in pairs(spec.configs[i]) do where[k] = v end
      for k, v in pairs(spec.where or {}) do where[k] = v end
      local matching = report.filter(rows, where)
      if #matching == 0 then
        fail("search.halving: no row for configuration %d at %s = %s", i, spec.resource,
             fmt_value(params[spec.resource]))
      end
      local v = type(spec.value) == "string" and matching[1][spec.value] or spec.value(matching)
      if type(v) ~= "number" then
        fail("search.halving: configuration %d has no number for its value", i)
      end
      scored[#scored + 1] = { index = i, value = v }
    end
    table.sort(scored, function(p, q)
      if p.value ~= q.value then
        if goal == "min" then return p.value < q.value end
        return p.value > q.value
      end
      return p.index < q.index
    end)
    rungs[#rungs + 1] = { budget = params[spec.resource], scored = scored }
    local keep = math.max(1, #scored // eta)
    if #scored == 1 or budget * eta > max_budget then
      return { best = spec.configs[scored[1].index], index = scored[1].index,
               value = scored[1].value, rungs = rungs }
    end
    alive = {}
    for j = 1, keep do alive[j] = scored[j].index end
    table.sort(alive)
    budget = budget * eta
  end
end

-- Every exported function, wrapped so that a search's error names the
-- script line that called it.
local function public(f)
  return function(...)
    local result = table.pack(pcall(f, ...))
    if result[1] then return table.unpack(result, 2, result.n) end
    local e = result[2]
    if type(e) == "table" and e.search_error then error(e.search_error, 2) end
    error(e, 0)
  end
end

local exported = {}
for name, f in pairs(search) do exported[name] = public(f) end
return exported
