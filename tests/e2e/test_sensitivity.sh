# runner sensitivity SWEEP --y COL and Lua sensitivity{} (docs/analysis.md,
# "Which parameter drives the output"): on the Ishigami function (fixture
# plugin `ishigami`, a = 7, b = 0.1) every analytic first-order and total
# index lies within its computed 95 % interval (of 18 intervals over three
# seeded sweeps, at most 2 may miss: 0.9 is the expected count);
# the indices are stored as rows; bad input is one line, exit 2, and
# nothing stored changes.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
script=$(write_script ishigami.lua <<'LUA'
local design = require "design"
local space = { x1 = design.uniform(-math.pi, math.pi), x2 = design.uniform(-math.pi, math.pi),
                x3 = design.uniform(-math.pi, math.pi) }
local rows = sweep "ishigami" { design.saltelli(1000, space) }
local s = assert(sensitivity { rows = rows, y = "y", seed = 7 })
for _, x in ipairs(s.indices) do
  printf("lua %s %.6f %.6f %.6f %.6f %.6f %.6f\n", x.parameter, x.first, x.first_low,
         x.first_high, x.total, x.total_low, x.total_high)
end
printf("lua id %d blocks %d same %s\n", s.id, s.blocks, tostring(s.indices.x2 == s.indices[2]))
LUA
)
# within: each parameter's analytic S and ST inside [low, high] of the JSON
# in $TMP/out; prints the ones outside.
within() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["columns"]]
truth = {"x1": (0.3139, 0.5576), "x2": (0.4424, 0.4424), "x3": (0.0, 0.2437)}
for r in d["rows"]:
    r = dict(zip(names, r))
    s, st = truth[r["parameter"]]
    if not r["first_low"] <= s <= r["first_high"]:
        print("S", r["parameter"], s, r["first_low"], r["first_high"])
    if not r["total_low"] <= st <= r["total_high"]:
        print("ST", r["parameter"], st, r["total_low"], r["total_high"])
' "$TMP/out"
}
sweep=0
: >"$TMP/misses"
for seed in 1 2 3; do
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --seed $seed
    expect_status 0
    sweep=$((sweep + 1))
    run "$RUNNER" sensitivity $sweep --y y --db "$DB" --format json
    expect_status 0
    within >>"$TMP/misses"
done
misses=$(wc -l <"$TMP/misses")
[ "$misses" -le 2 ] || fail "$misses of 18 intervals miss the analytic index: $(cat "$TMP/misses")"
# x1 and x2 drive y, x3 only through its interaction with x1: by total
run "$RUNNER" sensitivity 1 --y y --db "$DB"
expect_status 0
expect_equal "order by total" "$(sed -n '3,5p' "$TMP/out" | awk '{print $1}' | tr '\n' ' ')" "x1 x2 x3 "
expect_stdout_contains "sensitivity of y (sweep 1, section 1): 1000 blocks of 5 points, 1000 bootstrap resamples"
# the same seed, the same intervals; the rows stored with the numbers printed
run "$RUNNER" sensitivity 1 --y y --db "$DB" --seed 5 --bootstrap 200 --format csv
first=$(cat "$TMP/out")
run "$RUNNER" sensitivity 1 --y y --db "$DB" --seed 5 --bootstrap 200 --format csv
expect_equal "seeded resampling" "$(cat "$TMP/out")" "$first"
id=$(sql "SELECT max(id) FROM sensitivity")
expect_sql "SELECT sweep_id, y_column, base_samples, excluded, bootstrap, seed, confidence
            FROM sensitivity WHERE id = $id" "1|y|1000|0|200|5|0.95"
expect_sql "SELECT group_concat(parameter, ',') FROM (SELECT parameter FROM sensitivity_index
            WHERE sensitivity_id = $id ORDER BY position)" "x1,x2,x3"
# Lua: the same estimator, its rows stored too (seed 7)
run "$RUNNER" sweep "$script" --db "$DB" --seed 1
expect_status 0
expect_stdout_contains "same true"
lua_id=$(sed -n 's/^lua id \([0-9]*\) blocks 1000 same true$/\1/p' "$TMP/out")
expect_sql "SELECT sweep_id, seed FROM sensitivity WHERE id = $lua_id" "4|7"
lua=$(awk '$1 == "lua" && $2 == "x2" { print $3, $4, $5, $6, $7, $8 }' "$TMP/out")
run "$RUNNER" sensitivity 4 --y y --db "$DB" --seed 7 --format csv
expect_equal "Lua's indices = the CLI's" "$lua" "$(python3 -c '
import csv, sys
for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")):
    if r["parameter"] == "x2":
        print(" ".join("%.6f" % float(r[k]) for k in ("first_order", "first_low", "first_high", "total", "total_low", "total_high")))
' "$TMP/out")"

# Refusals: one line, exit 2, nothing stored.
before=$(sql "SELECT count(*) FROM sensitivity")
run "$RUNNER" sensitivity 1 --y z --db "$DB"
expect_status 2
expect_stderr "runner: sensitivity: sweep 1, section 1: --y z: the section has no such column; its columns: x1, x2, x3, y"
grid=$(write_script grid.lua <<'LUA'
sweep "faulty" { x = { 1, 2, 3, 4 } }
sweep "faulty" { x = 1 }
LUA
)
run "$RUNNER" sweep "$grid" --db "$DB" --quiet
expect_status 0
run "$RUNNER" sensitivity 5 --y note --db "$DB"
expect_status 2
expect_stderr "runner: sensitivity: sweep 5, section 1: --y note: not a numeric column (it holds text)"
run "$RUNNER" sensitivity 5 --y y --db "$DB"
expect_status 2
expect_stderr "runner: sensitivity: sweep 5, section 1: 4 rows over 1 varying parameters are not blocks of 3 (A, B and one row per parameter): was the section made by design.saltelli, alone and one row per point?"
run "$RUNNER" sensitivity 5 --section 2 --y y --db "$DB"
expect_status 2
expect_stderr "runner: sensitivity: sweep 5, section 2: no parameter varies over the section's 1 rows"
run "$RUNNER" sensitivity 5 --section 3 --y y --db "$DB"
expect_status 2
expect_stderr "runner: sensitivity: sweep 5 has 2 sections; --section 3 is out of range"
run "$RUNNER" sensitivity 1 --db "$DB"
expect_status 2
expect_stderr_contains "sensitivity needs --y COLUMN"
expect_sql "SELECT count(*) FROM sensitivity" "$before"
# Lua: a refusal is nil and the message
bad=$(write_script bad.lua <<'LUA'
local rows = sweep "faulty" { x = { 1, 2, 3, 4 } }
print(sensitivity { rows = rows, y = "y" })
LUA
)
run "$RUNNER" sweep "$bad" --db "$DB" --quiet
expect_status 0
expect_stdout_contains "nil	sensitivity: sweep 6, section 1: 4 rows over 1 varying parameters are not blocks of 3"
expect_sql "SELECT count(*) FROM sensitivity" "$before"
finish
