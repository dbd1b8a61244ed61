# Adaptive sweeps (scripts/lib/search.lua): knee.lua and crossover.lua agree
# with their closed forms, checked here from the stored rows; a search that
# cannot decide within its budget is refused before any point runs; and an
# adaptive sweep killed with kill -9 at many moments and resumed stores the
# rows of an uninterrupted run, at --jobs 1 and --jobs 2.
. tests/e2e/lib.sh

# knee.lua: for each jitter, the stored rows bracket the closed-form knee:
# the smallest k with efficiency below 1/2 satisfies J k^2 - c k - c > 0,
# c = 2 (base + J/2) - base; its neighbour k - 1 is stored and does not.
run "$RUNNER" sweep scripts/knee.lua --db "$DB" --quiet
expect_status 0
[ "$(grep -c ': agree' "$TMP/out")" = 4 ] || fail "knee.lua: $(cat "$TMP/out")"
for j in 0.5 1.0 2.0 4.0; do
    expected=$(awk -v b=30 -v j="$j" 'BEGIN { c = 2 * (b + j / 2) - b;
        r = (c + sqrt(c * c + 4 * j * c)) / (2 * j); printf "%d", int(r) + 1 }')
    expect_sql "SELECT min(workers) FROM speedup WHERE jitter = $j AND efficiency < 0.5" "$expected"
    expect_sql "SELECT max(workers) FROM speedup WHERE jitter = $j AND efficiency >= 0.5" \
        "$((expected - 1))"
done

# crossover.lua: the stored sizes bracket the analytic crossover of ring and
# recursive doubling within one gradient entry (4 bytes), and the plugin's
# own ring_crossover_bytes column says the same.
DB="$TMP/crossover.db"
run "$RUNNER" sweep scripts/crossover.lua --db "$DB" --quiet
expect_status 0
[ "$(grep -c ': agree' "$TMP/out")" = 4 ] || fail "crossover.lua: $(cat "$TMP/out")"
for k in 4 8 64 512; do
    bracket=$(sql "WITH t AS (SELECT model_params,
                     max(CASE scheme WHEN 'recursive_doubling' THEN time_s END)
                   - max(CASE scheme WHEN 'ring' THEN time_s END) AS gap,
                     max(CASE scheme WHEN 'recursive_doubling' THEN ring_crossover_bytes END) AS x
                   FROM comm WHERE workers = $k GROUP BY point_id)
               SELECT (SELECT max(model_params) FROM t WHERE gap < 0) * 4 < x
                  AND x <= (SELECT min(model_params) FROM t WHERE gap >= 0) * 4,
                      (SELECT min(model_params) FROM t WHERE gap >= 0)
                    - (SELECT max(model_params) FROM t WHERE gap < 0)
               FROM t LIMIT 1")
    expect_equal "crossover at k = $k bracketed within one entry" "$bracket" "1|1"
done

