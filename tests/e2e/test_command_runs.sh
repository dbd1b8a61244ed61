# Every run is a row (docs/command-experiments.md, "Every run"): a command
# with repeats and warmup keeps each run in command_run, its summary row
# computed from them; show --runs and export --runs print them; and the
# A/B question "is B faster than A?" has an answer: diff --stat on wall_s
# and the printed column, from the stored runs, equal to SciPy's Welch test
# on the exported runs. Timings are real: the verdicts rest on a second's
# sleep against none, and a tolerance (0.6: B's mean must be 2.5 times A's)
# that starting a shell on a loaded machine does not cross.
. tests/e2e/lib.sh

# prog SLEEP BASE: sleeps, then prints score = BASE + a random 0..9 (a
# fresh one each run, from /dev/urandom).
prog() {
    cat >"$TMP/$1.sh" <<SH
sleep $2
n=\$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
echo "score=\$(($3 + n % 10))"
SH
    write_script "$1.lua" <<LUA
command { name = "prog", argv = { "sh", "$TMP/$1.sh" },
  params = { size = { type = "integer", default = 1 } },
  columns = { { name = "score", type = "real" } },
  output = "keyvalue", repeats = 10, warmup = 1, jobs = 1 }
sweep("prog", { size = { 1, 2 } }, { print = false })
LUA
}
a=$(prog a 0 100)
b=$(prog b 1 1000)
for script in "$a" "$a" "$b"; do
    run "$RUNNER" sweep "$script" --db "$DB" --quiet
    expect_status 0
done

# Eleven runs a point, the first a warm-up; the point's row is their summary.
expect_sql "SELECT count(*), sum(warmup), min(run), max(run), count(DISTINCT point_id)
    FROM command_run WHERE sweep_id = 1" "22|2|1|11|2"
expect_sql "SELECT group_concat(run) FROM command_run WHERE warmup = 1" "1,1,1,1,1,1"
expect_sql "SELECT count(*) FROM command_run WHERE exit_status <> 0 OR max_rss_kib <= 0
    OR voluntary_switches < 0 OR involuntary_switches < 0 OR wall_s <= 0
    OR json_extract(run_values, '$.score') NOT BETWEEN 100 AND 1009" "0"
expect_sql "SELECT count(*) FROM prog AS p WHERE wall_runs = 10
    AND abs(wall_s - (SELECT avg(wall_s) FROM command_run AS r
        WHERE r.point_id = p.point_id AND warmup = 0)) < 1e-12
    AND wall_min_s = (SELECT min(wall_s) FROM command_run AS r
        WHERE r.point_id = p.point_id AND warmup = 0)
    AND wall_max_s = (SELECT max(wall_s) FROM command_run AS r
        WHERE r.point_id = p.point_id AND warmup = 0)
    AND max_rss_kib = (SELECT max(max_rss_kib) FROM command_run AS r
        WHERE r.point_id = p.point_id AND warmup = 0)" "6"

# show --runs: one row a run, the parameters first, the printed column last.
run "$RUNNER" show 1 --runs --db "$DB" --format csv
expect_status 0
expect_equal "show --runs header" "$(head -n 1 "$TMP/out")" \
    "size,point_id,run,warmup,wall_s,user_s,sys_s,max_rss_kib,voluntary_switches,involuntary_switches,exit_status,score"
expect_equal "show --runs rows" "$(($(wc -l <"$TMP/out") - 1))" 22
expect_equal "the warm-up" "$(sed -n 2p "$TMP/out" | cut -d, -f1-4)" "1,$(sql "SELECT min(point_id) FROM command_run WHERE sweep_id = 1"),1,true"

# The A/B question. B (ten times slower, a score ten times higher) against
# A: exit 1, both columns past the tolerance; A against A: exit 0.
for cols in "" "--columns wall_s" "--columns score" "--columns score,wall_s"; do
    # shellcheck disable=SC2086
    run "$RUNNER" diff 1 3 --stat --tolerance 0.6 $cols --db "$DB" --format csv
    expect_status 1
    # shellcheck disable=SC2086
    run "$RUNNER" diff 1 2 --stat --tolerance 0.6 $cols --db "$DB"
    expect_status 0
done
run "$RUNNER" diff 1 3 --stat --tolerance 0.6 --db "$DB"
expect_status 1
# the comparison it printed: the loop's first, kept (the same question on
# the same rows)
expect_stdout_contains "as stored in stat_diff 1, which compared the same rows"
# printed_id: the id of the comparison the last diff --stat printed.
printed_id() {
    sed -n 's/^\(stored as\|as stored in\) stat_diff \([0-9]*\).*/\2/p' "$TMP/out"
}
LAST=$(printed_id)
# (wall_s is significantly slower; on a machine loaded enough to slow A's
# shell to 0.4 s a run it is "slower, within tolerance": the score decides)
expect_sql "SELECT group_concat(point || ' ' || column_name || ' ' || n_a || ' ' || n_b || ' '
    || replace(verdict, ', within tolerance', ''), char(10)) FROM stat_diff_row
    WHERE stat_diff_id = $LAST" '{"size":1} score 10 10 higher
{"size":1} wall_s 10 10 slower
{"size":2} score 10 10 higher
{"size":2} wall_s 10 10 slower'

