# scripts/calibrate_allreduce.lua end to end (docs/science.md, "Calibrating
# alpha and beta"): apps/allreduce_lat under real mpirun -np 2, ring and
# recursive doubling forced through Open MPI's tuned component, one row per
# timed sample; runner fit's alpha-beta lines per algorithm; step 2 reuses
# the measurements and asks the comm plugin for the crossover. A tiny sweep
# (3 sizes, 3 samples): timings are not checked, only what holds on any
# machine. Skipped (77) without mpirun or allreduce_lat; under make test a
# failure.
. tests/e2e/lib.sh
# (mpi_lib.sh: skipped without mpirun, Open MPI's environment)
. tests/e2e/mpi_lib.sh
[ -x "$RUNNER_BUILD/libexec/allreduce_lat" ] ||
    skip_missing allreduce_lat "no $RUNNER_BUILD/libexec/allreduce_lat: runner was built without MPI"
program="$(cd "$RUNNER_BUILD/libexec" && pwd)/allreduce_lat"

run "$program" --bytes 12
expect_status 2
expect_equal "allreduce_lat's error" "$(head -n 1 "$TMP/err")" "allreduce_lat: --bytes 12: not a multiple of 8 (doubles)"

run "$RUNNER" sweep scripts/calibrate_allreduce.lua --db "$DB" --name calib \
    --set bytes=8,4096,65536 --set repeats=3 --set iterations=5
expect_status 0
expect_stdout_contains "Measured on 2 ranks (median of 3 samples, each 5 allreduces):"
expect_stdout_contains "measured crossover: ring "
expect_stdout_contains "runner fit calibrate_allreduce.lua --x bytes --y time_s --model alpha-beta --by algorithm"
# Every sample a row; the algorithm the program ran is the one asked for,
# and the sum is right (1 + 2 on two ranks).
expect_sql "SELECT algorithm_id, algorithm, count(*), count(DISTINCT bytes), min(check_col)
    FROM (SELECT *, \"check\" AS check_col FROM allreduce_lat) GROUP BY 1 ORDER BY 1" \
"3|recursive_doubling|9|3|3.0
4|ring|9|3|3.0"
expect_sql "SELECT count(*) FROM allreduce_lat WHERE time_s > 0 AND exit_status = 0" "18"

run "$RUNNER" fit calib --db "$DB" --x bytes --y time_s --model alpha-beta --by algorithm
expect_status 0
expect_sql "SELECT group_concat(by_value, ',') FROM fit" "recursive_doubling,ring"
param() { sql "SELECT printf('%.17g', p.value) FROM fit f JOIN fit_param p ON p.fit_id = f.id
    WHERE f.by_value = '$1' AND p.name = '$2'"; }
ring_alpha=$(param ring alpha) ring_beta=$(param ring beta)
rd_alpha=$(param recursive_doubling alpha) rd_beta=$(param recursive_doubling beta)

run "$RUNNER" sweep scripts/calibrate_allreduce.lua --db "$DB" --reuse \
    --set bytes=8,4096,65536 --set repeats=3 --set iterations=5 \
    --set ring_alpha="$ring_alpha" --set ring_beta="$ring_beta" \
    --set rd_alpha="$rd_alpha" --set rd_beta="$rd_beta"
expect_status 0
expect_stderr_contains "6 reused"
expect_stdout_contains "From the fits: alpha "
expect_stdout_contains "the fitted lines cross at "
# alpha = rd's intercept over lg 2; beta, gamma from the two slopes. Either
# the comm plugin's answer, or the line saying the fits cannot feed it.
if grep -q "comm predicts: ring faster from" "$TMP/out"; then
    expect_stdout_contains "measured:      ring "
    expect_sql "SELECT abs(latency_s - $rd_alpha) <= 1e-12 * abs($rd_alpha),
        abs(1 / bandwidth_bytes_per_s - (2 * $ring_beta - $rd_beta)) <= 1e-9 * $rd_beta
        FROM comm LIMIT 1" "1|1"
    expect_sql "SELECT count(*) FROM comm WHERE scheme = 'recursive_doubling'
        AND abs(ring_crossover_bytes - 2 * latency_s * reduce_bytes_per_s) <= 1e-6 * ring_crossover_bytes" "1"
else
    expect_stdout_contains "alpha < 0, beta <= 0 or gamma <= 0: the fits do not describe a network"
fi

# A size whose every sample failed (allreduce_lat takes whole doubles: 12
# bytes is refused) is said in the table, and the script goes on.
run "$RUNNER" sweep scripts/calibrate_allreduce.lua --db "$TMP/failed.db" \
    --set bytes=8,12 --set repeats=2 --set iterations=2
expect_status 1
expect_stdout_contains "        12         failed         failed        ?"
expect_stdout_contains "measured crossover: "
expect_stderr_contains "runner: sweep 1 stored in $TMP/failed.db: 2 points ok, 2 failed"
finish
