-- design: sampled designs and conditional spaces for sweep tables
-- (docs/lua-api.md, "Designs"). Every design returns a zip{...} group, so it
-- goes wherever a grid's axes go and crosses with the other axes of the
-- sweep table. Designs are seeded from the sweep seed (runner.seed) and a
-- stream name, so the same script and --seed give the same points on every
-- machine, and a resume replays them: the script text and the seed, both in
-- the sweep's provenance, are all a design depends on.
local design = {}

local MAX_POINTS = 100000000  -- the same bound as range()/linspace() axes

-- Errors carry no position where they are raised; each public function
-- re-raises them at the script line that called it (public, at the end).
local function fail(fmt, ...)
  error(string.format(fmt, ...), 0)
end

---------------------------------------------------------------------------
-- Random numbers: SplitMix64 on Lua's 64-bit integers (wrapping arithmetic),
-- not math.random, whose state the script shares and whose algorithm may
-- change between Lua releases.

local function mix64(z)
  z = z + 0x9E3779B97F4A7C15
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return z ~ (z >> 31)
end

local function hash_text(text)
  local h = 0
  for i = 1, #text do h = mix64(h ~ text:byte(i)) end
  return h
end

-- A generator of uniform floats in [0, 1) (53 random bits each) for one
-- stream of this sweep.
local function generator(stream)
  local state = mix64(math.tointeger(runner.seed) ~ hash_text(stream))
  return function()
    state = state + 0x9E3779B97F4A7C15
    local z = state
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    return (z >> 11) * 0x1p-53
  end, function() return mix64(state) end
end

-- Designs without a stream name take "<kind>#<n>", n counting the design
-- calls of the script, so two designs in one script differ.
local calls = 0
local function stream_of(kind, opts)
  calls = calls + 1
  if opts.stream ~= nil then
    if type(opts.stream) ~= "string" then fail("%s: stream must be a string", kind) end
    return opts.stream
  end
  return kind .. "#" .. calls
end

---------------------------------------------------------------------------
-- Distributions: map u in [0, 1) to a parameter value.

local DIST = {}  -- metatable marking distributions

local function finite(x) return type(x) == "number" and x == x and x > -math.huge and x < math.huge end

function design.uniform(lo, hi)
  if not finite(lo) or not finite(hi) then
    fail("uniform(lo, hi): bounds must be finite numbers, got %s, %s", tostring(lo), tostring(hi))
  end
  if not (lo < hi) then
    fail("uniform(%.17g, %.17g): lo must be below hi (inverted or empty range)", lo, hi)
  end
  return setmetatable({ kind = "uniform", lo = lo, hi = hi,
    map = function(u) return lo + u * (hi - lo) end,
    unit = function(x) return (x - lo) / (hi - lo) end }, DIST)
end

function design.loguniform(lo, hi)
  if not finite(lo) or not finite(hi) then
    fail("loguniform(lo, hi): bounds must be finite numbers, got %s, %s", tostring(lo), tostring(hi))
  end
  if lo <= 0 then
    fail("loguniform(%.17g, %.17g): a log-uniform range must lie above 0; "
         .. "use uniform() or a positive lo", lo, hi)
  end
  if not (lo < hi) then
    fail("loguniform(%.17g, %.17g): lo must be below hi (inverted or empty range)", lo, hi)
  end
  local a, b = math.log(lo), math.log(hi)
  return setmetatable({ kind = "loguniform", lo = lo, hi = hi,
    map = function(u) return math.exp(a + u * (b - a)) end,
    unit = function(x) return (math.log(x) - a) / (b - a) end }, DIST)
end

function design.integer(lo, hi)
  if math.type(lo) ~= "integer" or math.type(hi) ~= "integer" then
    fail("integer(lo, hi): bounds must be integers, got %s, %s", tostring(lo), tostring(hi))
  end
  if lo > hi then fail("integer(%d, %d): lo must not exceed hi (inverted range)", lo, hi) end
  local count = hi - lo + 1
  return setmetatable({ kind = "integer", lo = lo, hi = hi,
    map = function(u) return math.min(hi, lo + math.floor(u * count)) end,
    unit = function(x) return (x - lo + 0.5) / count end }, DIST)
end

