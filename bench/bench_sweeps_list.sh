#!/bin/sh
# `runner sweeps` on a database of 10^4 sweeps (issue 13: under 100 ms).
# One real sweep (scripts/jitter.lua: one section, 24 points) is copied by
# SQL into SWEEPS sweeps of two sections and two point blocks each (the
# blocks with their real points JSON, so the file is as big as real ones),
# every tenth tagged, every third named; then hyperfine times the listing,
# whole and filtered, and a name selector.
#   bench/bench_sweeps_list.sh [BUILD_DIR] [SWEEPS] [REFERENCE_BUILD_DIR]
# (defaults: build, 10000). With a reference build (an older runner, such
# as main's), the database is made by the reference, a copy is upgraded by
# BUILD_DIR's runner (`runner migrate`, timed), and both runners are timed
# in the same hyperfine run, each on its own file: compare their ratios and
# CPU (user + system), not wall times on a loaded machine. With
# SWEEPS_DB_OUT=FILE it only makes the database, copies it to FILE and
# stops (bench/bench_floor.py times its start-up lines on it).
set -eu
build=${1:-build}
sweeps=${2:-10000}
reference=${3:-}
runner="$build/runner"
command -v hyperfine >/dev/null || { echo "hyperfine is needed (BENCH_PACKAGES)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/runner-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
db="$tmp/sweeps.db"
maker=${reference:+$reference/runner}
maker=${maker:-$runner}

"$maker" sweep scripts/jitter.lua --db "$db" --quiet >/dev/null 2>&1
# Copies of sweep 1 with ids 2..N; each gets its two sections (copies of the
# real one), their blocks (the real block's points, for both) and, every
# tenth, the tag "nightly". One transaction; ids above id_high_water.
sqlite3 -batch "$db" "
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < $sweeps)
INSERT INTO sweep (id, script_path, script_text, script_sha256, options_json, overrides_json,
    runner_version, git_commit, host, command_line, pid, seed, started_at, ended_at, status, name)
SELECT i, script_path, script_text, script_sha256, options_json, overrides_json, runner_version,
    git_commit, host, command_line, pid, seed, started_at, ended_at,
    CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'ok' END, CASE WHEN i % 3 = 0 THEN 'run' || i END
FROM sweep, n WHERE sweep.id = 1;
INSERT INTO section (id, sweep_id, ordinal, plugin, title, script_line, point_count)
SELECT 2 * s.id + o.k, s.id, o.k, c.plugin, c.title, c.script_line, c.point_count
FROM sweep AS s, (SELECT 1 AS k UNION ALL SELECT 2) AS o, section AS c
WHERE s.id > 1 AND c.id = 1;
INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id, point_count,
    ok_count, params_base, points)
SELECT c.sweep_id, c.id, 100 * c.id, 100 * c.id + 23, b.point_count, b.ok_count, b.params_base,
    b.points
FROM section AS c, point_block AS b WHERE c.sweep_id > 1 AND b.id = 1;
INSERT INTO sweep_tag (sweep_id, tag) SELECT id, 'nightly' FROM sweep WHERE id % 10 = 0;
COMMIT;
ANALYZE;"
echo "database: $(sqlite3 -batch "$db" "SELECT count(*) FROM sweep") sweeps," \
     "$(sqlite3 -batch "$db" "SELECT count(*) FROM section") sections," \
     "$(du -m "$db" | cut -f1) MB"

if [ -n "${SWEEPS_DB_OUT:-}" ]; then
    cp "$db" "$SWEEPS_DB_OUT"
    exit 0
fi
if [ -n "$reference" ]; then
    cp "$db" "$tmp/reference.db"
    start_ns=$(date +%s%N)
    "$runner" migrate --db "$db"
    echo "migrate: $(( ($(date +%s%N) - start_ns) / 1000000 )) ms wall"
fi
# hyperfine's arguments: each command for this runner, then (right after,
# so both see the same load) for the reference.
list="$tmp/commands"
: >"$list"
for args in "sweeps" "sweeps --format csv" "sweeps --format json" "sweeps --tag nightly" \
    "show run9999"; do
    printf '%s\t%s %s --db %s\n' "$args" "$runner" "$args" "$db" >>"$list"
    if [ -n "$reference" ]; then
        printf '%s (reference)\t%s/runner %s --db %s\n' "$args" "$reference" "$args" \
            "$tmp/reference.db" >>"$list"
    fi
done
set --
while IFS='	' read -r name command; do
    set -- "$@" -n "$name" "$command > /dev/null"
done <"$list"
hyperfine --warmup 3 --runs 30 --style basic "$@"
