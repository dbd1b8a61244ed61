# Series during a point and system metrics per point
# (docs/command-experiments.md): a command's RUNNER_SERIES progress lines,
# a plugin's host->series, the process tree sampled by --sample-interval,
# GPUs through a stand-in NVML, and the bad inputs.
. tests/e2e/lib.sh
# /usr/bin/python3 itself: a python3 on PATH may be a shim (pyenv) whose
# own processes would be part of the sampled tree.
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || skip_missing "$PYTHON" "the sampled programs are small Python scripts"

# A training loop: a loss per step, one malformed progress line, a result.
cat >"$TMP/train.sh" <<'SH'
#!/bin/sh
i=0
while [ $i -lt 20 ]; do
    echo "RUNNER_SERIES {\"step\": $i, \"loss\": 1.$((19 - i)), \"lr\": $RUNNER_PARAM_LR}"
    i=$((i + 1))
done
echo 'RUNNER_SERIES {"loss": 3}'
echo "final=7"
SH
chmod +x "$TMP/train.sh"
script=$(write_script train.lua <<LUA
command "train" {
  argv = { "$TMP/train.sh" },
  params = { lr = { type = "real", default = 0.1 } },
  columns = { { name = "final", type = "integer" } },
  output = "keyvalue",
}
sweep("train", { lr = { 0.1, 0.2 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1
expect_status 0
expect_stderr 'runner: train: warning: point 0: 1 progress values or lines ignored (first: stdout line 21: RUNNER_SERIES needs a JSON object with a numeric "step")
runner: train: warning: point 1: 1 progress values or lines ignored (first: stdout line 21: RUNNER_SERIES needs a JSON object with a numeric "step")
runner: sweep 1 stored in '"$DB"': 2 points ok, 0 failed'
# The result rows are as without progress lines; the lines are not stdout.
expect_sql "SELECT lr, final FROM train ORDER BY lr" "0.1|7
0.2|7"
expect_sql "SELECT ordinal, count(*), min(step), max(step), sum(value) FROM series
            WHERE name = 'loss' GROUP BY ordinal" "0|20|0.0|19.0|25.95
1|20|0.0|19.0|25.95"
expect_sql "SELECT DISTINCT ordinal, value FROM series WHERE name = 'lr' ORDER BY 1" "0|0.1
1|0.2"
expect_sql "SELECT count(*) FROM series WHERE t_s < 0 OR t_s > 600" "0"
run "$RUNNER" artifacts last --db "$DB" --format csv
expect_status 0
stdout_id=$(sql "SELECT sha256 FROM artifact WHERE name = 'stdout' LIMIT 1")
[ -n "$stdout_id" ] && sqlite3 "$DB" "SELECT content FROM artifact_blob WHERE sha256 = '$stdout_id'" \
    | grep -q RUNNER_SERIES && fail "progress lines were kept in the stdout artifact"

# Python: the series as a long frame, a wrong name refused in one line.
run env PYTHONPATH="$(pwd)/python" "$PYTHON" -c '
import runner_db, sys
db = runner_db.open(sys.argv[1], runner=sys.argv[2])
sweep = db.sweep(1)
frame = sweep.series_frame("loss")
print(list(frame.columns), len(frame), frame["point"].nunique(), round(frame["value"].sum(), 6))
print(sweep.series_names())
try:
    sweep.series("nope")
except runner_db.RunnerError as e:
    print(e)
' "$DB" "$RUNNER"
expect_status 0
expect_equal "Python series" "$(cat "$TMP/out")" "['section', 'point', 'name', 'step', 'value', 't_s'] 40 2 51.9
['loss', 'lr']
runner_db: sweep 1 has no series 'nope' (it has: loss, lr)"

# runner plot --series: the series by step, one line per point.
run "$RUNNER" plot last --db "$DB" --series loss -o "$TMP/loss.svg"
expect_status 0
grep -q '<svg' "$TMP/loss.svg" || fail "plot --series wrote no SVG"
run "$RUNNER" plot last --db "$DB" --series nope -o "$TMP/nope.svg"
expect_status 2
expect_stderr "runner: sweep 1 has no series 'nope' (it has: loss, lr)"

# runner rm takes a sweep's series with it (foreign keys are on).
run "$RUNNER" rm 1 --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM series" "0"

# A CPU-bound point uses cores, a sleeping one about none. The spinning
# one spins for CPU time, not wall time, so a loaded machine only
# stretches it (and lowers its share of a core: "about one core" is the
# bench's, on a quiet machine; docs/performance.md).
cat >"$TMP/spin.py" <<'PY'
import sys, time
if sys.argv[1] == "spin":
    start = time.process_time()
    while time.process_time() - start < 0.6:
        pass
else:
    time.sleep(2.5)
print("done=1")
PY
script=$(write_script spin.lua <<LUA
command "spin" {
  argv = { "$PYTHON", "$TMP/spin.py", "{how}" },
  params = { how = { type = "text", choices = { "spin", "sleep" }, default = "spin" } },
  columns = { { name = "done", type = "integer" } },
  output = "keyvalue",
  jobs = 1,
}
sweep("spin", { how = { "spin", "sleep" } }, { print = false })
LUA
)
rm -f "$DB"
run "$RUNNER" sweep "$script" --db "$DB" --quiet --sample-interval 0.2
expect_status 0
# Totals are the kernel's (wait4): the same as the point's own columns.
expect_sql "SELECT count(*) FROM point_system p JOIN spin s ON s.point_id = (SELECT id FROM point
            WHERE section_id = p.section_id AND ordinal = p.ordinal)
            WHERE abs(p.cpu_s - (s.user_s + s.sys_s)) < 1e-6
              AND abs(p.wall_s - s.wall_s) < 1e-6
              AND abs(p.cpu_cores_mean - p.cpu_s / p.wall_s) < 1e-9" "2"
expect_sql "SELECT cpu_s >= 0.6, cpu_cores_mean <= 1.05, cpu_cores_peak <= 1.3, samples >= 2
            FROM point_system WHERE ordinal = 0" "1|1|1|1"
expect_sql "SELECT a.cpu_cores_mean > 2 * b.cpu_cores_mean FROM point_system a, point_system b
            WHERE a.ordinal = 0 AND b.ordinal = 1" "1"
# Asleep: most intervals (all but the start-up's) near zero.
expect_sql "SELECT cpu_cores_mean < 0.1, samples >= 5 FROM point_system WHERE ordinal = 1" "1|1"
expect_sql "SELECT sum(value < 0.02) >= count(*) / 2 FROM series
            WHERE name = 'sys.cpu_cores' AND ordinal = 1" "1"
expect_sql "SELECT min(value), max(value) FROM series WHERE name = 'sys.threads'" "1.0|1.0"
expect_sql "SELECT count(*) FROM series WHERE name LIKE 'gpu.%'" "0"

# 200 MB held by a child of a shell: the tree's peak RSS is the program's
# own high-water mark (its VmHWM, which it prints) within 5 %, sampled too.
cat >"$TMP/alloc.py" <<'PY'
import time
block = b"x" * (200 << 20)
time.sleep(1.0)
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print("hwm_kib=" + hwm)
PY
script=$(write_script alloc.lua <<LUA
command "alloc" {
  argv = { "$PYTHON $TMP/alloc.py; true" },
  shell = true,
  columns = { { name = "hwm_kib", type = "integer" } },
  output = "keyvalue",
}
sweep("alloc", {}, { print = false })
LUA
)
rm -f "$DB"
run "$RUNNER" sweep "$script" --db "$DB" --quiet --sample-interval 0.1
expect_status 0
expect_sql "SELECT a.hwm_kib > 200 * 1024, abs(p.rss_peak_bytes - a.hwm_kib * 1024.0)
            < 0.05 * a.hwm_kib * 1024 FROM alloc a, point_system p" "1|1"
expect_sql "SELECT abs(max(value) - a.hwm_kib * 1024.0) < 0.05 * a.hwm_kib * 1024
            FROM series, alloc a WHERE name = 'sys.rss_bytes'" "1"

# GPUs: a stand-in NVML (RUNNER_TEST_NVML_LIBRARY, tests only) with two
# devices; without a library nothing is recorded and nothing fails.
rm -f "$DB"
RUNNER_TEST_NVML_LIBRARY="$RUNNER_FIXTURES/nvml/fake_nvml.so" \
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --sample-interval 0.2
expect_status 0
expect_sql "SELECT name, min(value), max(value), count(*) > 0 FROM series
            WHERE name LIKE 'gpu.%' GROUP BY name ORDER BY name" "gpu.0.memory_bytes|1073741824.0|1073741824.0|1
gpu.0.util_pct|40.0|40.0|1
gpu.1.memory_bytes|2147483648.0|2147483648.0|1
gpu.1.util_pct|41.0|41.0|1"
rm -f "$DB"
RUNNER_TEST_NVML_LIBRARY="$TMP/no-such-libnvidia-ml.so.1" \
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --sample-interval 0.2
expect_status 0
expect_stderr "runner: sweep 1 stored in $DB: 1 points ok, 0 failed"
expect_sql "SELECT count(*) FROM series WHERE name LIKE 'gpu.%'" "0"

# --sample-interval 0: no samples, no point_system rows; progress lines
# still kept. A negative interval is refused before anything is stored.
rm -f "$DB"
run "$RUNNER" sweep "$script" --db "$DB" --quiet --sample-interval 0
expect_status 0
expect_sql "SELECT (SELECT count(*) FROM series), (SELECT count(*) FROM point_system)" "0|0"
run "$RUNNER" sweep "$script" --db "$TMP/neg.db" --sample-interval -1
expect_status 2
expect_stderr "runner: --sample-interval -1: expected seconds, 0 (off) or more; see 'runner --help'"
[ ! -e "$TMP/neg.db" ] || fail "a refused interval made a database"

# A plugin's host->series (appended to ABI 1's host table), its refused
# names counted; its point's thread CPU time in point_system.
script=$(write_script plugin.lua <<'LUA'
sweep("serieskit", { steps = { 5 }, busy_s = { 0.3 } }, { print = false })
LUA
)
rm -f "$DB"
run "$RUNNER" sweep "$script" --db "$DB" --quiet --plugin-dir "$RUNNER_FIXTURES/series"
expect_status 0
expect_stderr "runner: serieskit: warning: point 0: 2 progress values or lines ignored (first: series name \"bad name\" is not 1 to 63 letters, digits, '_', '.' or '-')
runner: sweep 1 stored in $DB: 1 points ok, 0 failed"
expect_sql "SELECT has_series, kept FROM serieskit" "1|5"
expect_sql "SELECT group_concat(step || ':' || value, ' ') FROM series WHERE name = 'residual'" \
    "0.0:1.0 1.0:0.5 2.0:0.333333333333333 3.0:0.25 4.0:0.2"
expect_sql "SELECT wall_s >= 0.3, cpu_s > 0.05, cpu_s <= wall_s + 0.01, rss_peak_bytes IS NULL,
            samples FROM point_system" "1|1|1|1|0"
# With --isolate the point runs in a child: no series, the point still ok.
rm -f "$DB"
run "$RUNNER" sweep "$script" --db "$DB" --quiet --isolate --plugin-dir "$RUNNER_FIXTURES/series"
expect_status 0
expect_sql "SELECT has_series, kept FROM serieskit" "1|0"

finish
