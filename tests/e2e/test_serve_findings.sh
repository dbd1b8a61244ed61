# The dashboard's sweep page leads with what a sweep found (issue 38): the
# lines its script printed, kept with the sweep (sweep_printed, schema 21),
# and its stored answers (/api/sweep/ID/findings: fits, fronts, Sobol
# indices, diff --stat comparisons); the compare page sorts
# parameters by their typed values and folds what does not vary; its stat
# mode shows the stored `runner diff --stat` with the CLI's verdicts and
# intervals. Bad arguments: 400 with one line; a missing sweep: 404.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the server"

# 1. What the script printed is kept, line by line, in order.
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --name first
expect_status 0
expect_stdout_contains "jitter 2 s: ceiling T1/J = 15.5x"
expect_sql "SELECT count(*), min(position), max(position) FROM sweep_printed WHERE sweep_id = 1" "4|1|4"
expect_sql "SELECT line FROM sweep_printed WHERE sweep_id = 1 AND position = 4" \
    "shrinking the worst delay 2 -> 0.5 s raises the ceiling 15.5x -> 60.5x"
# Every stored line is a line of stdout, in the order printed.
printf '%s\n' "$(sql "SELECT line FROM sweep_printed WHERE sweep_id = 1 ORDER BY position")" >"$TMP/kept"
grep -F -f "$TMP/kept" "$TMP/out" >"$TMP/seen"
cmp -s "$TMP/kept" "$TMP/seen" || fail "the kept lines are not stdout's, in order: $(cat "$TMP/kept")"
# A resumed sweep's script prints again: its lines replace the earlier ones.
run "$RUNNER" resume first --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM sweep_printed WHERE sweep_id = 1" "4"
# rm takes them with the sweep.
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --name gone --set jitters=1
expect_status 0
expect_sql "SELECT count(*) FROM sweep_printed WHERE sweep_id = 2" "1"
run "$RUNNER" rm gone --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM sweep_printed WHERE sweep_id = 2" "0"

# 2. Answers: a fit by jitter (three curves), a front.
run "$RUNNER" fit first --db "$DB" --x workers --y speedup --model usl --by jitter
expect_status 0
run "$RUNNER" pareto first --db "$DB" --min round_s --max speedup
expect_status 0
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --name second --set jitters=2,0.25
expect_status 0

# 3. diff --stat needs repeats: a command printing seeded noisy times.
noisy_sweeps
a=$(sql "SELECT min(id) FROM sweep WHERE script_path LIKE '%noisy.lua'")
b=$(sql "SELECT max(id) FROM sweep WHERE script_path LIKE '%noisy.lua'")
run "$RUNNER" diff "$a" "$b" --stat --test welch --db "$DB" --format json
expect_status 1
cp "$TMP/out" "$TMP/cli.json"

# 4. Sobol indices over a Saltelli design (the fixture plugin ishigami).
ishigami=$(write_script ishigami.lua <<'LUA'
local design = require "design"
local space = { x1 = design.uniform(-math.pi, math.pi), x2 = design.uniform(-math.pi, math.pi),
                x3 = design.uniform(-math.pi, math.pi) }
sweep "ishigami" { design.saltelli(200, space) }
LUA
)
run "$RUNNER" sweep "$ishigami" --db "$DB" --quiet --plugin-dir "$(cd "$RUNNER_FIXTURES/good" && pwd)"
expect_status 0
sobol=$(sql "SELECT max(id) FROM sweep")
RUNNER_PLUGIN_PATH=$RUNNER_FIXTURES/good
export RUNNER_PLUGIN_PATH
run "$RUNNER" sensitivity "$sobol" --y y --db "$DB"
expect_status 0
unset RUNNER_PLUGIN_PATH

start_serve

# The findings: the printed lines as stored, the fit's three curves
# with their quantities, the front, the comparison with the CLI's verdicts.
expect_code "api/sweep/1/findings" 200
expect_equal "the findings' printed lines" "$(python3 -c '
import json, sys
print("\n".join(json.load(open(sys.argv[1]))["printed"]))' "$TMP/body")" \
    "$(sql "SELECT line FROM sweep_printed WHERE sweep_id = 1 ORDER BY position")"
expect_equal "the findings' fits" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["fits"]), sorted({f["model"] for f in d["fits"]}), sorted(f["by_value"] for f in d["fits"]),
      sorted({p["name"] for f in d["fits"] for p in f["params"] if p["kind"] == "param"}),
      all(p["ci_low"] <= p["value"] <= p["ci_high"] for f in d["fits"] for p in f["params"] if p["kind"] == "param"))' "$TMP/body")" \
    "3 ['usl'] [0.5, 1.0, 2.0] ['kappa', 'sigma'] True"
