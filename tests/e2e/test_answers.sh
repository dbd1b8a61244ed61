# Answers are kept, not piled up (issue 38; docs/cli.md, "runner answers
# SWEEP"): pareto, sensitivity and diff --stat asked the same question on
# the same rows print the stored answer and write nothing; rows a resume
# adds make it stale and the next ask replaces it; --again replaces it;
# another question is another answer. `runner answers` lists them, `runner
# rm --answer KIND:ID` removes one with its rows; bad input is one line,
# exit 2, nothing changed. (runner fit's own: test_fit.sh.)
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

# Ten seeded noisy times a point of size s (deterministic given the seed);
# the point of size 3 fails while $TMP/FLAG exists.
noisy_awk 10
noisy=$(write_script noisy.lua <<LUA
command { name = "noisy",
  argv = { "sh", "-c", "if [ -e '$TMP/FLAG' ] && [ {size} = 3 ]; then exit 3; fi; exec awk -v seed={seed} -v size={size} -f '$TMP/noisy.awk'" },
  params = { size = { type = "integer", default = 1 } },
  columns = { { name = "time_s", type = "real", unit = "s" } }, output = "keyvalue" }
sweep("noisy", { size = { 1, 2, 3 } }, { print = false })
LUA
)
# Sweep 1 stops at its failed point (sizes 1 and 2 stored), sweep 2 is
# whole.
touch "$TMP/FLAG"
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --jobs 1 --fail-fast
expect_status 1
rm "$TMP/FLAG"
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed 5
expect_status 0
expect_sql "SELECT sweep_id, count(*) FROM noisy GROUP BY sweep_id" "1|20
2|30"

# answers_of SWEEP: kind:id:section:stale of each answer, one a line, into
# $TMP/answers.txt.
answers_of() {
    "$RUNNER" answers "$1" --db "$DB" --format json >"$TMP/answers.json" ||
        fail "runner answers $1 failed"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["columns"]]
for r in d["rows"]:
    r = dict(zip(names, r))
    print("%s:%s:%s:%s" % (r["kind"], r["id"], r["section"], r["stale"]))
' "$TMP/answers.json" >"$TMP/answers.txt"
}
# every row of the answers' tables, to show nothing changed
all_answers() {
    sql "SELECT 'p', * FROM pareto; SELECT 'po', * FROM pareto_objective;
        SELECT 'pm', * FROM pareto_member; SELECT 's', * FROM stat_diff;
        SELECT 'sr', count(*), sum(n_a), sum(mean_b) FROM stat_diff_row;
        SELECT 'x', * FROM sensitivity; SELECT 'xi', * FROM sensitivity_index"
}

# A fit (its own keeping: test_fit.sh), to see it stale below.
run "$RUNNER" fit 1 --x size --y time_s --model linear --db "$DB"
expect_status 0
expect_stdout_contains "stored as fit 1: "

# pareto: asked twice, one answer; the second prints it as stored.
run "$RUNNER" pareto 1 --min time_s --max size --db "$DB"
expect_status 0
expect_stdout_contains "stored as pareto 1: pareto_member holds its rows"
before=$(all_answers)
run "$RUNNER" pareto 1 --min time_s --max size --db "$DB"
expect_status 0
expect_stdout_contains "as stored in pareto 1, which read the same rows (--again finds the front anew and replaces it)"
expect_equal "the answers after asking pareto again" "$(all_answers)" "$before"

# diff --stat: the same.
run "$RUNNER" diff 1 2 --stat --tolerance 0.5 --db "$DB"
expect_status 0
expect_stdout_contains "stored as stat_diff 1: stat_diff_row holds these rows"
before=$(all_answers)
run "$RUNNER" diff 1 2 --stat --tolerance 0.5 --db "$DB"
expect_status 0
expect_stdout_contains "as stored in stat_diff 1, which compared the same rows (--again compares anew and replaces it)"
expect_equal "the answers after asking diff --stat again" "$(all_answers)" "$before"
expect_sql "SELECT question FROM stat_diff" "test mwu, tolerance 0.5"
answers_of 1
expect_equal "answers of sweep 1" "$(cat "$TMP/answers.txt")" "fit:1:1:no
pareto:1:1:no
stat_diff:1:None:no"
# Sweep 2 lists the comparison it is a side of.
answers_of 2
expect_equal "answers of sweep 2" "$(cat "$TMP/answers.txt")" "stat_diff:1:None:no"

