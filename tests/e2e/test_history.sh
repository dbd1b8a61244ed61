# runner history (docs/analysis.md, "History across commits"): a real git
# repository of 30 commits, each changing the benchmark's script; a sweep
# of each commit stores ten timings (testkit's y, in s, twice the x the
# script lists: a level with 2 % Gaussian noise). A 5 % step planted at
# commit 17 is named, with exit 1; the sweeps are run newest commit first,
# so only git's order (not the start time) puts them right. Without a
# step, exit 0 over a few seeds (the rate over 100 seeds is
# test_changepoint's). Bad input: one line, exit 2.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

# script DIR I SEED STEP: DIR/bench.lua sweeps ten x drawn (awk, seeded by
# SEED and I) around 1, times 1.05 from commit STEP on (0: never).
script() {
    awk -v i="$2" -v seed="$3" -v step="$4" 'BEGIN {
        srand(seed * 1000 + i); level = (step > 0 && i >= step) ? 1.05 : 1
        printf "sweep(\"testkit\", { x = {"
        for (r = 0; r < 10; r++) {
            z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand())
            printf "%s%.6f", r ? ", " : "", level * (1 + 0.02 * z)
        }
        printf "} }, { print = false })\n" }' >"$1/bench.lua"
}

repo="$TMP/repo"
mkdir "$repo"
git -C "$repo" init -q
i=1
while [ "$i" -le 30 ]; do
    script "$repo" "$i" 1 17
    git -C "$repo" add bench.lua
    git -C "$repo" -c user.name=runner -c user.email=runner@example.com commit -q -m "commit $i"
    eval "commit_$i=\$(git -C \"\$repo\" rev-parse HEAD)"
    i=$((i + 1))
done
i=30
while [ "$i" -ge 1 ]; do
    eval "c=\$commit_$i"
    git -C "$repo" checkout -q "$c"
    run "$RUNNER" sweep "$repo/bench.lua" --db "$DB" --quiet --tag step
    expect_status 0
    i=$((i - 1))
done
expect_sql "SELECT count(DISTINCT git_commit), count(*) FROM sweep" "30|30"
short17=$(echo "$commit_17" | cut -c1-7)

# --tolerance 0.03: a 5 % step measured against the default 0.05 is a
# coin toss (its estimate falls either side), by design.
run "$RUNNER" history --y y --tag step --db "$DB" --tolerance 0.03
expect_status 1
expect_stdout_contains "30 sweeps ordered by git's commit order; 1 change"
expect_stdout_contains " at $short17 (p < 0.001): a regression past --tolerance"
grep -q "^y rose [0-9.]* % \[[0-9.]*, [0-9.]*\] at $short17 " "$TMP/out" ||
    fail "no 'y rose ... at $short17' line: $(cat "$TMP/out")"
# the table fits 80 columns; the first line is commit 1's
awk 'length > 80 { bad = 1 } END { exit bad }' "$TMP/out" || fail "a line over 80 columns"
run "$RUNNER" history --y y --tag step --db "$DB" --format csv --tolerance 0.03
expect_status 1
expect_equal "csv header" "$(head -n 1 "$TMP/out")" "commit,sweeps,n,median,low,high,change"
expect_equal "first commit" "$(sed -n 2p "$TMP/out" | cut -d, -f1-3)" \
    "$(echo "$commit_1" | cut -c1-7),1,10"