expect_equal "the findings' fit quantities are the stored ones" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%d:%s:%.17g" % (f["id"], p["name"], p["value"]) for f in sorted(d["fits"], key=lambda f: f["id"]) for p in f["params"]))' "$TMP/body")" \
    "$(sql "SELECT group_concat(printf('%d:%s:%!.17g', fit_id, name, value), ' ') FROM (SELECT * FROM fit_param WHERE value IS NOT NULL ORDER BY fit_id, position)")"
expect_equal "the findings' front" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print([(f["objectives"], f["rows"], f["front_size"]) for f in d["fronts"]])' "$TMP/body")" \
    "[('min round_s, max speedup', 24, $(sql "SELECT front_size FROM pareto"))]"
expect_code "api/sweep/$b/findings" 200
verdicts() { # the verdicts, ratios and intervals of a JSON list of rows, one line each
    python3 -c '
import json, sys
def f(v):
    return "nan" if v is None or v == "NaN" or v != v else "%.12g" % v
for r in json.load(sys.stdin):
    print(r["point"], r["column_name"] if "column_name" in r else r["column"], r["test"],
          r["verdict"], f(r["ratio"]), f(r["ratio_low"]), f(r["ratio_high"]), f(r["p_value"]))'
}
cli_rows() {
    python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
names = [c["name"] for c in doc["columns"]]
print(json.dumps([dict(zip(names, r)) for r in doc["rows"]]))' "$TMP/cli.json"
}
cli_rows | verdicts >"$TMP/cli.txt"
[ -s "$TMP/cli.txt" ] || fail "runner diff --stat printed no rows"
grep -q "slower" "$TMP/cli.txt" || fail "the 50 % slower sweep is not slower: $(cat "$TMP/cli.txt")"
python3 -c '
import json, sys
print(json.dumps(json.load(open(sys.argv[1]))["comparisons"][0]["rows"]))' "$TMP/body" | verdicts | sort >"$TMP/findings.txt"
sort "$TMP/cli.txt" | grep -F -x -f "$TMP/findings.txt" | cmp -s - "$TMP/findings.txt" ||
    fail "the findings' comparison rows are not runner diff --stat's: $(cat "$TMP/findings.txt")"

expect_code "api/sweep/$sobol/findings" 200
expect_equal "the findings' Sobol indices are the stored ones" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%.17g:%.17g:%.17g" % (i["parameter"], i["first_order"], i["total"], i["total_high"]) for i in d["sensitivities"]))' "$TMP/body")" \
    "$(sql "SELECT group_concat(printf('%s:%!.17g:%!.17g:%!.17g', parameter, first_order, total, total_high), ' ') FROM (SELECT * FROM sensitivity_index ORDER BY position)")"

# 5. Compare's stat mode: every row, in the CLI's order, its verdicts.
expect_code "api/compare?a=$a&b=$b&stat=1&limit=500" 200
python3 -c '
import json, sys
print(json.dumps(json.load(open(sys.argv[1]))["rows"]))' "$TMP/body" | verdicts >"$TMP/page.txt"
cmp -s "$TMP/cli.txt" "$TMP/page.txt" ||
    fail "compare?stat=1 is not runner diff --stat: $(diff "$TMP/cli.txt" "$TMP/page.txt")"
# None stored the other way round: the page names the command.
expect_code "api/compare?a=$b&b=$a&stat=1" 200
expect_equal "no stored comparison" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); print(d["stat"], d["command"], d["rows"])' "$TMP/body")" \
    "None runner diff --stat $b $a []"

# 6. Compare sorts parameters by their values (16 after 2, 256 last),
# varying ones flagged, constants carried with their value.
expect_code "api/compare?a=1&b=3&section=1&limit=500" 200
expect_equal "workers in numeric order, per jitter" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [p["name"] for p in d["params"]]
w, j = names.index("workers"), names.index("jitter")
print([r["params"][w] for r in d["rows"] if r["params"][j] == 2.0])' "$TMP/body")" \
    "[1, 2, 4, 8, 16, 64, 256, 512]"
expect_equal "what varies" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print([(p["name"], p["varies"], p.get("value")) for p in d["params"]])' "$TMP/body")" \
    "[('base', False, 30.0), ('jitter', True, None), ('workers', True, None), ('trials', False, 0), ('model', False, 'walkthrough'), ('scaling', False, 'strong'), ('model_params', False, 44500000), ('bytes_per_param', False, 4), ('latency_s', False, 5e-06), ('bandwidth_bytes_per_s', False, 3125000000.0), ('reduce_bytes_per_s', False, 100000000000.0)]"

# 7. Bad input: one line, 400; no such sweep: 404.
expect_code "api/compare?a=$a&b=$b&stat=yes" 400
expect_equal "stat=yes" "$(cat "$TMP/body")" '{"error":"stat: expected 1 (or nothing: every row)"}'
expect_code "api/sweep/99/findings" 404
expect_equal "findings of no sweep" "$(cat "$TMP/body")" '{"error":"no such sweep"}'
expect_code "api/compare?a=$a&b=99&stat=1" 404
stop_serve
expect_status 0
finish
