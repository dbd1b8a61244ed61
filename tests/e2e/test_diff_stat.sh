# runner diff A B --stat (docs/analysis.md, "Comparing runs with noise"):
# repeats compared with their noise. A command prints ten seeded noisy
# times a point (deterministic given the point's seed, so the test does not
# depend on this machine's timing); two runs of the same program must not
# fail the gate, a program made 20 % slower must, over repeated trials.
. tests/e2e/lib.sh

# fields NAME...: the named fields of each row of the JSON document in
# $TMP/out, comma-separated, one line a row (sorted, duplicates once).
fields() {
    python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
names = [c["name"] for c in doc["columns"]]
for r in doc["rows"]:
    print(",".join(str(dict(zip(names, r))[k]) for k in sys.argv[2:]))
' "$TMP/out" "$@" | sort -u
}

# Ten times a point around $SLOW; each sweep seed gives other draws.
noisy_awk 10
noisy=$(write_script noisy.lua <<LUA
command { name = "noisy", argv = { "awk", "-v", "seed={seed}", "-f", "$TMP/noisy.awk" },
  params = { size = { type = "integer", default = 1 } },
  columns = { { name = "time_s", type = "real", unit = "s" }, { name = "label", type = "text" } },
  output = { time_s = "time_s=([0-9.]+)", label = "(time)" } }
LUA
)
# The pattern output gives one row a point; keyvalue gives the ten.
sed -i 's/output = {.*/output = "keyvalue" }/; s/, { name = "label", type = "text" }//' "$noisy"
echo 'sweep("noisy", { size = { 1, 2, 3 } }, { print = false })' >>"$noisy"

# Trials: sweeps 3t+1 and 3t+2 run the same program, 3t+3 one 20 % slower;
# each sweep has its own seed. The gate passes on the first pair and fails on
# the second in every trial.
trials=8
t=0
while [ $t -lt $trials ]; do
    base=$((3 * t))
    "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed $((100 + 3 * t)) 2>/dev/null
    "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed $((101 + 3 * t)) 2>/dev/null
    SLOW=1.2 "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed $((102 + 3 * t)) 2>/dev/null
    run "$RUNNER" diff $((base + 1)) $((base + 2)) --stat --tolerance 0.1 --db "$DB"
    expect_status 0
    run "$RUNNER" diff $((base + 1)) $((base + 3)) --stat --tolerance 0.1 --db "$DB"
    expect_status 1
    t=$((t + 1))
done
expect_sql "SELECT count(*) FROM sweep WHERE status = 'ok'" $((3 * trials))

# The verdict per point and the lines under the table; the first trial
# asked this (stat_diff 2), so the stored comparison answers it.
run "$RUNNER" diff 1 3 --stat --tolerance 0.1 --db "$DB"
expect_status 1
# the same verdict on every row is folded above the table (table_view.h)
expect_stdout_contains "verdict = slower"
expect_equal "the end" "$(tail -n 3 "$TMP/out")" "3 points compared
sweeps 1 and 3: a significant change past the tolerance
as stored in stat_diff 2, which compared the same rows (--again compares anew and replaces it)"
# A significant change within the tolerance says so and passes.
run "$RUNNER" diff 1 3 --stat --tolerance 0.5 --db "$DB" --format json
expect_status 0
expect_equal "within tolerance" "$(fields verdict)" "slower, within tolerance"
# Stored as printed: the head row and one stat_diff_row per printed row,
# every figure equal (SQL on the stored rows against the JSON).
last=$(sql "SELECT max(id) FROM stat_diff")
expect_sql "SELECT sweep_a, sweep_b, tolerance_s, confidence, compared, past_tolerance
    FROM stat_diff WHERE id = $last" "1|3|0.5|0.95|3|0"
sqlite3 -batch -json "$DB" "SELECT r.*, s1.ordinal AS ord_a, s2.ordinal AS ord_b FROM stat_diff_row r
    JOIN section s1 ON s1.id = r.section_a JOIN section s2 ON s2.id = r.section_b
    WHERE stat_diff_id = $last ORDER BY position" >"$TMP/stored.json"
