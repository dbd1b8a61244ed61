#!/bin/sh
# runner merge at 4, 64 and 1,000 shards (issue 29; docs/performance.md,
# "Merges at scale"): the testkit grid of POINTS points (1.5 rows a point)
# run as N shards, one `runner sweep --shard I/N` each, then one `runner
# merge` of them under `ulimit -n 1024`, timed (wall and CPU, best of
# REPEAT). The fixed cost a shard adds is the figure that grows with N;
# rows cost what a single writer's cost (bench_merge.sh).
#   bench/bench_merge_scale.sh [BUILD_DIR] (env: POINTS, default 6400;
#   COUNTS, default "4 64 1000"; REPEAT, default 3)
set -eu
build=${1:-build}
runner=$(realpath "$build/runner")
RUNNER_PLUGIN_PATH=$(realpath "$build/fixtures/good")
export RUNNER_PLUGIN_PATH
points=${POINTS:-6400} counts=${COUNTS:-"4 64 1000"} repeat=${REPEAT:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-merge-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
half=$((points / 2))
printf 'sweep("testkit", {x = range(1, %s), rows = {1, 2}}, {print = false})\n' "$half" >"$tmp/grid.lua"

echo "runner merge at scale: $points points, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-10s %-12s %-12s %-14s\n' shards rows "wall (s)" "CPU (s)" "CPU per shard"
for n in $counts; do
    mkdir "$tmp/$n"
    i=1
    while [ "$i" -le "$n" ]; do
        "$runner" sweep "$tmp/grid.lua" --db "$tmp/$n/s$i.db" --shard "$i/$n" --quiet --jobs 1 2>/dev/null
        i=$((i + 1))
    done
    best_wall= best_cpu=
    r=0
    while [ "$r" -lt "$repeat" ]; do
        rm -f "$tmp/out.db"
        # merge exits 1 when a shard holds failed points; testkit's have none.
        sh -c "ulimit -n 1024 && exec /usr/bin/time -f '%e %U %S' -o '$tmp/time' \
            '$runner' merge '$tmp/out.db' '$tmp/$n'/s*.db" >/dev/null 2>"$tmp/err" ||
            { cat "$tmp/err" >&2; exit 1; }
        set -- $(tail -n 1 "$tmp/time")
        wall=$1 cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.2f", u + s }')
        best_wall=$(awk -v a="$wall" -v b="${best_wall:-$wall}" 'BEGIN { print (a < b ? a : b) }')
        best_cpu=$(awk -v a="$cpu" -v b="${best_cpu:-$cpu}" 'BEGIN { print (a < b ? a : b) }')
        r=$((r + 1))
    done
    rows=$(sqlite3 "$tmp/out.db" "SELECT count(*) FROM testkit")
    per=$(awk -v c="$best_cpu" -v n="$n" 'BEGIN { printf "%.1f", 1000 * c / n }')
    printf '%-8s %-10s %-12s %-12s %-14s\n' "$n" "$rows" "$best_wall" "$best_cpu" "$per ms"
    rm -rf "$tmp/$n"
done
echo "load at end $(cut -d' ' -f1-3 /proc/loadavg)"
