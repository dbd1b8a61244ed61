# MPI (docs/mpi.md): real mpirun runs on 2 and 4 ranks store the rows a
# single process stores, point for point (every column but timing); the
# equivalence plugin reduces its shards across the ranks; comm measures a
# real allreduce; a failing point on a worker rank is recorded like any
# other; a worker killed with SIGKILL leaves the committed points committed
# and --resume completes the sweep. Skipped (77) without mpirun, or when
# runner was built without MPI; under make test either is a failure.
. tests/e2e/lib.sh
. tests/e2e/mpi_lib.sh
mpi() {
    ranks=$1
    shift
    mpirun --oversubscribe -np "$ranks" "$RUNNER" "$@"
}
POINT_COLUMNS="id, sweep_id, section_id, ordinal, params_json, identity, seed, status, error, row_count"

# 1. The walk-through on 1, 2 and 4 ranks.
run "$RUNNER" sweep scripts/seed.lua --db "$TMP/one.db" --quiet
expect_status 0
run mpi 2 sweep scripts/seed.lua --db "$TMP/two.db" --quiet
if grep -q "built without MPI" "$TMP/err"; then
    skip_missing "MPI support" "runner was built without MPI (RUNNER_MPI=OFF, or no libopenmpi-dev)"
fi
expect_status 0
run mpi 4 sweep scripts/seed.lua --db "$TMP/four.db" --quiet
expect_status 0
for db in two four; do
    compare_rows "SELECT $POINT_COLUMNS FROM point ORDER BY id" "$TMP/one.db" "$TMP/$db.db" "seed.lua points, $db ranks"
    for t in comm straggler sharding speedup; do
        compare_rows "SELECT * FROM $t ORDER BY row_id" "$TMP/one.db" "$TMP/$db.db" "seed.lua $t, $db ranks"
    done
    # equivalence reduces across the ranks: the same rows but for `ranks`,
    # and differences that may move in the last bits (the order of additions).
    compare_rows "SELECT row_id, point_id, samples, features, shards, split, seed, weighting, grad_max_abs, shard_min, shard_max FROM equivalence ORDER BY row_id" "$TMP/one.db" "$TMP/$db.db" "seed.lua equivalence, $db ranks"
done
DB="$TMP/one.db"
expect_sql "SELECT DISTINCT ranks FROM equivalence" "1"
DB="$TMP/four.db"
expect_sql "SELECT DISTINCT ranks FROM equivalence" "4"
expect_sql "ATTACH '$TMP/one.db' AS one; SELECT count(*) FROM equivalence f JOIN one.equivalence o USING (row_id) WHERE abs(f.max_abs_diff - o.max_abs_diff) <= 1e-14 * o.grad_max_abs" "4"

