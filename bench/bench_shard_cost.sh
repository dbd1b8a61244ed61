#!/bin/sh
# What sharding costs in CPU (issue 36, docs/performance.md "Merge rate and
# memory"): the speedup grid of POINTS points (one row each, keep_rows =
# false) run by one process (--jobs 1), then as SHARDS shards (--shard I/N,
# one process each, in turn); the sum of the shards' user+sys CPU against
# the one process's, measured in the same run. Target: at most 1.2. Each
# shard builds only its own points (docs/slurm.md, "Which shard runs a
# point"), so what is left over is each process's start and its own file.
#   bench/bench_shard_cost.sh [BUILD_DIR] (env: POINTS SHARDS)
set -eu
build=${1:-build}
runner=$(realpath "$build/runner")
RUNNER_PLUGIN_PATH=${RUNNER_PLUGIN_PATH:-$(realpath "$build/plugins")}
export RUNNER_PLUGIN_PATH
points=${POINTS:-1000000} shards=${SHARDS:-100}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-shard.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
workers=1000
jitters=$(((points + workers - 1) / workers))
printf 'sweep("speedup", {workers = range(1, %s), jitter = linspace(0.5, 2, %s), trials = 1},\n      {print = false, keep_rows = false})\n' \
    "$workers" "$jitters" >"$tmp/grid.lua"
points=$((workers * jitters))

# cpu CMD...: runs CMD, prints its user+sys seconds.
cpu() {
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
        cat "$tmp/err" >&2
        exit 1
    }
    awk 'END { printf "%.3f\n", $1 + $2 }' "$tmp/time"
}
echo "load before: $(cat /proc/loadavg)"
single=$(cpu "$runner" sweep "$tmp/grid.lua" --db "$tmp/single.db" --jobs 1 --quiet --max-points "$points")
rm -f "$tmp/single.db"*
total=0 i=1
while [ "$i" -le "$shards" ]; do
    c=$(cpu "$runner" sweep "$tmp/grid.lua" --db "$tmp/shard.db" --shard "$i/$shards" --jobs 1 --quiet)
    total=$(awk -v a="$total" -v b="$c" 'BEGIN { printf "%.3f", a + b }')
    rm -f "$tmp/shard.db"*
    i=$((i + 1))
done
echo "load after: $(cat /proc/loadavg)"
awk -v p="$points" -v n="$shards" -v s="$single" -v t="$total" 'BEGIN {
    printf "%d points: one process %.2f CPU-s; %d shards %.2f CPU-s in all (%.1f ms a shard beyond its share): %.2fx (target <= 1.2)\n",
        p, s, n, t, (t - s) / n * 1000, t / s }'