python3 - "$TMP/out" "$TMP/stored.json" <<'PY' || fail "diff --stat: the stored rows differ from the printed ones"
import json, sys
doc = json.load(open(sys.argv[1]))
names = [c["name"] for c in doc["columns"]]
stored = json.load(open(sys.argv[2]))
assert len(stored) == len(doc["rows"]) == 3, (stored, doc)
for i, (r, s) in enumerate(zip(doc["rows"], stored)):
    r = dict(zip(names, r))
    assert s["position"] == i + 1 and s["unit"] == "s" and s["ord_a"] == s["ord_b"] == 1, s
    assert s["column_name"] == r["column"], (s, r)
    for k in ("plugin", "point", "n_a", "n_b", "verdict", "test"):
        assert s[k] == r[k], (k, s[k], r[k])
    assert s["test"] == "mwu" and s["ratio_low"] is None and s["ratio_high"] is None, s
    assert s["mild_a"] + s["severe_a"] == r["outliers_a"], (s, r)
    assert s["mild_b"] + s["severe_b"] == r["outliers_b"], (s, r)
    for k in ("mean_a", "sd_a", "mean_b", "sd_b", "ratio", "p_value"):
        assert abs(s[k] - r[k]) <= 1e-12 * max(1, abs(r[k])), (k, s[k], r[k])
PY
# B against A: the same figures seen from the other side.
run "$RUNNER" diff 3 1 --stat --tolerance 0.1 --db "$DB" --format json
expect_status 1
expect_equal "faster" "$(fields verdict)" "faster"

# Welch's test and the intervals, Mann-Whitney's p-value and the ratio of
# medians, the bootstrap's interval around it and Tukey's fences, against
# SciPy and numpy on the stored rows.
if /usr/bin/python3 -c "import scipy.stats" 2>/dev/null; then
    sqlite3 -batch -separator ' ' "$DB" "SELECT p.sweep_id, json_extract(p.params_json, '$.size'), n.time_s
        FROM noisy n JOIN point p ON p.id = n.point_id WHERE p.sweep_id IN (1, 2, 3)" >"$TMP/rows"
    for pair in "1 2" "1 3"; do
        for test in mwu bootstrap; do
            run "$RUNNER" diff $pair --stat --test $test --db "$DB" --format json
            [ "$status" -le 1 ] || fail "diff --stat --test $test exit $status"
            /usr/bin/python3 - "$TMP/out" "$TMP/rows" $pair $test <<'PY' || fail "diff --stat --test $test: the figures differ from SciPy's"
import json, sys
from scipy import stats
import numpy as np
doc = json.load(open(sys.argv[1]))
names = [c["name"] for c in doc["columns"]]
rows = {}
for line in open(sys.argv[2]):
    sweep, size, x = line.split()
    rows.setdefault((int(sweep), int(size)), []).append(float(x))
sa, sb, test = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
assert len(doc["rows"]) == 3, doc
def outliers(x):
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    return int(((x < q1 - 1.5 * iqr) | (x > q3 + 1.5 * iqr)).sum())
for r in doc["rows"]:
    r = dict(zip(names, r))
    size = json.loads(r["point"])["size"]
    a, b = np.array(rows[(sa, size)]), np.array(rows[(sb, size)])
    assert r["test"] == test, r
    assert abs(r["ratio"] - np.median(b) / np.median(a)) <= 1e-12, (r, np.median(b) / np.median(a))
    assert r["outliers_a"] == outliers(a) and r["outliers_b"] == outliers(b), r
    if test == "mwu":
        want = stats.mannwhitneyu(a, b).pvalue
        assert abs(r["p_value"] - want) <= 1e-9, (size, r["p_value"], want)
        assert r["ratio_low"] == r["ratio_high"] == "NaN", r  # no interval: the bootstrap gives one
        # Hodges-Lehmann: the median of the m n differences b - a, and the
        # differences of ranks C and m n + 1 - C, C from the normal
        # approximation (more than 8 a side: R's qwilcox is not used)
        d = np.sort(np.subtract.outer(b, a).ravel())
        m, n = len(a), len(b)
        c = max(1, int(np.floor(m * n / 2 - stats.norm.ppf(0.975) * np.sqrt(m * n * (m + n + 1) / 12))))
        assert min(m, n) > 8, (m, n)
        assert abs(r["shift"] - np.median(d)) <= 1e-12, (r["shift"], np.median(d))
        assert r["shift_low"] == d[c - 1] and r["shift_high"] == d[m * n - c], (r, d[c - 1], d[m * n - c])
    else:
        assert r["ratio_low"] <= r["ratio"] <= r["ratio_high"], r
        # a 20 % slower program: the interval leaves out 1 and holds 1.2
        if sb == 3:
            assert 1 < r["ratio_low"] < 1.2 < r["ratio_high"], r
