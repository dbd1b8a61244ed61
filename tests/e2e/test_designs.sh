# Sampled designs and conditional spaces (scripts/lib/design.lua): Sobol
# equals Joe and Kuo's published points (and SciPy's, dimension by
# dimension), Latin hypercubes hit every stratum once, seeds decide random
# designs, cases{} fills the parameters a branch does not name with their
# defaults, and a bad design is refused before any point runs.
. tests/e2e/lib.sh

# Sobol: the first ten points in three dimensions, as Joe and Kuo print them.
script=$(write_script sobol.lua <<'LUA'
local design = require "design"
for _, p in ipairs(design.unit("sobol", 10, 3)) do
  printf("%.17g %.17g %.17g\n", p[1], p[2], p[3])
end
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
expect_equal "Sobol's first points" "$(cat "$TMP/out")" "0 0 0
0.5 0.5 0.5
0.75 0.25 0.25
0.25 0.75 0.75
0.375 0.375 0.625
0.875 0.875 0.125
0.625 0.125 0.875
0.125 0.625 0.375
0.1875 0.3125 0.9375
0.6875 0.8125 0.4375"

# Every dimension runner carries, 1024 points, against SciPy's unscrambled
# Sobol (the same Joe-Kuo numbers, an independent implementation). Debian's
# python3 (python3-scipy), not whatever python3 comes first on PATH.
if /usr/bin/python3 -c "import scipy.stats" 2>/dev/null; then
    script=$(write_script sobol21.lua <<'LUA'
local design = require "design"
for _, p in ipairs(design.unit("sobol", 1024, design.sobol_max_dimensions)) do
  local cells = {}
  for j = 1, #p do cells[j] = string.format("%.17g", p[j]) end
  printf("%s\n", table.concat(cells, " "))
end
LUA
)
    run "$RUNNER" sweep "$script" --db "$DB" --quiet
    expect_status 0
    /usr/bin/python3 -c "
from scipy.stats import qmc
for p in qmc.Sobol(d=21, scramble=False).random(1024):
    print(' '.join('%.17g' % x for x in p))" >"$TMP/scipy.txt"
    cmp -s "$TMP/out" "$TMP/scipy.txt" || fail "Sobol in 21 dimensions differs from SciPy's"
else
    skip_missing python3-scipy "Debian's python3 lacks scipy (python3-scipy) for the Sobol cross-check"
fi

# Halton: radical inverses in bases 2 and 3, from index 1.
script=$(write_script halton.lua <<'LUA'
local design = require "design"
for _, p in ipairs(design.unit("halton", 4, 2)) do printf("%.17g %.17g\n", p[1], p[2]) end
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_equal "Halton's first points" "$(cat "$TMP/out")" "0.5 0.33333333333333331
0.25 0.66666666666666663
0.75 0.1111111111111111
0.125 0.44444444444444442"

# Latin hypercube: 50 points, each of the 50 strata of every dimension hit
# exactly once (log-uniform strata in log space), crossed with a grid axis.
script=$(write_script latin.lua <<'LUA'
local design = require "design"
sweep("speedup", {
  workers = { 1, 8 },
  design.latin(50, { base = design.uniform(10, 60), jitter = design.loguniform(0.1, 10) }),
}, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
sweep_id=$(sql "SELECT max(id) FROM sweep")
expect_sql "SELECT count(*) FROM speedup WHERE sweep_id = $sweep_id" "100"
expect_sql "SELECT count(DISTINCT CAST((base - 10) / 50.0 * 50 AS INTEGER)),
                   count(DISTINCT CAST(ln(jitter / 0.1) / ln(100.0) * 50 AS INTEGER)),
                   min(base) >= 10, max(base) < 60, min(jitter) >= 0.1, max(jitter) < 10
            FROM speedup WHERE sweep_id = $sweep_id AND workers = 8" "50|50|1|1|1|1"

# Random designs: the same seed gives the same points, another seed others.
script=$(write_script random.lua <<'LUA'
local design = require "design"
sweep("speedup", { design.random(20, { base = design.uniform(1, 100),
                                       workers = design.integer(1, 512),
                                       model = design.choice { "walkthrough", "combined" } }) },
      { print = false })
LUA
)
points() {
    sql "SELECT group_concat(base || ',' || workers || ',' || model, ';')
         FROM (SELECT * FROM speedup WHERE sweep_id = $1 ORDER BY point_id)"
}
"$RUNNER" sweep "$script" --db "$DB" --quiet --seed 7 2>/dev/null || fail "random design, seed 7"
"$RUNNER" sweep "$script" --db "$DB" --quiet --seed 7 2>/dev/null || fail "random design, seed 7 again"
"$RUNNER" sweep "$script" --db "$DB" --quiet --seed 8 2>/dev/null || fail "random design, seed 8"
last=$(sql "SELECT max(id) FROM sweep")
expect_equal "the same seed gives the same design" "$(points $((last - 2)))" "$(points $((last - 1)))"
[ "$(points $((last - 1)))" != "$(points "$last")" ] || fail "another seed gave the same design"
expect_sql "SELECT count(DISTINCT model), min(workers) >= 1, max(workers) <= 512,
                   count(*) = count(DISTINCT base)
            FROM speedup WHERE sweep_id = $last" "2|1|1|1"

# A conditional space: each law's own parameter only with that law; the
# others keep their defaults, so no branch multiplies the rest.
script=$(write_script cases.lua <<'LUA'
local design = require "design"
sweep("straggler", {
  trials = 10, workers = { 4, 16 },
  design.when("law", {
    uniform   = { jitter = { 1, 2 } },
    lognormal = { lognormal_sigma = { 0.5, 1.5 } },
    pareto    = { pareto_alpha = { 1.5, 2.5, 3.5 }, backups = { 0, 2 } },
  }),
}, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
sweep_id=$(sql "SELECT max(id) FROM sweep")
expect_sql "SELECT law, count(*), count(DISTINCT jitter), count(DISTINCT lognormal_sigma),
                   count(DISTINCT pareto_alpha), count(DISTINCT backups)
            FROM straggler WHERE sweep_id = $sweep_id GROUP BY law ORDER BY law" \
"lognormal|4|1|2|1|1
pareto|12|1|1|3|2
uniform|4|2|1|1|1"

# Bad designs and conditions: exit 2, one line naming the script line, and
# nothing stored.
refused() {  # NAME LUA EXPECTED-STDERR
    script=$(printf '%s\n' "$2" | write_script "$1.lua")
    before=$(sql "SELECT count(*) FROM point")
    run "$RUNNER" sweep "$script" --db "$DB" --quiet
    expect_status 2
    expect_stderr "$3"
    expect_sql "SELECT count(*) FROM point" "$before"
}
refused zero 'local d = require "design"
sweep("speedup", { d.latin(0, { base = d.uniform(1, 2) }) })' \
"runner: $TMP/zero.lua:2: latin(0, ...): a design needs between 1 and 1e8 points"
refused inverted 'local d = require "design"
sweep("speedup", { d.random(5, { base = d.uniform(60, 10) }) })' \
"runner: $TMP/inverted.lua:2: uniform(60, 10): lo must be below hi (inverted or empty range)"
refused logzero 'local d = require "design"
sweep("speedup", { d.sobol(8, { jitter = d.loguniform(0, 10) }) })' \
"runner: $TMP/logzero.lua:2: loguniform(0, 10): a log-uniform range must lie above 0; use uniform() or a positive lo"
refused notdist 'local d = require "design"
sweep("speedup", { d.halton(8, { jitter = {1, 2} }) })' \
"runner: $TMP/notdist.lua:2: halton: 'jitter' must be a distribution (uniform, loguniform, integer, choice), got a table"
refused unknown_param 'local d = require "design"
sweep("straggler", { d.when("law", { uniform = { jiter = { 1, 2 } } }) })' \
"runner: $TMP/unknown_param.lua:2: straggler: unknown parameter 'jiter' (did you mean 'jitter'?)"
refused unknown_value 'local d = require "design"
sweep("straggler", { d.when("law", { uniform = { jitter = 1 }, lognormall = { lognormal_sigma = 2 } }) })' \
"runner: $TMP/unknown_value.lua:2: straggler: law: 'lognormall' is not one of 'uniform', 'exponential', 'lognormal', 'pareto'"
finish