# Golden-section search for the worker count with the shortest combined
# round equals the argmin of the exhaustive grid; refine leaves no
# neighbours further apart than its tolerance.
DB="$TMP/extremum.db"
script=$(write_script extremum.lua <<'LUA'
local search = require "search"
local fixed = { model = "combined", base = 30, jitter = 2 }
local best = search.minimize { plugin = "speedup", params = fixed, x = "workers",
                               lo = 1, hi = 5000, integer = true, value = "round_s" }
local curve = search.refine { plugin = "speedup", params = fixed, x = "workers",
                              lo = 1, hi = 512, integer = true, log = true,
                              value = "speedup", tolerance = 0.5, budget = 200 }
printf("%d %d %d %s\n", best.x, best.evaluations, curve.evaluations, tostring(curve.converged))
sweep("speedup", { model = "combined", base = 30, jitter = 2, workers = range(1, 5000) },
      { title = "grid", print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
set -- $(cat "$TMP/out")
expect_sql "SELECT workers FROM speedup s JOIN section c ON c.id = s.section_id
            WHERE c.title = 'grid' ORDER BY round_s, workers LIMIT 1" "$1"
[ "$2" -lt 40 ] || fail "golden-section search took $2 points"
expect_equal "refine converged" "$4" "true"
expect_sql "WITH r AS (SELECT DISTINCT workers, speedup FROM speedup s JOIN section c
                       ON c.id = s.section_id WHERE c.title LIKE 'refine%'),
                 n AS (SELECT speedup - lag(speedup) OVER (ORDER BY workers) AS step,
                              workers - lag(workers) OVER (ORDER BY workers) AS width FROM r)
            SELECT count(*) FROM n WHERE abs(step) > 0.5 AND width > 1" "0"

# A budget too small to decide, and other bad searches: exit 2 naming the
# script line, before any point runs.
DB="$TMP/bad.db"
refused() {  # NAME LUA EXPECTED-STDERR
    script=$(printf '%s\n' "$2" | write_script "$1.lua")
    run "$RUNNER" sweep "$script" --db "$DB" --quiet
    expect_status 2
    expect_stderr "$3"
    expect_equal "$1: nothing stored" "$(db_count "$DB" "SELECT count(*) FROM point")" 0
}
refused budget 'local s = require "search"
s.bisect { plugin = "speedup", x = "workers", lo = 1, hi = 1000000, integer = true,
           value = "efficiency", target = 0.5, budget = 10 }' \
"runner: $TMP/budget.lua:2: search.bisect: a budget of 10 points cannot decide: narrowing [1, 1000000] needs up to 22 points; raise budget, batch or the tolerance"
refused inverted 'local s = require "search"
s.bisect { plugin = "speedup", x = "workers", lo = 64, hi = 8, integer = true,
           value = "efficiency", target = 0.5 }' \
"runner: $TMP/inverted.lua:2: search.bisect: lo (64) must be below hi (8)"
refused notol 'local s = require "search"
s.minimize { plugin = "speedup", x = "jitter", lo = 0, hi = 4, value = "round_s" }' \
"runner: $TMP/notol.lua:2: search.minimize: a real x needs tolerance (absolute) or rtol (relative) to know when to stop"
refused fixed 'local s = require "search"
s.refine { plugin = "speedup", params = { workers = 8 }, x = "workers", lo = 1, hi = 64,
           value = "speedup", tolerance = 0.1, budget = 20 }' \
"runner: $TMP/fixed.lua:2: search.refine: 'workers' is searched, so params must not fix it"
# A search that finds no crossing says so after its two ends ran.
script=$(write_script nocross.lua <<'LUA'
local s = require "search"
s.bisect { plugin = "speedup", params = { jitter = 0 }, x = "workers", lo = 1, hi = 64,
           integer = true, value = "efficiency", target = 0.5 }
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 2
expect_stderr_contains "runner: $script:2: search.bisect: efficiency does not cross 0.5 between workers = 1 (1) and 64 (1); widen lo..hi"

# kill -9 at many moments, resuming after each: the rows equal those of an
# uninterrupted run. Monte Carlo points (straggler) so that a kill lands
# inside a search; every decision depends on stored Monte Carlo values.
script=$(write_script adaptive.lua <<'LUA'
local search = require "search"
local knee = search.bisect {
  plugin = "straggler", params = { law = "pareto", trials = 3000, base = 30 },
  x = "workers", lo = 1, hi = 2048, integer = true, log = true,
  value = "wait_share", target = 0.3, batch = 2,
}
local best = search.halving {
  plugin = "straggler", params = { law = "pareto", workers = knee.x, base = 30 },
  configs = { { backups = 0 }, { backups = 1 }, { backups = 2 }, { backups = 4 },
              { backups = 8 }, { backups = 16 } },
  resource = "trials", min_budget = 300, eta = 3, value = "round_s", goal = "min",
}
local curve = search.refine {
  plugin = "straggler", params = { law = "uniform", trials = 2000, base = 30 },
  x = "workers", lo = 1, hi = 1024, integer = true, log = true, initial = 5,
  value = "round_s", tolerance = 0.5, budget = 24,
}
printf("knee %d, best backups %d, %d refined points\n", knee.x, best.best.backups, #curve.points)
LUA
)
REF="$TMP/reference.db"
"$RUNNER" sweep "$script" --db "$REF" --quiet --jobs 1 >"$TMP/ref.out" 2>/dev/null ||
    fail "the uninterrupted adaptive run failed"

same_rows() {  # DB
    cols=$(sqlite3 "$REF" "SELECT group_concat(name, ', ') FROM (SELECT name FROM plugin_column WHERE plugin = 'straggler' ORDER BY role DESC, position)")
    diff=$(sqlite3 "$1" "ATTACH '$REF' AS ref;
        SELECT count(*) FROM (SELECT $cols FROM straggler EXCEPT SELECT $cols FROM ref.straggler);
        SELECT (SELECT count(*) FROM straggler) - (SELECT count(*) FROM ref.straggler);")
    [ "$diff" = "0
0" ] || fail "$1: rows differ from the uninterrupted run: $diff"
}

for jobs in 1 2; do
    DB="$TMP/killed-$jobs.db"
    resume=""
    for target in 1 3 6 10 15 21 28; do
        "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs $jobs $resume >/dev/null 2>&1 &
        pid=$!
        resume="--resume"
        wait_until "$target committed points or the end" \
            '[ "$(db_count "$DB" "SELECT count(*) FROM point WHERE status = '"'ok'"'")" -ge $target ] || ! alive $pid'
        kill -9 $pid 2>/dev/null
        wait_exit $pid 2>/dev/null
    done
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs $jobs --resume
    [ "$status" = 0 ] || expect_status 0
    expect_equal "jobs $jobs: the printed decisions" "$(cat "$TMP/out")" "$(cat "$TMP/ref.out")"
    expect_sql "SELECT count(*), status FROM sweep" "1|ok"
    same_rows "$DB"
done
finish