expect_equal "the change's row" "$(awk -F, '$7 != "" { print NR - 1 }' "$TMP/out" | tail -n +2)" 17
# each median's interval: order statistics 2 and 9 of the 10 values (R's
# qbinom(0.025, 10, 0.5) = 2 with pbinom 0.055 > 0.025: k - 1 = 1)
first_sweep=$(sql "SELECT id FROM sweep WHERE git_commit = '$commit_1'")
values=$(sql "SELECT y FROM testkit t JOIN point p ON p.id = t.point_id
    WHERE p.sweep_id = $first_sweep ORDER BY y")
expect_equal "commit 1's low and high" \
    "$(sed -n 2p "$TMP/out" | awk -F, '{ printf "%.6f,%.6f", $5, $6 }')" \
    "$(echo "$values" | sed -n 2p),$(echo "$values" | sed -n 9p)"

# --plot: the same history drawn (median, its interval, the change circled)
if command -v gnuplot >/dev/null 2>&1; then
    run "$RUNNER" history --y y --tag step --db "$DB" --tolerance 0.03 --plot "$TMP/history.svg"
    expect_status 1
    expect_stdout_contains " at $short17 (p < 0.001): a regression past --tolerance"
    for text in "history of y: $(echo "$commit_1" | cut -c1-7) .. $(echo "$commit_30" | cut -c1-7)" \
        "median" "low (95 %)" "high (95 %)" "change" "commit, oldest first (git" "s commit order)"; do
        grep -qF "$text" "$TMP/history.svg" || fail "history.svg lacks '$text'"
    done
fi
run "$RUNNER" history --y y --tag step --db "$DB" --plot "$TMP/history.pdf"
expect_status 2
expect_stderr "runner: history: --plot $TMP/history.pdf: expected a file name ending in .svg or .png; see 'runner --help'"

# From Python: runner_db.history is the command's answer (its JSON), the
# regression as the exit status says
PY=/usr/bin/python3
if [ -x "$PY" ]; then
    run env PYTHONPATH=python "$PY" -c '
import json, subprocess, sys
import runner_db
db, runner = sys.argv[1], sys.argv[2]
h = runner_db.history(db, "y", tag="step", tolerance=0.03, runner=runner)
assert h.regression, h
assert len(h.rows) == 30 and h.columns[:4] == ["commit", "sweeps", "n", "median"], h.columns
cli = json.loads(subprocess.run([runner, "history", "--db", db, "--y", "y", "--tag", "step",
                                 "--tolerance", "0.03", "--format", "json"],
                                capture_output=True, text=True).stdout)
assert [list(r.values()) for r in h.rows] == cli["rows"], (h.rows[:2], cli["rows"][:2])
print(h.changes()[0]["commit"], runner_db.history(db, "y", tag="step", runner=runner,
                                                  tolerance=0.2).regression)
try:
    runner_db.history(db, "nope", tag="step", runner=runner)
except runner_db.RunnerError as e:
    print(e)' "$DB" "$RUNNER"
    expect_status 0
    expect_equal "python history" "$(cat "$TMP/out")" "$short17 False
runner: history: sweep 1, section 1 has no column nope"
fi
# the default tolerance (0.05) or one above the step: reported, exit 0
# when the estimate is below it
run "$RUNNER" history --y y --tag step --db "$DB" --tolerance 0.2
expect_status 0
expect_stdout_contains " at $short17 (p < 0.001)"
# --by sweep: one line a sweep, the same order here (one sweep a commit)
run "$RUNNER" history --y y --tag step --db "$DB" --by sweep --format csv --tolerance 0.03
expect_status 1
expect_equal "--by sweep first" "$(sed -n 2p "$TMP/out" | cut -d, -f1)" "sweep 30"
expect_equal "--by sweep change" "$(awk -F, '$7 != "" { print $1 }' "$TMP/out" | tail -n +2)" "sweep 14"

# Without the repository: start time, newest commit first, so the step
# reads as a fall (not a regression for a time) at commit 16.
mv "$repo" "$TMP/gone"
run "$RUNNER" history --y y --tag step --db "$DB"
expect_status 0
expect_stdout_contains "30 sweeps ordered by start time (no git repository at hand); 1 change"
expect_stdout_contains " at $(echo "$commit_16" | cut -c1-7) (p < 0.001)"
mv "$TMP/gone" "$repo"

# No step: exit 0 over three seeds (plain directories: start time order).
for seed in 2 3 4; do
    dir="$TMP/flat$seed"
    mkdir "$dir"
    i=1
    while [ "$i" -le 30 ]; do
        script "$dir" "$i" "$seed" 0
        run "$RUNNER" sweep "$dir/bench.lua" --db "$DB" --quiet --tag "flat$seed"
        expect_status 0
        i=$((i + 1))
    done
    run "$RUNNER" history --y y --tag "flat$seed" --db "$DB"
    expect_status 0
    expect_stdout_contains "30 sweeps ordered by start time (no git repository at hand); 0 changes"
done

# A command's stored runs (command_run), not its summary row: 8 measured
# runs a sweep (a warm-up left out), each printing score=100 or 200.
printf 'echo score=$1\n' >"$TMP/prog.sh"
for level in 100 200; do
    cat >"$TMP/cmd$level.lua" <<LUA
command { name = "prog", argv = { "sh", "$TMP/prog.sh", "$level" },
  columns = { { name = "score", type = "real" } },
  output = "keyvalue", repeats = 8, warmup = 1, jobs = 1 }
sweep("prog", {}, { print = false })
LUA
    run "$RUNNER" sweep "$TMP/cmd$level.lua" --db "$DB" --quiet --tag cmd
    expect_status 0
done
run "$RUNNER" history --y score --tag cmd --db "$DB" --format csv
expect_status 1
expect_equal "runs read" "$(cut -d, -f1-4 "$TMP/out")" "sweep,sweeps,n,median
sweep $(sql "SELECT min(id) FROM sweep WHERE id IN (SELECT sweep_id FROM sweep_tag WHERE tag = 'cmd')"),1,8,100
sweep $(sql "SELECT max(id) FROM sweep WHERE id IN (SELECT sweep_id FROM sweep_tag WHERE tag = 'cmd')"),1,8,200"
# (wall_s: real timings, which a loaded machine may shift between the two
# sweeps: 0 or 1, only the count of runs checked)
run "$RUNNER" history --y wall_s --tag cmd --db "$DB" --format csv
[ "$status" = 0 ] || [ "$status" = 1 ] || fail "history --y wall_s: exit $status"
expect_equal "wall_s runs" "$(cut -d, -f3 "$TMP/out" | tail -n +2 | tr '\n' ' ')" "8 8 "

# Bad input: one line, exit 2, nothing stored.
before=$(sql "SELECT count(*) FROM sweep")
run "$RUNNER" history --tag step --db "$DB"
expect_status 2
expect_stderr "runner: history needs --y COLUMN; see 'runner --help'"
run "$RUNNER" history --y nope --tag step --db "$DB"
expect_status 2
expect_stderr "runner: history: sweep 1, section 1 has no column nope"
run "$RUNNER" history --y y --tag nosuch --db "$DB"
expect_status 2
expect_stderr "runner: history: 0 sweeps match; a history needs at least 2"
run "$RUNNER" history --y y --tag step --section 2 --db "$DB"
expect_status 2
expect_stderr "runner: history: sweep 1 has no section 2"
run "$RUNNER" history --y y --by commit --db "$DB"
expect_status 2
expect_stderr "runner: --by commit: expected git_commit or sweep; see 'runner --help'"
run "$RUNNER" history --y y --tolerance -1 --db "$DB"
expect_status 2
expect_stderr "runner: --tolerance -1: expected a positive relative tolerance (0.05); see 'runner --help'"
run "$RUNNER" history --y not_a_number --tag step --db "$DB"
expect_status 2
expect_stderr "runner: history: sweep 1, section 1 has no number in not_a_number"
expect_sql "SELECT count(*) FROM sweep" "$before"

finish