PY
        done
    done
    run "$RUNNER" diff 1 2 --stat --test welch --db "$DB" --format json
    expect_status 0 # or 1: p < 0.05 may happen once in twenty; the figures matter here
    /usr/bin/python3 - "$TMP/out" "$TMP/rows" <<'PY' || fail "diff --stat's figures differ from SciPy's"
import json, sys
from scipy import stats
import numpy as np
doc = json.load(open(sys.argv[1]))
names = [c["name"] for c in doc["columns"]]
rows = {}
for line in open(sys.argv[2]):
    sweep, size, x = line.split()
    rows.setdefault((int(sweep), int(size)), []).append(float(x))
assert len(doc["rows"]) == 3, doc
for r in doc["rows"]:
    r = dict(zip(names, r))
    size = json.loads(r["point"])["size"]
    a, b = np.array(rows[(1, size)]), np.array(rows[(2, size)])
    t = stats.ttest_ind(b, a, equal_var=False)
    want = {"n_a": len(a), "n_b": len(b), "mean_a": a.mean(), "mean_b": b.mean(),
            "sd_a": a.std(ddof=1), "sd_b": b.std(ddof=1), "p_value": t.pvalue,
            "ratio": b.mean() / a.mean()}
    for k, v in want.items():
        assert abs(r[k] - v) <= 1e-9 * max(1, abs(v)), (size, k, r[k], v)
    # the ratio's interval holds the ratio and is symmetric in log
    assert r["ratio_low"] < r["ratio"] < r["ratio_high"], r
    assert abs(np.log(r["ratio_high"] / r["ratio"]) - np.log(r["ratio"] / r["ratio_low"])) < 1e-9
PY
    [ "$status" -le 1 ] || fail "diff --stat exit $status"
else
    skip_missing python3-scipy "Debian's python3 lacks scipy (python3-scipy) for the Welch cross-check"
fi

# Refusals, exit 2 with one line and nothing stored: fewer than two values
# on a side (wall_s of a command run once a point), a column that is not
# numeric, or a command's per-point column.
counts="SELECT (SELECT count(*) FROM stat_diff), (SELECT count(*) FROM stat_diff_row)"
before=$(sql "$counts")
run "$RUNNER" diff 1 2 --stat --columns wall_s --db "$DB"
expect_status 2
expect_stderr "runner: diff --stat: column 'wall_s' has 1 value at noisy {\"size\":1} in sweep 1; a comparison needs at least 2 on each side: give the command repeats = N (N >= 2: each run is stored and compared; docs/command-experiments.md)"
run "$RUNNER" diff 1 2 --stat --columns user_s --db "$DB"
expect_status 2
expect_stderr "runner: diff --stat: column 'user_s' of noisy is one value per point of a command (--stat compares wall_s and the declared columns)"
expect_equal "refusals store nothing" "$(sql "$counts")" "$before"
# A plain diff stores nothing either.
run "$RUNNER" diff 1 2 --db "$DB"
expect_equal "a plain diff stores nothing" "$(sql "$counts")" "$before"
# runner rm takes the comparisons of the sweep with it (either side).
run "$RUNNER" rm 3 --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM stat_diff WHERE sweep_a = 3 OR sweep_b = 3" "0"
expect_sql "SELECT count(*) FROM stat_diff_row WHERE stat_diff_id NOT IN (SELECT id FROM stat_diff)" "0"