# Welch's test (--test welch) and Mann-Whitney's (the default) on the runs
# equal SciPy's on what export --runs wrote.
if /usr/bin/python3 -c "import scipy.stats" 2>/dev/null; then
    for case in "1 2 welch" "1 3 welch" "1 2 mwu" "1 3 mwu"; do
        set -- $case
        pair="$1 $2"
        export STAT_TEST=$3
        run "$RUNNER" diff "$1" "$2" --stat --test "$3" --db "$DB" --format json
        [ "$status" -le 1 ] || fail "diff --stat exit $status"
        cp "$TMP/out" "$TMP/stat.json"
        for s in "$1" "$2"; do
            run "$RUNNER" export "$s" --runs --db "$DB" --out "$TMP/export"
            expect_status 0
        done
        /usr/bin/python3 - "$TMP/stat.json" "$TMP/export/sweep-$1-section-1-prog-runs.csv" \
            "$TMP/export/sweep-$2-section-1-prog-runs.csv" <<'PY' || fail "diff --stat $pair --test $STAT_TEST differs from SciPy on export --runs"
import csv, json, os, sys
from scipy import stats
doc = json.load(open(sys.argv[1]))
names = [c["name"] for c in doc["columns"]]
def runs(path):
    out = {}
    rows = csv.DictReader(line for line in open(path) if not line.startswith("#"))
    for r in rows:
        if r["warmup"] == "false":
            for col in ("wall_s", "score"):
                out.setdefault((int(r["size"]), col), []).append(float(r[col]))
    return out
a, b = runs(sys.argv[2]), runs(sys.argv[3])
assert len(doc["rows"]) == 4, doc
for r in doc["rows"]:
    r = dict(zip(names, r))
    key = (json.loads(r["point"])["size"], r["column"])
    if os.environ["STAT_TEST"] == "welch":
        want = stats.ttest_ind(b[key], a[key], equal_var=False).pvalue
    else:
        want = stats.mannwhitneyu(b[key], a[key], alternative="two-sided").pvalue
    assert r["test"] == os.environ["STAT_TEST"], (key, r["test"])
    assert len(a[key]) == len(b[key]) == r["n_a"] == r["n_b"] == 10, (key, r)
    assert abs(r["p_value"] - want) <= 1e-9, (key, r["p_value"], want)
PY
    done
else
    skip_missing python3-scipy "Debian's python3 lacks scipy (python3-scipy) for the Welch cross-check"
fi

# The Python module's runs() are export --runs' rows.
run "$RUNNER" export 1 --runs --db "$DB" --out "$TMP/py" --format ndjson
expect_status 0
run env PYTHONPATH=python python3 - "$DB" "$RUNNER" "$TMP/py/sweep-1-section-1-prog-runs.ndjson" <<'PY'
import json, sys
import runner_db
runs = runner_db.open(sys.argv[1], runner=sys.argv[2]).sweep(1).section(1).runs()
lines = [json.loads(l) for l in open(sys.argv[3])][1:]
assert len(runs) == len(lines) == 22, (len(runs), len(lines))
for got, want in zip(runs, lines):
    assert got == want, (got, want)
print("ok")
PY
expect_status 0
expect_equal "runs() from Python" "$(cat "$TMP/out")" "ok"