-- Integers spread evenly in log scale (model sizes, message sizes): the
-- floor of a log-uniform draw on [lo, hi + 1).
function design.loginteger(lo, hi)
  if math.type(lo) ~= "integer" or math.type(hi) ~= "integer" then
    fail("loginteger(lo, hi): bounds must be integers, got %s, %s", tostring(lo), tostring(hi))
  end
  if lo < 1 then fail("loginteger(%d, %d): a log-uniform range must lie above 0", lo, hi) end
  if lo > hi then fail("loginteger(%d, %d): lo must not exceed hi (inverted range)", lo, hi) end
  local a, b = math.log(lo), math.log(hi + 1)
  return setmetatable({ kind = "loginteger", lo = lo, hi = hi,
    map = function(u) return math.min(hi, math.floor(math.exp(a + u * (b - a)))) end }, DIST)
end

function design.choice(values)
  if type(values) ~= "table" or #values == 0 then
    fail("choice{...}: needs a non-empty list of values")
  end
  local list = { table.unpack(values) }
  return setmetatable({ kind = "choice", values = list,
    map = function(u) return list[math.min(#list, math.floor(u * #list) + 1)] end }, DIST)
end

---------------------------------------------------------------------------
-- Unit-cube sequences: each returns n points of d coordinates in [0, 1).

-- Sobol direction numbers of Joe and Kuo (new-joe-kuo-6.21201), dimensions
-- 2 to 21: degree s, coefficients a, initial m_1..m_s. Dimension 1 is the
-- van der Corput sequence (all m = 1).
local JOE_KUO = {
  { 1, 0, { 1 } },                 { 2, 1, { 1, 3 } },
  { 3, 1, { 1, 3, 1 } },           { 3, 2, { 1, 1, 1 } },
  { 4, 1, { 1, 1, 3, 3 } },        { 4, 4, { 1, 3, 5, 13 } },
  { 5, 2, { 1, 1, 5, 5, 17 } },    { 5, 4, { 1, 1, 5, 5, 5 } },
  { 5, 7, { 1, 1, 7, 11, 19 } },   { 5, 11, { 1, 1, 5, 1, 1 } },
  { 5, 13, { 1, 1, 1, 3, 11 } },   { 5, 14, { 1, 3, 5, 5, 31 } },
  { 6, 1, { 1, 3, 3, 9, 7, 49 } }, { 6, 13, { 1, 1, 1, 15, 21, 21 } },
  { 6, 16, { 1, 3, 1, 13, 27, 49 } }, { 6, 19, { 1, 1, 1, 15, 7, 5 } },
  { 6, 22, { 1, 3, 1, 15, 13, 25 } }, { 6, 25, { 1, 1, 5, 5, 19, 61 } },
  { 7, 1, { 1, 3, 7, 11, 23, 15, 103 } }, { 7, 4, { 1, 3, 7, 13, 13, 15, 69 } },
}
local SOBOL_BITS = 32
design.sobol_max_dimensions = #JOE_KUO + 1

-- Direction numbers v[1..32] of one dimension, scaled to 32 bits.
local function sobol_directions(dim)
  local v = {}
  if dim == 1 then
    for k = 1, SOBOL_BITS do v[k] = 1 << (SOBOL_BITS - k) end
    return v
  end
  local s, a, m = table.unpack(JOE_KUO[dim - 1])
  for k = 1, SOBOL_BITS do
    if k <= s then
      v[k] = m[k] << (SOBOL_BITS - k)
    else
      local x = v[k - s] ~ (v[k - s] >> s)
      for j = 1, s - 1 do
        if (a >> (s - 1 - j)) & 1 == 1 then x = x ~ v[k - j] end
      end
      v[k] = x
    end
  end
  return v
end

-- Points 0..n-1 in Gray-code order, as Joe and Kuo generate them (their
-- table starts 0; 0.5; 0.75, 0.25; ...). scramble: a random digital shift
-- (each coordinate XORed with a seeded 32-bit word), which keeps the net
-- structure; not Owen scrambling.
local function sobol_unit(n, d, opts, stream)
  if d > design.sobol_max_dimensions then
    fail("sobol: at most %d dimensions (Joe and Kuo's numbers included here), got %d",
         design.sobol_max_dimensions, d)
  end
  if n >= 1 << SOBOL_BITS then fail("sobol: at most 2^32 - 1 points, got %d", n) end
  local dirs, x, shift = {}, {}, {}
  local _, word = generator(stream)
  for j = 1, d do
    dirs[j] = sobol_directions(j)
    x[j] = 0
    shift[j] = opts.scramble and (word() >> 32) or 0
  end
  local points = {}
  for i = 0, n - 1 do
    if i > 0 then
      local c, m = 1, i - 1
      while m & 1 == 1 do m = m >> 1; c = c + 1 end
      for j = 1, d do x[j] = x[j] ~ dirs[j][c] end
    end
    local p = {}
    for j = 1, d do p[j] = (x[j] ~ shift[j]) * 0x1p-32 end
    points[#points + 1] = p
  end
  return points
end

local PRIMES = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
                 73, 79, 83, 89, 97, 101, 103, 107, 109, 113 }

-- Halton: the radical inverse of i = 1..n in the first d primes (0 is
-- skipped, as usual, because it puts every coordinate at 0).
local function halton_unit(n, d)
  if d > #PRIMES then fail("halton: at most %d dimensions, got %d", #PRIMES, d) end
  local points = {}
  for i = 1, n do
    local p = {}
    for j = 1, d do
      local base, f, r, k = PRIMES[j], 1, 0, i
      while k > 0 do
        f = f / base
        r = r + f * (k % base)
        k = k // base
      end
      p[j] = r
    end
    points[i] = p
  end
  return points
end

local function random_unit(n, d, opts, stream)
  local u = generator(stream)
  local points = {}
  for i = 1, n do
    local p = {}
    for j = 1, d do p[j] = u() end
    points[i] = p
  end
  return points
end

-- Latin hypercube: each dimension's n strata [k/n, (k+1)/n) hit exactly
-- once, by an independent seeded permutation per dimension; the point sits
-- at a random place in its stratum, or its middle with centered = true.
local function latin_unit(n, d, opts, stream)
  local u = generator(stream)
  local points = {}
  for i = 1, n do points[i] = {} end
  for j = 1, d do
    local perm = {}
    for i = 1, n do perm[i] = i - 1 end
    for i = n, 2, -1 do
      local k = math.floor(u() * i) + 1
      perm[i], perm[k] = perm[k], perm[i]
    end
    for i = 1, n do
      local offset = opts.centered and 0.5 or u()
      points[i][j] = (perm[i] + offset) / n
    end
  end
  return points
end

local SEQUENCES = { random = random_unit, latin = latin_unit, sobol = sobol_unit,
                    halton = halton_unit }

---------------------------------------------------------------------------
-- Designs over named parameters.

local function check_count(kind, n)
  if math.type(n) ~= "integer" then
    fail("%s(n, ...): n must be an integer number of points, got %s", kind, tostring(n))
  end
  if n < 1 or n > MAX_POINTS then
    fail("%s(%d, ...): a design needs between 1 and 1e8 points", kind, n)
  end
end

-- The dimensions of a design in a fixed order (names sorted), because
-- pairs() order differs from run to run and the points must not.
local function dimensions_of(kind, space)
  if type(space) ~= "table" then
    fail("%s(n, space): space must be a table of name = distribution", kind)
  end
  local names = {}
  for name, dist in pairs(space) do
    if type(name) ~= "string" then fail("%s: space keys must be parameter names", kind) end
    if getmetatable(dist) ~= DIST then
      fail("%s: '%s' must be a distribution (uniform, loguniform, integer, choice), got a %s",
           kind, name, type(dist))
    end
    names[#names + 1] = name
  end
  if #names == 0 then fail("%s: the space has no parameters", kind) end
  table.sort(names)
  return names
end

-- Raw points of a unit-cube sequence, for checks and for scripts that map
-- coordinates themselves: design.unit("sobol", n, d [, opts]).
function design.unit(kind, n, d, opts)
  opts = opts or {}
  local sequence = SEQUENCES[kind]
  if not sequence then fail("unit: unknown sequence '%s' (random, latin, sobol, halton)", tostring(kind)) end
  check_count(kind, n)
  if math.type(d) ~= "integer" or d < 1 then fail("unit: d must be a positive integer") end
  return sequence(n, d, opts, stream_of(kind, opts))
end

local function make_design(kind)
  return function(n, space, opts)
    opts = opts or {}
    check_count(kind, n)
    local names = dimensions_of(kind, space)
    local points = SEQUENCES[kind](n, #names, opts, stream_of(kind, opts))
    local columns = {}
    for j, name in ipairs(names) do
      local map, values = space[name].map, {}
      for i = 1, n do values[i] = map(points[i][j]) end
      columns[name] = values
    end
    return zip(columns)
  end
end

-- A Saltelli design for Sobol indices (runner sensitivity, sensitivity{}):
-- n blocks of #space + 2 points each, A, B, then A with one parameter taken
-- from B per parameter in name order. runner makes the coordinates (GSL's
-- MT19937, seeded from the sweep seed and the stream); the section must
-- hold this zip alone, one row per point, for the indices to read it.
function design.saltelli(n, space, opts)
  opts = opts or {}
  check_count("saltelli", n)
  local names = dimensions_of("saltelli", space)
  local seed = mix64(math.tointeger(runner.seed) ~ hash_text(stream_of("saltelli", opts)))
  if seed < 0 then seed = seed & math.maxinteger end
  local coordinates = runner.saltelli_unit(n, #names, seed)
  local columns = {}
  for j, name in ipairs(names) do
    local map, values, unit = space[name].map, {}, coordinates[j]
    for i = 1, #unit do values[i] = map(unit[i]) end
    columns[name] = values
  end
  return zip(columns)
end

design.random = make_design("random")
design.latin = make_design("latin")
design.sobol = make_design("sobol")
design.halton = make_design("halton")

---------------------------------------------------------------------------
-- Conditional spaces: a union of grids, one per case, as one zip group.
-- A parameter a case does not name takes its declared default there
-- (runner.default), so `backups` can exist only with one delay law.

local function expand_case(index, case, names, out)
  local axes = {}
  for _, name in ipairs(names) do
    local v = case[name]
    if type(v) == "table" and getmetatable(v) == nil then
      if #v == 0 then fail("cases: case %d: '%s' needs a non-empty list", index, name) end
      axes[#axes + 1] = { name = name, values = v }
    elseif v ~= nil then
      axes[#axes + 1] = { name = name, values = { v } }
    end
  end
  local function cross(depth, point)
    if depth > #axes then
      local copy = {}
      for k, v in pairs(point) do copy[k] = v end
      out[#out + 1] = copy
      return
    end
    for _, v in ipairs(axes[depth].values) do
      point[axes[depth].name] = v
      cross(depth + 1, point)
    end
    point[axes[depth].name] = nil
  end
  cross(1, {})
end

function design.cases(list)
  if type(list) ~= "table" or #list == 0 then fail("cases{...}: needs a non-empty list of cases") end
  local seen, names = {}, {}
  for i, case in ipairs(list) do
    if type(case) ~= "table" then fail("cases: case %d must be a table of parameters", i) end
    for name in pairs(case) do
      if type(name) ~= "string" then
        fail("cases: case %d: keys must be parameter names (no zip groups inside a case)", i)
      end
      if not seen[name] then seen[name] = true; names[#names + 1] = name end
    end
  end
  table.sort(names)
  local points = {}
  for i, case in ipairs(list) do
    local case_names = {}
    for _, name in ipairs(names) do if case[name] ~= nil then case_names[#case_names + 1] = name end end
    expand_case(i, case, case_names, points)
  end
  local columns = {}
  for _, name in ipairs(names) do
    local values = {}
    for i, p in ipairs(points) do
      local v = p[name]
      if v == nil then v = runner.default end
      values[i] = v
    end
    columns[name] = values
  end
  return zip(columns)
end

-- when(param, { value = {sub-grid}, ... }): cases keyed by one parameter's
-- value, in sorted order of the values.
function design.when(param, branches)
  if type(param) ~= "string" then fail("when(param, branches): param must be a parameter name") end
  if type(branches) ~= "table" then fail("when('%s', branches): branches must be a table", param) end
  local keys = {}
  for value in pairs(branches) do keys[#keys + 1] = value end
  if #keys == 0 then fail("when('%s', {}): no branches", param) end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local list = {}
  for _, value in ipairs(keys) do
    local case = { [param] = value }
    for k, v in pairs(branches[value]) do
      if k == param then fail("when('%s'): a branch must not set '%s' again", param, param) end
      case[k] = v
    end
    list[#list + 1] = case
  end
  return design.cases(list)
end

-- Every exported function, wrapped so that an error names the script line
-- that called it (design.lua's own calls use the unwrapped ones above).
local function public(f)
  return function(...)
    local result = table.pack(pcall(f, ...))
    if not result[1] then error(result[2], 2) end
    return table.unpack(result, 2, result.n)
  end
end

local exported = {}
for name, value in pairs(design) do
  exported[name] = type(value) == "function" and public(value) or value
end
return exported