# repeats = N: wall_s is the mean of N runs with wall_sd_s, and wall_runs is
# its n, so --stat compares it (real timings: only n and the status are
# certain here).
DB="$TMP/repeats.db"
timed=$(write_script timed.lua <<'LUA'
command { name = "timed", argv = { "true" }, params = { k = { type = "integer" } }, repeats = 4 }
sweep("timed", { k = { 1, 2 } }, { print = false })
LUA
)
"$RUNNER" sweep "$timed" --db "$DB" --quiet 2>/dev/null
"$RUNNER" sweep "$timed" --db "$DB" --quiet 2>/dev/null
run "$RUNNER" diff 1 2 --stat --db "$DB" --format json
[ "$status" -le 1 ] || fail "repeats: exit $status: $(cat "$TMP/err")"
expect_equal "wall_s with n = 4" "$(fields point column n_a n_b)" '{"k":1},wall_s,4,4
{"k":2},wall_s,4,4'
run "$RUNNER" diff 1 2 --stat --columns exit_status --db "$DB"
expect_status 2
expect_stderr "runner: diff --stat: column 'exit_status' of timed is one value per point of a command (--stat compares wall_s and the declared columns)"

# A plugin with several rows a point (testkit's rows): text columns are
# left out unless named.
DB="$TMP/testkit.db"
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
grid=$(write_script grid.lua <<'LUA'
sweep("testkit", { x = {1, 2}, rows = 3 }, { print = false })
LUA
)
"$RUNNER" sweep "$grid" --db "$DB" --quiet 2>/dev/null
"$RUNNER" sweep "$grid" --db "$DB" --quiet --seed 3 2>/dev/null
run "$RUNNER" diff 1 2 --stat --columns random --db "$DB" --format json
[ "$status" -le 1 ] || fail "testkit: exit $status: $(cat "$TMP/err")"
expect_equal "testkit's random, 3 a side" "$(fields column n_a n_b)" "random,3,3"
run "$RUNNER" diff 1 2 --stat --columns tag --db "$DB"
expect_status 2
expect_stderr "runner: diff --stat: column 'tag' of testkit is not numeric"
# Rows in the points' typed order (x = 2, 10, 100 numerically, not as the
# text 10, 100, 2), printed and stored alike; a point's columns together.
wide=$(write_script wide.lua <<'LUA'
sweep("testkit", { x = {2, 10, 100}, label = {"b", "a"}, rows = 3 }, { print = false })
LUA
)
"$RUNNER" sweep "$wide" --db "$DB" --quiet 2>/dev/null
"$RUNNER" sweep "$wide" --db "$DB" --quiet --seed 3 2>/dev/null
run "$RUNNER" diff 3 4 --stat --columns random,y --db "$DB" --format csv
[ "$status" -le 1 ] || fail "typed order: exit $status: $(cat "$TMP/err")"
expect_equal "rows in typed order" "$(python3 -c '
import csv, json, sys
for r in csv.DictReader(open(sys.argv[1])):
    p = json.loads(r["point"])
    print("%g" % p["x"], p["label"], r["column"])' "$TMP/out")" "2 a y
2 a random
2 b y
2 b random
10 a y
10 a random
10 b y
10 b random
100 a y
100 a random
100 b y
100 b random"
expect_sql "SELECT group_concat(printf('%g', json_extract(point, '$.x')) || json_extract(point, '$.label'), ' ')
    FROM (SELECT point FROM stat_diff_row WHERE stat_diff_id = (SELECT max(id) FROM stat_diff)
    AND column_name = 'y' ORDER BY position)" "2a 2b 10a 10b 100a 100b"
finish