# 2. A Monte Carlo sweep (each point's stream comes from its identity).
script=$(write_script mc.lua <<'LUA'
sweep("straggler", { workers = {1, 8, 64}, trials = 2000, seed = range(1, 12),
                     law = {"uniform", "pareto"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/mc1.db" --quiet --jobs 2
expect_status 0
for ranks in 2 4; do
    run mpi $ranks sweep "$script" --db "$TMP/mc$ranks.db" --quiet
    expect_status 0
    compare_rows "SELECT $POINT_COLUMNS FROM point ORDER BY id" "$TMP/mc1.db" "$TMP/mc$ranks.db" "Monte Carlo points, $ranks ranks"
    compare_rows "SELECT * FROM straggler ORDER BY row_id" "$TMP/mc1.db" "$TMP/mc$ranks.db" "Monte Carlo rows, $ranks ranks"
done
DB="$TMP/mc4.db"
expect_sql "SELECT count(*) FROM point WHERE status = 'ok'" "72"

# 3. Collective plugins on 4 ranks: equivalence's real allreduce, and comm
# timing one (measure = true) beside its prediction.
script=$(write_script collective.lua <<'LUA'
sweep("equivalence", { samples = 10000, shards = {8, 64}, split = "uneven" }, { print = false })
sweep("comm", { model_params = {1000, 100000}, workers = 4, measure = true }, { print = false })
sweep("comm", { model_params = 1000, workers = 4 }, { print = false })
LUA
)
DB="$TMP/coll.db"
run mpi 4 sweep "$script" --db "$DB" --quiet
expect_status 0
expect_sql "SELECT count(*), min(ranks), max(ranks) FROM equivalence" "4|4|4"
expect_sql "SELECT count(*) FROM equivalence WHERE weighting = 'weighted' AND rel_diff < 1e-14 AND rel_diff_eps < 64" "2"
expect_sql "SELECT count(*) FROM equivalence WHERE weighting = 'plain' AND rel_diff > 1e-2" "2"
expect_sql "SELECT count(*) FROM comm WHERE measure = 1 AND measured_ranks = 4 AND measured_time_s > 0 AND measured_bytes = model_params * 8 AND abs(measured_algbw_bytes_per_s - measured_bytes / measured_time_s) <= 1e-9 * measured_algbw_bytes_per_s AND abs(measured_busbw_bytes_per_s - 1.5 * measured_algbw_bytes_per_s) <= 1e-9 * measured_busbw_bytes_per_s" "4"
# Without measure the row is the model's alone, as in one process.
expect_sql "SELECT count(*) FROM comm WHERE measure = 0 AND measured_time_s IS NULL AND measured_ranks IS NULL" "2"

# 4. A point failing on a worker rank is stored with its message, as in one
# process; rank 0 only hands out points, so every point ran on a worker.
script=$(write_script failing.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3}, fail = {false, true}, rows = 2 }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/fail1.db" --plugin-dir "$RUNNER_FIXTURES/good" --quiet
expect_status 1
run mpi 2 sweep "$script" --db "$TMP/fail2.db" --plugin-dir "$RUNNER_FIXTURES/good" --quiet
expect_status 1
expect_stderr_contains 'runner: testkit point 1 {"x":1.0,"rows":2,"fail":true,"label":"a"} failed: testkit: asked to fail at x = 1'
DB="$TMP/fail2.db"
expect_sql "SELECT status, count(*), min(error) FROM point GROUP BY status ORDER BY status" "failed|3|testkit: asked to fail at x = 1
ok|3|"
compare_rows "SELECT $POINT_COLUMNS FROM point ORDER BY id" "$TMP/fail1.db" "$TMP/fail2.db" "failing points"
compare_rows "SELECT * FROM testkit ORDER BY row_id" "$TMP/fail1.db" "$TMP/fail2.db" "failing points' rows"

# 5. A plugin missing on a worker rank stops the run before any point.
mkdir "$TMP/only_rank0"
cp "$RUNNER_FIXTURES/good/testkit.so" "$TMP/only_rank0/"
run mpirun --oversubscribe -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec "$0" "$@" --plugin-dir "'"$TMP"'/only_rank0"; else exec "$0" "$@"; fi' \
    "$RUNNER" sweep "$script" --db "$TMP/missing.db" --quiet
[ "$status" != 0 ] || fail "a plugin missing on rank 1 did not stop the run"
expect_stderr_contains "runner: rank 1 on "
expect_stderr_contains "unknown plugin 'testkit'"
expect_stderr_contains "every rank needs the same plugins (same --plugin-dir, same build)"

# 5a. Another build of the plugin on a worker rank (the same file with one
# byte more): the run stops before the section's first point, says which
# rank and builds, and the sweep ends `error` (it stopped on an error, not
# on storing); with the same plugins everywhere, --resume finishes it.
mkdir "$TMP/other_build"
cp "$RUNNER_FIXTURES/good/testkit.so" "$TMP/other_build/"
printf 'x' >>"$TMP/other_build/testkit.so"
run mpirun --oversubscribe -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec "$0" "$@" --plugin-dir "'"$RUNNER_FIXTURES"'/good"; else exec "$0" "$@" --plugin-dir "'"$TMP"'/other_build"; fi' \
    "$RUNNER" sweep "$script" --db "$TMP/other.db" --quiet
expect_status 2
sha_0=$(sha256sum "$RUNNER_FIXTURES/good/testkit.so" | cut -c1-16)
sha_1=$(sha256sum "$TMP/other_build/testkit.so" | cut -c1-16)
expect_equal "the plugin mismatch lines" "$(grep '^runner:' "$TMP/err")" "runner: rank 1 on $(hostname): its plugin testkit ($TMP/other_build/testkit.so, sha256 $sha_1...) is another build than rank 0's (sha256 $sha_0...); every rank needs the same plugins (same --plugin-dir, same build)
runner: sweep 1 stopped in $TMP/other.db before section 1 ran: not every rank can run its plugin; what was committed is kept, and once every rank has the same plugins --resume finishes the sweep"
DB="$TMP/other.db"
expect_sql "SELECT status, (SELECT count(*) FROM point) FROM sweep" "error|0"
run mpi 2 sweep "$script" --db "$DB" --plugin-dir "$RUNNER_FIXTURES/good" --resume --quiet
expect_status 1
expect_sql "SELECT status FROM sweep" "failed"
compare_rows "SELECT $POINT_COLUMNS FROM point ORDER BY id" "$TMP/fail1.db" "$DB" "points after the plugins agree"

# 5b. Another runner build on a worker rank (a copy of the binary with one
# byte more: the same version, another SHA-256) stops the run before any
# point, with one line naming the rank, its host and both builds.
cp "$RUNNER" "$TMP/runner-other"
printf 'x' >>"$TMP/runner-other"
run mpirun --oversubscribe -np 1 "$RUNNER" sweep "$script" --db "$TMP/builds.db" --quiet : \
    -np 1 "$TMP/runner-other" sweep "$script" --db "$TMP/builds.db" --quiet
expect_status 2
version=$("$RUNNER" --version | awk '{ print $2 }')
sha_0=$(sha256sum "$RUNNER" | cut -c1-16)
sha_1=$(sha256sum "$TMP/runner-other" | cut -c1-16)
host=$(hostname)
expect_equal "the build mismatch line" "$(grep '^runner:' "$TMP/err")" "runner: rank 1 on $host runs another runner build (version $version, sha256 $sha_1...) than rank 0 on $host (version $version, sha256 $sha_0...); every rank needs the same runner (the same binary on a shared file system, or an identical install)"
[ ! -e "$TMP/builds.db" ] || fail "the database was created although the builds differ"

# 6. SIGKILL one worker mid-sweep: Open MPI tears the job down (rank 0 gets
# SIGTERM, then SIGKILL a second later); what rank 0 wrote is committed, and
# --resume on 2 ranks completes the sweep with the rows of an uninterrupted
# run.
script=$(write_script slow.lua <<'LUA'
sweep("straggler", { workers = 512, trials = 40000, seed = range(1, 80) }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/whole.db" --quiet --jobs 2
expect_status 0
DB="$TMP/killed.db"
mpirun --oversubscribe -np 3 "$RUNNER" sweep "$script" --db "$DB" --quiet >"$TMP/out" 2>"$TMP/err" &
launcher=$!  # mpirun itself: the ranks are its children
killed=""
tries=0
while [ $tries -lt 15000 ] && [ -z "$killed" ]; do
    tries=$((tries + 1))
    committed=$(sqlite3 -batch "$DB" "SELECT count(*) FROM point" 2>/dev/null || echo 0)
    if [ "${committed:-0}" -ge 2 ]; then
        for pid in $(pgrep -P "$launcher"); do
            if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then
                kill -KILL "$pid" && killed=$pid
            fi
        done
    fi
    [ -n "$killed" ] || sleep 0.02
done
wait_exit $launcher
status=$?
if [ -z "$killed" ]; then
    fail "no worker rank to kill (did the sweep finish in under $tries polls?)"
else
    [ "$status" != 0 ] || fail "mpirun exited 0 after a worker was killed"
    committed=$(sql "SELECT count(*) FROM point")
    [ "$committed" -ge 2 ] || fail "only $committed points committed after the kill"
    [ "$committed" -lt 80 ] || fail "all 80 points stored although a worker was killed"
    # Rank 0 marks it on mpirun's SIGTERM; were it SIGKILLed first, readers
    # see its process gone: 'interrupted' either way.
    run "$RUNNER" sweeps --db "$DB" --format csv
    expect_equal "the killed run's sweep" "$(cut -d, -f1,5 "$TMP/out" | tail -1)" "1,interrupted"
    run mpi 2 sweep "$script" --db "$DB" --resume --quiet
    expect_status 0
    expect_stderr_contains "already stored"
    expect_sql "SELECT status FROM sweep" "ok"
    compare_rows "SELECT ordinal, params_json, identity, seed, status FROM point ORDER BY ordinal" "$TMP/whole.db" "$DB" "points after --resume"
    compare_rows "SELECT workers, trials, seed, compute_s, max_delay_s, max_delay_exact_s, round_s, wait_share FROM straggler ORDER BY seed" "$TMP/whole.db" "$DB" "rows after --resume"
fi
finish
