#!/bin/sh
# runner serve at scale (docs/performance.md, "The dashboard at scale"):
# builds a database of 10^4 sweeps and one 10^6-row section, serves it, and
# times the pages the dashboard asks for (median of 7 requests each, curl's
# total time on loopback) and the server's peak RSS afterwards. Targets:
# the sweeps page and a page of rows each under 100 ms.
#
# With --baseline OTHER_RUNNER, that runner serves the same file too, and
# each page is timed on both servers in turn, in the same run (a second
# column): the ratio holds on a loaded machine where the figures do not.
#
# usage: bench/bench_serve.sh [BUILD_DIR] [--keep] [--baseline OTHER_RUNNER]
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
keep= baseline=
while [ $# -gt 0 ]; do
    case $1 in
        --keep) keep=1 ;;
        --baseline) baseline=$2; shift ;;
        *) echo "usage: bench/bench_serve.sh [BUILD_DIR] [--keep] [--baseline OTHER_RUNNER]" >&2
           exit 2 ;;
    esac
    shift
done
runner=$(cd "$build" && pwd)/runner
fixtures=$(cd "$build/fixtures/good" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/runner-bench-serve.XXXXXX")
pid= base_pid=
# (kill fails once the servers have stopped: set -e must not skip the rm)
[ -n "$keep" ] || trap 'kill $pid $base_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
db="$tmp/bench.db"

# Sweep 1: one section of 10^6 rows (1000 points of 1000 rows).
cat >"$tmp/big.lua" <<'LUA'
sweep("testkit", { x = range(1, 1000), rows = 1000 }, { print = false })
LUA
start=$(date +%s.%N)
"$runner" sweep "$tmp/big.lua" --db "$db" --quiet --plugin-dir "$fixtures" >/dev/null
echo "built the 10^6-row section in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
# Sweeps 2 .. 10^4: copies of sweep 1's record, each with one section and one
# block of points (what the list reads), statuses mixed.
sqlite3 "$db" <<'SQL'
WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO sweep (id, script_path, script_text, script_sha256, options_json, overrides_json,
                   runner_version, git_commit, host, command_line, pid, seed, started_at,
                   ended_at, status)
SELECT i, 'scripts/study_' || (i % 97) || '.lua', script_text, script_sha256, options_json,
       overrides_json, runner_version, git_commit, host, command_line, NULL, i,
       strftime('%Y-%m-%dT%H:%M:%fZ', 1.7e9 + i * 60, 'unixepoch'),
       strftime('%Y-%m-%dT%H:%M:%fZ', 1.7e9 + i * 60 + (i % 50), 'unixepoch'),
       CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'ok' END
FROM sweep, n WHERE sweep.id = 1;
INSERT INTO section (sweep_id, ordinal, plugin, title, script_line, point_count)
SELECT id, 1, 'testkit', 'copy', 1, 100 FROM sweep WHERE id > 1;
INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id, point_count,
                         ok_count, params_base, points)
SELECT c.sweep_id, c.id, 0, 0, 100, CASE WHEN c.sweep_id % 10 = 0 THEN 90 ELSE 100 END, '{}', '[]'
FROM section AS c WHERE c.sweep_id > 1;
SQL
echo "database: $(sqlite3 "$db" "SELECT count(*) FROM sweep") sweeps," \
     "$(sqlite3 "$db" "SELECT count(*) FROM testkit") rows, $(du -m "$db" | cut -f1) MB"

# serve RUNNER OUT: starts RUNNER serve on the file; its URL in $url.
serve() {
    "$1" serve --db "$db" --listen 127.0.0.1:0 --rate 100000 >"$2" 2>&1 &
    served=$!
    while ! grep -q "^runner: serving" "$2"; do
        kill -0 "$served" || { cat "$2"; exit 1; }
        sleep 0.05
    done
    url=$(grep -o 'http://[^ ]*' "$2")
}
serve "$runner" "$tmp/serve.out"
pid=$served base=$url
if [ -n "$baseline" ]; then
    serve "$baseline" "$tmp/baseline.out"
    base_pid=$served baseline_url=$url
    printf '%-52s %10s %10s\n' "" "this" "baseline"
fi

# median URL: the median of 7 requests' times, in ms, after one that pages
# the file in.
median() {
    curl -s -o /dev/null "$1"
    for i in 1 2 3 4 5 6 7; do
        curl -s -o /dev/null -w '%{time_total}\n' "$1"
    done | sort -n | sed -n 4p | awk '{ printf "%7.1f ms", $1 * 1000 }'
}

# time_page LABEL PATH: its median on this server (and on the baseline).
time_page() {
    printf '%-52s %s' "$1" "$(median "$base$2")"
    [ -z "$baseline" ] || printf ' %s' "$(median "$baseline_url$2")"
    echo
}

# The key of the row at offset 500000, for a keyset page from there.
middle=$(curl -s "${base}api/section/1/rows?offset=499999&limit=1" |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["next"])')

time_page "page (HTML)" ""
time_page "sweeps page (newest 50 of 10^4)" "api/sweeps"
time_page "sweeps page, sorted by duration" "api/sweeps?sort=duration&order=desc"
time_page "sweeps page, filtered (script LIKE)" "api/sweeps?q=study_42"
time_page "sweeps page, last page" "api/sweeps?sort=id&order=asc&offset=9950"
time_page "one sweep (provenance, sections)" "api/sweep/1"
time_page "progress" "api/sweep/1/progress"
time_page "rows: first page of 100 (10^6 rows)" "api/section/1/rows"
time_page "rows: page at offset 500000" "api/section/1/rows?offset=500000"
time_page "rows: next page after row 500000 (after=)" "api/section/1/rows?offset=500000&after=$middle"
time_page "rows: filtered x >= 900" "api/section/1/rows?col=x&op=ge&value=900"
time_page "rows: sorted by random (full sort)" "api/section/1/rows?sort=random&order=desc"
time_page "plot of 10^6 points (x, random by row_index)" "api/section/1/plot?x=x&y=random&by=row_index"
time_page "compare two 100-point sweeps" "api/compare?a=2&b=3"
echo "server peak RSS: $(sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$pid/status")"
kill -TERM $pid $base_pid
wait $pid || true
