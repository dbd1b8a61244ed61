#!/bin/sh
# Rank 0's throughput under MPI against one process, measured in the same
# run (docs/mpi.md, docs/performance.md). Two questions:
#   tiny points (the speedup plugin's closed form, a few µs each): is
#     mpirun -np 2 (rank 0 hands out and writes, one worker computes) at
#     least as fast as --jobs 1, and what does -np 4 give? Measured twice:
#     sharing the machine as launched, and pinned, rank 0 alone on core 0
#     against --jobs 1 alone on core 0 (on 2 cores, one process's storage
#     uses most of both: its writer and SQLite's checkpointer thread, so a
#     worker competes with them; pinned, rank 0's own cost is compared).
#   slow points (about 2 ms of Monte Carlo each): does -np 3 (two workers on
#     two cores, rank 0 mostly asleep) come near 2x --jobs 1?
# mpirun costs about a second to start every rank, which no sweep size
# hides on a small machine, so the rate is the sweep's own: points over the
# time between the sweep row's started_at and ended_at (rank 0's clock, from
# the script's start to the last commit). Rank 0's CPU time per point is its
# whole process's (its own /usr/bin/time, through a wrapper), start-up
# included. Best of REPEAT, the configurations taking turns.
#   bench/bench_mpi.sh [BUILD_DIR]   (env: REPEAT, TINY_POINTS, SLOW_POINTS)
set -eu
build=${1:-build}
runner=$(realpath "$build/runner")
repeat=${REPEAT:-3}
tiny_points=${TINY_POINTS:-100000} slow_points=${SLOW_POINTS:-2000}
command -v mpirun >/dev/null || { echo "bench_mpi: mpirun not found (openmpi-bin)" >&2; exit 1; }
"$runner" --version >/dev/null
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# grid FILE POINTS KIND: the speedup plugin's jitter axis, POINTS long.
grid() {
    if [ "$3" = tiny ]; then
        printf 'sweep("speedup", {workers = 64, jitter = linspace(0.5, 2, %s)},\n' "$2"
    else
        printf 'sweep("speedup", {workers = 256, trials = 6000, jitter = linspace(0.5, 2, %s)},\n' "$2"
    fi >"$1"
    printf '      {print = false, keep_rows = false})\n' >>"$1"
}
grid "$tmp/tiny.lua" "$tiny_points" tiny
grid "$tmp/slow.lua" "$slow_points" slow
# Rank 0 (or the single process) under /usr/bin/time, into $tmp/rank0.
# With PIN=1, rank r (or the single process) runs on core r only.
cat >"$tmp/rank0.sh" <<EOF
#!/bin/sh
rank=\${OMPI_COMM_WORLD_RANK:-0}
pin=
[ "\${PIN:-0}" = 1 ] && pin="taskset -c \$rank"
if [ "\$rank" = 0 ]; then
    exec \$pin /usr/bin/time -f "%U %S" -o "$tmp/rank0" "$runner" "\$@"
fi
exec \$pin "$runner" "\$@"
EOF
chmod +x "$tmp/rank0.sh"

# measure KIND RANKS: prints "points_per_s rank0_us_cpu_per_point"; RANKS 0
# is one process with --jobs 1; a RANKS ending in p pins each rank to its own
# core (PIN=1): rank 0 gets core 0 alone, as --jobs 1 does with 0p.
results=""
measure() {
    eval points=\$${1}_points
    rm -f "$tmp"/run.db*
    ranks=${2%p} pin=0
    [ "$ranks" != "$2" ] && pin=1
    if [ "$ranks" = 0 ]; then
        PIN=$pin "$tmp/rank0.sh" sweep "$tmp/$1.lua" --db "$tmp/run.db" --jobs 1 --quiet 2>"$tmp/err"
    else
        PIN=$pin mpirun -x PIN --bind-to none -np "$ranks" "$tmp/rank0.sh" sweep "$tmp/$1.lua" \
            --db "$tmp/run.db" --quiet 2>"$tmp/err"
    fi || { cat "$tmp/err" >&2; exit 1; }
    [ "$(sqlite3 "$tmp/run.db" "SELECT count(*) FROM point WHERE status = 'ok'")" = "$points" ] || {
        echo "bench_mpi: the sweep did not store every point" >&2
        exit 1
    }
    seconds=$(sqlite3 "$tmp/run.db" "SELECT (julianday(ended_at) - julianday(started_at)) * 86400 FROM sweep")
    awk -v n="$points" -v s="$seconds" '{ printf "%.1f %.2f\n", n / s, 1e6 * ($1 + $2) / n }' "$tmp/rank0"
}
configs="tiny:0 tiny:2 tiny:4 slow:0 slow:3"
command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] && configs="$configs tiny:0p tiny:2p"
i=1
while [ "$i" -le "$repeat" ]; do
    for c in $configs; do
        set -- $(measure "${c%%:*}" "${c#*:}")
        echo "run $i $c: $1 points/s, rank 0 $2 us CPU/point" >&2
        results="$results$c $1 $2
"
    done
    i=$((i + 1))
done
printf '%s' "$results" | awk '
{ if (!($1 in rate) || $2 > rate[$1]) { rate[$1] = $2; cpu[$1] = $3 } }
END {
    printf "tiny points (%s us of rank 0 CPU each at --jobs 1, computing included):\n", cpu["tiny:0"]
    printf "  --jobs 1  %8.0f points/s\n", rate["tiny:0"]
    for (np = 2; np <= 4; np += 2) {
        c = "tiny:" np
        printf "  -np %d    %8.0f points/s (%.2fx --jobs 1), rank 0 %.2f us CPU/point\n",
            np, rate[c], rate[c] / rate["tiny:0"], cpu[c]
    }
    r2 = rate["tiny:2"] / rate["tiny:0"]
    printf "  -np 2 against --jobs 1, sharing the machine: %.2fx\n", r2
    if ("tiny:2p" in rate) {
        p = rate["tiny:2p"] / rate["tiny:0p"]
        printf "  pinned, rank 0 and --jobs 1 each alone on core 0 (the worker on core 1):\n"
        printf "    --jobs 1 %8.0f points/s, -np 2 %8.0f points/s (%.2fx)\n", rate["tiny:0p"], rate["tiny:2p"], p
        printf "  target: rank 0 no slower than --jobs 1 on the same core (>= 0.95x): %s\n", (p >= 0.95 ? "PASS" : "MISS")
    }
    printf "slow points (about %.1f ms each):\n", 1e3 / rate["slow:0"]
    printf "  --jobs 1  %8.1f points/s\n", rate["slow:0"]
    s = rate["slow:3"] / rate["slow:0"]
    printf "  -np 3     %8.1f points/s (%.2fx --jobs 1), rank 0 %.1f us CPU/point\n", rate["slow:3"], s, cpu["slow:3"]
    printf "  target: -np 3 near 2x on 2 cores (>= 1.8x): %s\n", (s >= 1.8 ? "PASS" : "MISS")
}'