# A resume adds sweep 1's other points: its answers are stale, and asking
# again replaces each (its rows too), one answer per question still.
run "$RUNNER" resume 1 --db "$DB" --quiet
expect_status 0
expect_sql "SELECT count(*) FROM noisy WHERE sweep_id = 1" "30"
answers_of 1
expect_equal "answers of sweep 1 after the resume" "$(cat "$TMP/answers.txt")" "fit:1:1:yes
pareto:1:1:yes
stat_diff:1:None:yes"
run "$RUNNER" fit 1 --x size --y time_s --model linear --db "$DB"
expect_status 0
expect_stdout_contains "stored as fit 2: "
expect_sql "SELECT group_concat(id), sum(n) FROM fit" "2|30"
run "$RUNNER" pareto 1 --min time_s --max size --db "$DB"
expect_status 0
expect_stdout_contains "stored as pareto 2: "
run "$RUNNER" diff 1 2 --stat --tolerance 0.5 --db "$DB"
expect_status 0
expect_stdout_contains "stored as stat_diff 2: "
expect_sql "SELECT (SELECT group_concat(id) FROM pareto),
    (SELECT group_concat(DISTINCT pareto_id) FROM pareto_objective),
    (SELECT group_concat(DISTINCT pareto_id) FROM pareto_member),
    (SELECT group_concat(id) FROM stat_diff),
    (SELECT group_concat(DISTINCT stat_diff_id) FROM stat_diff_row)" "2|2|2|2|2"
expect_sql "SELECT rows FROM pareto" "30"
answers_of 1
expect_equal "answers of sweep 1, asked anew" "$(cat "$TMP/answers.txt")" "fit:2:1:no
pareto:2:1:no
stat_diff:2:None:no"

# --again replaces the stored answer on the same rows.
run "$RUNNER" pareto 1 --min time_s --max size --db "$DB" --again
expect_status 0
expect_stdout_contains "stored as pareto 3: "
run "$RUNNER" diff 1 2 --stat --tolerance 0.5 --db "$DB" --again
expect_status 0
expect_stdout_contains "stored as stat_diff 3: "
expect_sql "SELECT (SELECT group_concat(id) FROM pareto), (SELECT group_concat(id) FROM stat_diff),
    (SELECT count(*) FROM pareto_objective WHERE pareto_id <> 3),
    (SELECT count(*) FROM stat_diff_row WHERE stat_diff_id <> 3)" "3|3|0|0"

# Another question is another answer, kept beside.
run "$RUNNER" pareto 1 --min time_s --min size --db "$DB"
expect_status 0
expect_stdout_contains "stored as pareto 4: "
run "$RUNNER" diff 1 2 --stat --tolerance 0.5 --test welch --db "$DB"
expect_status 0
expect_stdout_contains "stored as stat_diff 4: "
expect_sql "SELECT group_concat(question, ' | ') FROM (SELECT question FROM pareto ORDER BY id)" \
    "min time_s, max size | min time_s, min size"
expect_sql "SELECT group_concat(question, ' | ') FROM (SELECT question FROM stat_diff ORDER BY id)" \
    "test mwu, tolerance 0.5 | test welch, tolerance 0.5"
# ... and so is the same question on a new sweep.
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed 9
expect_status 0
run "$RUNNER" pareto last --min time_s --max size --db "$DB"
expect_status 0
expect_stdout_contains "stored as pareto 5: "
expect_sql "SELECT sweep_id, count(*) FROM pareto GROUP BY sweep_id" "1|2
3|1"

# sensitivity (a Saltelli design of the fixtures' ishigami): kept, then
# --again, then another seed beside it.
ishigami=$(write_script ishigami.lua <<'LUA'
local design = require "design"
local space = { x1 = design.uniform(-math.pi, math.pi), x2 = design.uniform(-math.pi, math.pi),
                x3 = design.uniform(-math.pi, math.pi) }
local rows = sweep "ishigami" { design.saltelli(64, space) }
-- a script's sensitivity{} and pareto{} asked twice on the same rows: the
-- stored answer answers the second
local a = assert(sensitivity { rows = rows, y = "y", bootstrap = 20, seed = 3 })
local b = assert(sensitivity { rows = rows, y = "y", bootstrap = 20, seed = 3 })
local c = assert(pareto { rows = rows, min = { "y" }, max = { "x1" } })
local d = assert(pareto { rows = rows, min = { "y" }, max = { "x1" } })
printf("lua ids %d %d %d %d\n", a.id, b.id, c.id, d.id)
LUA
)
run "$RUNNER" sweep "$ishigami" --db "$DB" --quiet
expect_status 0
expect_stdout_contains "lua ids 1 1 6 6"
run "$RUNNER" sensitivity 4 --y y --bootstrap 20 --seed 3 --db "$DB"
expect_status 0
expect_stdout_contains "as stored in sensitivity 1, which read the same rows (--again estimates anew and replaces it)"
run "$RUNNER" sensitivity 4 --y y --bootstrap 20 --seed 3 --db "$DB" --again
expect_status 0
expect_stdout_contains "stored as sensitivity 2 "
run "$RUNNER" sensitivity 4 --y y --bootstrap 20 --seed 4 --db "$DB"
expect_status 0
expect_stdout_contains "stored as sensitivity 3 "
expect_sql "SELECT id, question FROM sensitivity ORDER BY id" "2|y y, bootstrap 20, seed 3
3|y y, bootstrap 20, seed 4"
expect_sql "SELECT DISTINCT sensitivity_id FROM sensitivity_index ORDER BY 1" "2
3"

