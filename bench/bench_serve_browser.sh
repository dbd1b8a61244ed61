#!/bin/sh
# The dashboard at 10^6 rows, through the real browser (issue 27; docs/serve.md,
# docs/performance.md): two sweeps of one 10^6-row section each (1000 points
# of 1000 rows, testkit), served, and timed in headless Chromium by
# serve_browser_bench.js: sort or filter the section (target < 300 ms), its
# default plot (< 1 s), compare the two sweeps (< 5 s). Needs node, chromium
# and playwright-core in BUILD_DIR/browser (`make browser-driver`).
#
# usage: bench/bench_serve_browser.sh [BUILD_DIR] [--points N] [--rows N] [--runs N] [--keep]
# (--points 20 --rows 10 checks the script itself in seconds.)
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
points=1000 rows=1000 runs=5 keep=
while [ $# -gt 0 ]; do
    case $1 in
        --points) points=$2; shift ;;
        --rows) rows=$2; shift ;;
        --runs) runs=$2; shift ;;
        --keep) keep=1 ;;
        *) echo "usage: bench/bench_serve_browser.sh [BUILD_DIR] [--points N] [--rows N] [--runs N] [--keep]" >&2
           exit 2 ;;
    esac
    shift
done
build=$(cd "$build" && pwd)
runner=$build/runner
fixtures=$(cd "$build/fixtures/good" && pwd)
[ -d "$build/browser/node_modules/playwright-core" ] || {
    echo "bench_serve_browser: no playwright-core in $build/browser: run make browser-driver" >&2
    exit 2
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/runner-bench-serve-browser.XXXXXX")
pid=
[ -n "$keep" ] || trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
db="$tmp/bench.db"

# Two sweeps of the same grid, other seeds: every row of `random` differs.
echo "sweep(\"testkit\", { x = range(1, $points), rows = $rows }, { print = false })" >"$tmp/big.lua"
start=$(date +%s.%N)
"$runner" sweep "$tmp/big.lua" --db "$db" --quiet --plugin-dir "$fixtures" >/dev/null
"$runner" sweep "$tmp/big.lua" --db "$db" --quiet --seed 7 --plugin-dir "$fixtures" >/dev/null
echo "built two sections of $((points * rows)) rows in" \
     "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" \
     "($(du -m "$db" | cut -f1) MB)"

"$runner" serve --db "$db" --listen 127.0.0.1:0 --rate 100000 >"$tmp/serve.out" 2>&1 &
pid=$!
while ! grep -q "^runner: serving" "$tmp/serve.out"; do
    kill -0 "$pid" || { cat "$tmp/serve.out"; exit 1; }
    sleep 0.05
done
base=$(grep -o 'http://[^ /]*/' "$tmp/serve.out" | head -n 1)
RUNNER_BUILD=$build node "$(dirname "$0")/serve_browser_bench.js" "$base" 1 2 "$runs"
