#!/bin/sh
# `runner history` on SWEEPS sweeps of RUNS values each (issue 35: 1,000
# sweeps x 10^3 runs under 2 s). One real sweep of the testkit fixture (one
# point, RUNS rows: its `random` column, a uniform draw from the point's
# stream) is copied by SQL into SWEEPS sweeps, each with its own commit
# (git_commit, no repository at hand: ordered by start time), its own point
# block and its own rows, the values of the second half 5 % higher; then
# the history is timed (its change found once), wall and CPU seconds of
# each of 5 runs, the best kept (python3's resource module: the child's
# CPU).
#   bench/bench_history.sh [BUILD_DIR] [SWEEPS] [RUNS]   (build, 1000, 1000)
# With HISTORY_DB_OUT=FILE it only makes the database, copies it to FILE
# and stops.
# Say the load (`cat /proc/loadavg`) beside every figure.
set -eu
build=${1:-build}
sweeps=${2:-1000}
runs=${3:-1000}
runner="$build/runner"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/runner-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
db="$tmp/history.db"
export RUNNER_PLUGIN_PATH="$build/fixtures/good"

printf 'sweep("testkit", { rows = %d }, { print = false })\n' "$runs" >"$tmp/bench.lua"
"$runner" sweep "$tmp/bench.lua" --db "$db" --quiet --tag bench >/dev/null
# Copies of sweep 1 with ids 2..N: the sweep (a commit of its own, a start
# one second later each), its section, its block (point id = sweep id) and
# its rows. One transaction.
sqlite3 -batch "$db" "
BEGIN;
UPDATE sweep SET git_commit = printf('%07x%033x', 1, 0), started_at = '2026-01-01T00:00:00Z';
WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < $sweeps)
INSERT INTO sweep (id, script_path, script_text, script_sha256, options_json, overrides_json,
    runner_version, git_commit, host, command_line, pid, seed, started_at, ended_at, status, name)
SELECT i, script_path, script_text, script_sha256, options_json, overrides_json, runner_version,
    printf('%07x%033x', i, 0), host, command_line, pid, seed,
    strftime('%Y-%m-%dT%H:%M:%SZ', '2026-01-01', '+' || i || ' seconds'), ended_at, status, name
FROM sweep, n WHERE sweep.id = 1;
INSERT INTO sweep_tag (sweep_id, tag) SELECT id, 'bench' FROM sweep WHERE id > 1;
INSERT INTO section (id, sweep_id, ordinal, plugin, title, script_line, point_count)
SELECT s.id, s.id, 1, c.plugin, c.title, c.script_line, c.point_count
FROM sweep AS s, section AS c WHERE s.id > 1 AND c.id = 1;
INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id, point_count,
    ok_count, params_base, points)
SELECT c.sweep_id, c.id, c.id, c.id, b.point_count, b.ok_count, b.params_base,
    json_set(b.points, '\$[0][0]', c.id)
FROM section AS c, point_block AS b WHERE c.sweep_id > 1 AND b.id = 1;
INSERT INTO point_index (id, block_id, status)
SELECT first_point_id, id, 'ok' FROM point_block WHERE sweep_id > 1;
INSERT INTO testkit (sweep_id, section_id, point_id, x, rows, fail, label, y, not_a_number,
    pos_inf, neg_inf, row_index, even, tag, random)
SELECT p.sweep_id, p.section_id, p.first_point_id, t.x, t.rows, t.fail, t.label, t.y,
    t.not_a_number, t.pos_inf, t.neg_inf, t.row_index, t.even, t.tag,
    t.random * CASE WHEN p.sweep_id > $sweeps / 2 THEN 1.05 ELSE 1 END
FROM point_block AS p, testkit AS t WHERE p.sweep_id > 1 AND t.point_id = 1;
COMMIT;
ANALYZE;"
echo "database: $(sqlite3 -batch "$db" "SELECT count(*) FROM sweep") sweeps," \
     "$(sqlite3 -batch "$db" "SELECT count(*) FROM testkit") rows," \
     "$(du -m "$db" | cut -f1) MB; load $(cat /proc/loadavg)"
if [ -n "${HISTORY_DB_OUT:-}" ]; then
    cp "$db" "$HISTORY_DB_OUT"
    exit 0
fi
"$runner" history --y random --tag bench --db "$db" --tolerance 0.5 | tail -n 3
python3 - "$runner" "$db" "$sweeps" "$runs" <<'PY'
import resource, subprocess, sys, time
runner, db, sweeps, runs = sys.argv[1:5]
best = None
for _ in range(5):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([runner, "history", "--y", "random", "--tag", "bench", "--db", db,
                           "--tolerance", "0.5"], stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert done.returncode == 0, done.returncode
    best = (wall, cpu) if best is None or wall < best[0] else best
print("history: %s sweeps x %s rows: %.3f s (%.3f CPU-s), best of 5; target < 2 s: %s"
      % (sweeps, runs, best[0], best[1], "PASS" if best[0] < 2 else "MISS"))
PY
echo "load after: $(cat /proc/loadavg)"
