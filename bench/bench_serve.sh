#!/bin/sh
# runner serve at scale (docs/performance.md, "The dashboard at scale"):
# builds a database of 10^4 sweeps, two of them with a 10^6-row section,
# serves it, and times the pages the dashboard asks for (median of 7
# requests each, curl's total time on loopback; a sort or filter's first
# request, which makes the sort cache, is timed on its own) and the
# server's peak RSS afterwards. Each figure is printed beside its target
# (issue 27): the sweeps page and a page of rows under 100 ms, a sort or
# filter on any column under 300 ms, a plot of 10^6 points under 1 s, a
# compare of the two 10^6-row sections under 5 s.
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

# Sweeps 1 and 2: one section of 10^6 rows each (1000 points of 1000 rows),
# with different seeds (the testkit's random column differs).
cat >"$tmp/big.lua" <<'LUA'
sweep("testkit", { x = range(1, 1000), rows = 1000 }, { print = false })
LUA
start=$(date +%s.%N)
"$runner" sweep "$tmp/big.lua" --db "$db" --quiet --plugin-dir "$fixtures" --seed 1 >/dev/null
echo "built the 10^6-row section in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
"$runner" sweep "$tmp/big.lua" --db "$db" --quiet --plugin-dir "$fixtures" --seed 2 >/dev/null
# Sweeps 3 .. 10^4: copies of sweep 1's record, each with one section and one
# block of points (what the list reads), statuses mixed.
sqlite3 "$db" <<'SQL'
WITH RECURSIVE n(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
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
SELECT id, 1, 'testkit', 'copy', 1, 100 FROM sweep WHERE id > 2;
INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id, point_count,
                         ok_count, params_base, points)
SELECT c.sweep_id, c.id, 0, 0, 100, CASE WHEN c.sweep_id % 10 = 0 THEN 90 ELSE 100 END, '{}', '[]'
FROM section AS c WHERE c.sweep_id > 2;
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
echo "load before: $(uptime | sed 's/.*load/load/')"

# median URL: the median of 7 requests' times, in ms, after one that pages
# the file in.
median() {
    curl -s -o /dev/null "$1"
    for i in 1 2 3 4 5 6 7; do
        curl -s -o /dev/null -w '%{time_total}\n' "$1"
    done | sort -n | sed -n 4p | awk '{ printf "%7.1f ms", $1 * 1000 }'
}

# once URL: one request's time, in ms (a sort's first, which makes the
# sort cache).
once() {
    curl -s -o /dev/null -w '%{time_total}\n' "$1" | awk '{ printf "%7.1f ms", $1 * 1000 }'
}

# time_page LABEL PATH [TARGET]: its median on this server (and on the
# baseline), with its target.
time_page() {
    printf '%-52s %s' "$1" "$(median "$base$2")"
    [ -z "$baseline" ] || printf ' %s' "$(median "$baseline_url$2")"
    [ $# -lt 3 ] || printf '   target %s' "$3"
    echo
}

# time_sort LABEL PATH TARGET: its first request alone (the sort cache is
# made then, once per column), then time_page.
time_sort() {
    printf '%-52s %s' "$1, first request" "$(once "$base$2")"
    [ -z "$baseline" ] || printf ' %s' "$(once "$baseline_url$2")"
    echo
    time_page "$1" "$2" "$3"
}

# The key of the row at offset 500000, for a keyset page from there.
middle=$(curl -s "${base}api/section/1/rows?offset=499999&limit=1" |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["next"])')

time_page "page (HTML)" ""
time_page "sweeps page (newest 50 of 10^4)" "api/sweeps" "100 ms"
time_page "sweeps page, sorted by duration" "api/sweeps?sort=duration&order=desc" "100 ms"
time_page "sweeps page, filtered (script LIKE)" "api/sweeps?q=study_42" "100 ms"
time_page "sweeps page, last page" "api/sweeps?sort=id&order=asc&offset=9950" "100 ms"
time_page "one sweep (provenance, sections)" "api/sweep/1"
time_page "progress" "api/sweep/1/progress"
time_page "rows: first page of 100 (10^6 rows)" "api/section/1/rows" "100 ms"
time_page "rows: page at offset 500000" "api/section/1/rows?offset=500000" "100 ms"
time_page "rows: next page after row 500000 (after=)" "api/section/1/rows?offset=500000&after=$middle" "100 ms"
time_sort "rows: filtered x >= 900" "api/section/1/rows?col=x&op=ge&value=900" "300 ms"
time_sort "rows: sorted by random, descending" "api/section/1/rows?sort=random&order=desc" "300 ms"
time_page "rows: sorted by random, ascending, offset 500000" "api/section/1/rows?sort=random&offset=500000" "300 ms"
time_sort "rows: sorted by tag (text)" "api/section/1/rows?sort=tag" "300 ms"
time_page "rows: filtered tag contains 9" "api/section/1/rows?col=tag&op=contains&value=9" "300 ms"
time_sort "rows: filtered random < 0.001" "api/section/1/rows?col=random&op=lt&value=0.001" "300 ms"
time_page "plot of 10^6 points (x, random by row_index)" "api/section/1/plot?x=x&y=random&by=row_index" "1 s"
time_page "plot of 10^6 points (x, random, one line)" "api/section/1/plot?x=x&y=random" "1 s"
time_page "compare two 100-point sweeps" "api/compare?a=3&b=4"
time_page "compare two 10^6-row sections" "api/compare?a=1&b=2" "5 s"
time_page "compare two 10^6-row sections, differing only" "api/compare?a=1&b=2&only=diff" "5 s"
echo "load after: $(uptime | sed 's/.*load/load/')"
echo "sort cache: $(du -m "$db.runner-cache" | cut -f1) MB for $(sqlite3 "$db.runner-cache" "SELECT count(*) FROM entry") columns"
echo "server peak RSS: $(sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$pid/status")"
kill -TERM $pid $base_pid
wait $pid || true