# rm --answer: the head row and its rows, in one transaction.
run "$RUNNER" rm --answer pareto:4 --answer stat_diff:4 --answer pareto:4 --db "$DB"
expect_status 0
expect_equal "rm's lines" "$(cat "$TMP/out")" "removed pareto 4
removed stat_diff 4"
expect_sql "SELECT (SELECT count(*) FROM pareto WHERE id = 4),
    (SELECT count(*) FROM pareto_objective WHERE pareto_id = 4),
    (SELECT count(*) FROM pareto_member WHERE pareto_id = 4),
    (SELECT count(*) FROM stat_diff WHERE id = 4),
    (SELECT count(*) FROM stat_diff_row WHERE stat_diff_id = 4)" "0|0|0|0|0"
run "$RUNNER" rm --answer sensitivity:3 --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM sensitivity_index WHERE sensitivity_id = 3" "0"

# Bad input: one line, exit 2, nothing changed (all or none).
before=$(all_answers)
run "$RUNNER" rm --answer pareto:3 --answer fit:999 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no fit 999; 'runner answers SWEEP' lists them"
run "$RUNNER" rm --answer graph:1 --db "$DB"
expect_status 2
expect_stderr "runner: rm: --answer graph:1: expected KIND:ID, KIND one of fit, pareto, sensitivity, stat_diff and ID a positive integer (fit:7)"
for bad in pareto pareto: pareto:0 pareto:x pareto:-1 pareto:1x pareto:99999999999999999999; do
    run "$RUNNER" rm --answer "$bad" --db "$DB"
    expect_status 2
    expect_stderr "runner: rm: --answer $bad: expected KIND:ID, KIND one of fit, pareto, sensitivity, stat_diff and ID a positive integer (fit:7)"
done
run "$RUNNER" rm 1 --answer pareto:3 --db "$DB"
expect_status 2
expect_stderr "runner: rm takes SWEEPs or --answer, not both; see 'runner --help'"
run "$RUNNER" rm --answer pareto:3 --tag x --db "$DB"
expect_status 2
expect_stderr "runner: rm --answer takes no filters and no --force; see 'runner --help'"
run "$RUNNER" pareto 1 --min time_s --max size --again=yes --db "$DB"
expect_status 2
expect_stderr "runner: pareto: option '--again' takes no value; see 'runner --help'"
run "$RUNNER" diff 1 2 --again --db "$DB"
expect_status 2
expect_stderr "runner: diff: --again goes with --stat (a plain diff stores nothing)"
run "$RUNNER" answers 1 --format xml --db "$DB"
expect_status 2
expect_stderr "runner: --format xml: expected table, csv or json; see 'runner --help'"
run "$RUNNER" answers 99 --db "$DB"
expect_status 2
expect_stderr_contains "99"
expect_equal "the answers after the refusals" "$(all_answers)" "$before"
expect_sql "SELECT count(*) FROM sweep" "4"

# Python: runner_db.answers (a DataFrame with pandas), db.answers (dicts).
PYTHONPATH=python RUNNER_BIN="$RUNNER" python3 - "$DB" >"$TMP/py.txt" <<'PY' ||
import sys, runner_db
with runner_db.open(sys.argv[1]) as db:
    for a in db.answers(1):
        print(a["kind"], a["id"], a["section"], a["question"], a["stale"])
try:
    import pandas  # noqa: F401
except ImportError:
    sys.exit(0)
frame = runner_db.answers(sys.argv[1], 1)
print("frame", list(frame.columns), len(frame))
PY
    fail "runner_db.answers failed: $(cat "$TMP/py.txt")"
grep -q "^pareto 3 1 front: min time_s, max size no$" "$TMP/py.txt" ||
    fail "runner_db: pareto 3 not listed: $(cat "$TMP/py.txt")"
expect_equal "runner_db.answers of sweep 1: kinds and ids" \
    "$(cut -d' ' -f1,2 "$TMP/py.txt" | grep -v '^frame' | tr '\n' ' ')" "fit 2 pareto 3 stat_diff 3 "
if python3 -c 'import pandas' 2>/dev/null; then
    grep -q "^frame \['kind', 'id', 'section', 'question', 'asked', 'stale'\] 3$" "$TMP/py.txt" ||
        fail "runner_db.answers: no frame: $(cat "$TMP/py.txt")"
fi

# A sweep with none says so.
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed 11
expect_status 0
run "$RUNNER" answers last --db "$DB"
expect_status 0
expect_equal "answers of a sweep with none" "$(cat "$TMP/out")" \
    "sweep 5 has no stored answers (runner fit, pareto, sensitivity and diff --stat store theirs)"
finish
