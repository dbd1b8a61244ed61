#!/bin/sh
# runner diff and runner sweep --reuse at 2 x 10^5 points (docs/performance.md,
# "Diff, reuse and verify"): prints wall, user and system seconds and peak
# RSS of each command, on a fresh database in a temporary directory.
# usage: bench/reuse_diff.sh [BUILD_DIR]
set -eu
RUNNER=$(cd "${1:-build}" && pwd)/runner
TMP=$(mktemp -d "${TMPDIR:-/tmp}/runner-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
cat >big.lua <<'LUA'
sweep("speedup", { jitter = linspace(0.1, 2, 200), workers = range(1, 1000) },
      { print = false, keep_rows = false })
LUA
# 2 x 10^4 points of 100 Monte Carlo rounds each (about 0.5 ms): worth reusing
cat >costly.lua <<'LUA'
sweep("speedup", { jitter = linspace(0.1, 2, 20), workers = range(1, 1000), trials = 100 },
      { print = false, keep_rows = false })
LUA
timed() { # timed WHAT COMMAND...
    what=$1
    shift
    /usr/bin/time -f "$what: %e s wall, %U s user, %S s sys, %M KB peak RSS" "$@" >/dev/null 2>"$TMP/err" ||
        [ $? -eq 1 ] || { cat "$TMP/err" >&2; exit 2; }
    tail -n 1 "$TMP/err"
}
timed "run big.lua (sweep 1)" "$RUNNER" sweep big.lua --db big.db --quiet --jobs 1
timed "run big.lua again (sweep 2)" "$RUNNER" sweep big.lua --db big.db --quiet --jobs 1
timed "diff 1 2 (equal)" "$RUNNER" diff 1 2 --db big.db
timed "run big.lua --reuse, 2 sweeps stored (sweep 3)" "$RUNNER" sweep big.lua --db big.db --quiet --jobs 1 --reuse
timed "diff 1 3 (equal)" "$RUNNER" diff 1 3 --db big.db
timed "run costly.lua (sweep 1)" "$RUNNER" sweep costly.lua --db costly.db --quiet --jobs 1
timed "run costly.lua --reuse (sweep 2)" "$RUNNER" sweep costly.lua --db costly.db --quiet --jobs 1 --reuse
timed "verify 1 --sample 1000" "$RUNNER" verify 1 --db costly.db --sample 1000