# The outlier warning names its runs (a run 50 times slower than the rest).
cat >"$TMP/outlier.sh" <<'SH'
n=$(cat "$RUNNER_POINT_DIR/../count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$RUNNER_POINT_DIR/../count"
if [ "$n" = 4 ]; then sleep 2; else sleep 0.02; fi
SH
outlier=$(write_script outlier.lua <<LUA
command { name = "spiky", argv = { "sh", "$TMP/outlier.sh" }, repeats = 8, jobs = 1 }
sweep("spiky", {}, { print = false })
LUA
)
run "$RUNNER" sweep "$outlier" --db "$TMP/outlier.db" --quiet
expect_status 0
expect_stderr_contains "lie far from the median"
expect_stderr_contains "run 5 ("
expect_stderr_contains "(runner show --runs)"

# A command run once keeps no runs, and --stat says how to get them.
once=$(write_script once.lua <<LUA
command { name = "prog", argv = { "sh", "$TMP/a.sh" },
  params = { size = { type = "integer", default = 1 } },
  columns = { { name = "score", type = "real" } }, output = "keyvalue" }
sweep("prog", { size = { 1 } }, { print = false })
LUA
)
"$RUNNER" sweep "$once" --db "$TMP/once.db" --quiet 2>/dev/null
"$RUNNER" sweep "$once" --db "$TMP/once.db" --quiet 2>/dev/null
expect_equal "no runs when run once" "$(sqlite3 "$TMP/once.db" "SELECT count(*) FROM command_run")" "0"
run "$RUNNER" diff 1 2 --stat --db "$TMP/once.db"
expect_status 2
expect_stderr "runner: diff --stat: column 'score' has 1 value at prog {\"size\":1} in sweep 1; a comparison needs at least 2 on each side: give the command repeats = N (N >= 2: each run is stored and compared; docs/command-experiments.md)"

# runner rm takes a sweep's runs with it.
run "$RUNNER" rm 3 --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM command_run WHERE sweep_id = 3" "0"
expect_sql "SELECT count(*) FROM command_run" "44"

# --resume runs a failed point again and drops its runs; --reuse copies a
# reused point's runs; merge carries the shards' runs with their points.
cat >"$TMP/flaky.sh" <<SH
[ "\$RUNNER_PARAM_SIZE" = 2 ] && [ ! -e "$TMP/flaky.ok" ] && { echo score=1; exit 3; }
echo score=5
SH
flaky=$(write_script flaky.lua <<LUA
command { name = "prog", argv = { "sh", "$TMP/flaky.sh" },
  params = { size = { type = "integer" } },
  columns = { { name = "score", type = "real" } }, output = "keyvalue", repeats = 3, jobs = 1 }
sweep("prog", { size = { 1, 2, 3 } }, { print = false })
LUA
)
RS="$TMP/rs.db"
"$RUNNER" sweep "$flaky" --db "$RS" --quiet 2>/dev/null
expect_equal "the failed point's one run" "$(sqlite3 "$RS" "SELECT group_concat(run || ':' || exit_status)
    FROM command_run WHERE point_id = 2")" "1:3"
touch "$TMP/flaky.ok"
run "$RUNNER" resume last --db "$RS" --quiet
expect_status 0
expect_equal "runs after --resume" "$(sqlite3 "$RS" "SELECT group_concat(n) FROM (SELECT p.id,
    (SELECT count(*) FROM command_run AS r WHERE r.point_id = p.id AND exit_status = 0) AS n
    FROM point AS p ORDER BY p.id)"),$(sqlite3 "$RS" "SELECT count(*) FROM command_run")" "3,3,3,9"
run "$RUNNER" sweep "$flaky" --db "$RS" --quiet --reuse
expect_status 0
expect_equal "reused runs" "$(sqlite3 "$RS" "SELECT count(*) FROM command_run WHERE sweep_id = 2"),$(sqlite3 "$RS" "SELECT count(*) FROM (SELECT run, wall_s, run_values FROM command_run WHERE sweep_id = 1 EXCEPT SELECT run, wall_s, run_values FROM command_run WHERE sweep_id = 2)")" "9,0"
for i in 1 2; do
    "$RUNNER" sweep "$flaky" --db "$TMP/shard$i.db" --shard "$i/2" --quiet 2>/dev/null
done
run "$RUNNER" merge "$TMP/merged.db" "$TMP/shard1.db" "$TMP/shard2.db"
expect_status 0
expect_equal "merged runs" "$(sqlite3 "$TMP/merged.db" "SELECT count(*), count(DISTINCT point_id),
    (SELECT count(*) FROM command_run AS r WHERE NOT EXISTS (SELECT 1 FROM point AS p
        WHERE p.id = r.point_id)) FROM command_run")" "9|3|0"

# A file from before runs were stored (schema 15) keeps its summary rows:
# show --runs shows none, diff --stat compares wall_s from wall_sd_s and
# wall_runs, and a writing command adds the table.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); DROP TABLE command_run;
PRAGMA user_version = 15; PRAGMA journal_mode = DELETE;" >/dev/null
sha=$(sha256sum <"$DB")
run "$RUNNER" show 1 --runs --db "$DB" --format csv
expect_status 0
expect_equal "no runs in an older file" "$(cat "$TMP/out")" "size,point_id,run,warmup,wall_s,user_s,sys_s,max_rss_kib,voluntary_switches,involuntary_switches,exit_status,score"
expect_equal "read as it is" "$(sha256sum <"$DB")" "$sha"
run "$RUNNER" diff 1 2 --stat --columns wall_s --tolerance 0.6 --db "$DB"
expect_status 0
LAST=$(printed_id)
expect_sql "SELECT group_concat(DISTINCT column_name || ' ' || n_a || ' ' || n_b) FROM stat_diff_row
    WHERE stat_diff_id = $LAST" "wall_s 10 10"
expect_sql "PRAGMA user_version" "$(runner_schema)"
expect_sql "SELECT count(*) FROM sqlite_master WHERE name = 'command_run'" "1"
finish
