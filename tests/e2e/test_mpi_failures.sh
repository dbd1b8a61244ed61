# MPI when a rank dies or stops (docs/mpi.md, "When a rank dies"), on one
# node with mpirun -np 3. `mpirun --enable-recovery` keeps the job going
# when one process dies, as srun did across nodes (issue 29), so what is
# checked here is runner's own liveness, not the launcher's teardown:
# - kill -9 of a worker: rank 0 notices within RUNNER_MPI_LIVENESS_S, ends
#   the sweep `interrupted` with the points done stored (each row valid),
#   names the rank and host, and aborts the job, so mpirun returns;
# - kill -9 of rank 0: every worker notices and leaves;
# - SIGTERM to a worker: it leaves at once and rank 0 ends the sweep;
# - --resume then completes the sweep to the rows of one process.
# The points are the `slow` fixture's (sleep_s each), so a rank can be
# killed mid-sweep; every wait is on state, its limit only a failure guard.
. tests/e2e/lib.sh
. tests/e2e/mpi_lib.sh
export RUNNER_MPI_LIVENESS_S=4
WAIT_LIMIT_S=60 # the liveness timeout below is 4 s
PLUGINS="$RUNNER_FIXTURES/slow"
host=$(hostname)
script=$(write_script slow.lua <<'LUA'
sweep("slow", { x = range(1, 40), sleep_s = 0.25 }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/whole.db" --plugin-dir "$PLUGINS" --jobs 4 --quiet
expect_status 0

# start NAME: mpirun -np 3 --enable-recovery on $TMP/NAME.db in the
# background ($launcher), until two points are stored.
start() {
    DB="$TMP/$1.db"
    mpirun --enable-recovery --oversubscribe -np 3 "$RUNNER" sweep "$script" --db "$DB" \
        --plugin-dir "$PLUGINS" --quiet >"$TMP/$1.out" 2>"$TMP/$1.err" &
    launcher=$!
    wait_until "$1: two points stored" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 2 ] || ! alive $launcher'
    alive $launcher || fail "$1: mpirun ended before the rank was killed"
}
# end NAME: waits for mpirun to end (it must, by itself); if the wait gives
# up, the test has failed and mpirun is stopped so the test ends too.
end() {
    wait_until "mpirun to end ($1)" '! alive $launcher' || kill -TERM "$launcher"
    wait_exit $launcher
}
# rank_pid R: the pid of rank R (the ranks are mpirun's children).
rank_pid() {
    for pid in $(pgrep -P "$launcher"); do
        if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
            echo "$pid"
        fi
    done
}
# stored_ok: the sweep ended interrupted with some points, not all, and
# every stored row is the one its point asked for.
stored_ok() {
    run "$RUNNER" sweeps --db "$DB" --format csv
    expect_equal "$1: the sweep" "$(cut -d, -f1,5 "$TMP/out" | tail -1)" "1,interrupted"
    n=$(sql "SELECT count(*) FROM point")
    [ "$n" -gt 0 ] && [ "$n" -lt 40 ] || fail "$1: $n points stored (expected some, not all 40)"
    expect_sql "SELECT count(*) FROM point p JOIN slow s ON s.point_id = p.id WHERE p.status = 'ok' AND s.y = json_extract(p.params_json, '\$.x') AND s.x = s.y" "$n"
}

# 1. kill -9 of a worker: rank 0 ends the sweep and aborts the job.
start worker_killed
worker=$(rank_pid 1)
kill -KILL "$worker"
end "a worker killed"
grep -qx "runner: rank 1 on $host sent nothing for 4 s (its process is gone, stopped or cut off); ending the sweep, the points done are stored" \
    "$TMP/worker_killed.err" || fail "rank 0 did not name the dead worker: $(grep runner: "$TMP/worker_killed.err")"
grep -q "^runner: interrupted; finished points are stored" "$TMP/worker_killed.err" ||
    fail "rank 0 did not end the sweep interrupted"
stored_ok "worker killed"

# 2. --resume on 3 ranks completes it to the rows of one process.
run mpirun --oversubscribe -np 3 "$RUNNER" sweep "$script" --db "$DB" --plugin-dir "$PLUGINS" --resume --quiet
expect_status 0
expect_sql "SELECT status FROM sweep" "ok"
compare_rows "SELECT ordinal, params_json, identity, seed, status, error, row_count FROM point ORDER BY ordinal" \
    "$TMP/whole.db" "$DB" "points after --resume"
compare_rows "SELECT x, sleep_s, y FROM slow ORDER BY x" "$TMP/whole.db" "$DB" "rows after --resume"

# 3. kill -9 of rank 0: the workers notice and leave.
start rank0_killed
workers="$(rank_pid 1) $(rank_pid 2)"
kill -KILL "$(rank_pid 0)"
for w in $workers; do
    wait_until "worker $w to leave after rank 0 was killed" '! alive '"$w"
done
end "rank 0 killed"
for r in 1 2; do
    grep -qx "runner: rank 0 on $host sent nothing for 4 s (its process is gone, stopped or cut off): rank $r on $host leaves" \
        "$TMP/rank0_killed.err" || fail "worker $r did not say why it left"
done
run "$RUNNER" sweeps --db "$DB" --format csv
expect_equal "the sweep of a killed rank 0" "$(cut -d, -f1,5 "$TMP/out" | tail -1)" "1,interrupted"

# 4. SIGTERM to a worker: it leaves by itself (mpirun --enable-recovery
# sends no SIGKILL: a worker deaf to SIGTERM stays until the wait below
# gives up), and rank 0, told by it, names it and ends the sweep.
start worker_stopped
worker=$(rank_pid 2)
kill -TERM "$worker"
wait_until "the worker to leave on SIGTERM" '! alive '"$worker"
end "a worker stopped"
grep -qx "runner: rank 2 on $host stopped (SIGTERM or Ctrl-C); ending the sweep, the points done are stored" \
    "$TMP/worker_stopped.err" || fail "rank 0 did not name the stopped worker"
stored_ok "worker stopped"

# 5. A liveness timeout too short to tell a busy rank from a dead one is
# refused, on every rank, before any database is touched.
RUNNER_MPI_LIVENESS_S=1 run mpirun --oversubscribe -np 2 "$RUNNER" sweep "$script" --db "$TMP/short.db" --plugin-dir "$PLUGINS" --quiet
[ "$status" != 0 ] || fail "RUNNER_MPI_LIVENESS_S=1 was accepted"
expect_stderr_contains "runner: RUNNER_MPI_LIVENESS_S is '1'; it takes seconds, at least 2"
[ ! -e "$TMP/short.db" ] || fail "the database was created although the liveness timeout was refused"

# Rank 0 keeps the sweep's lease renewed while a long point runs on a
# worker: the lease thread commits rank 0's open batch under store_lock as
# it does for local threads (before, renewal waited behind the batch).
long=$(write_script long.lua <<'LUA'
sweep("slow", { x = range(1, 2), sleep_s = 3 }, { print = false })
LUA
)
DB="$TMP/lease.db"
RUNNER_LEASE_SECONDS=0.5 mpirun --oversubscribe -np 2 "$RUNNER" sweep "$long" --db "$DB" \
    --plugin-dir "$PLUGINS" --quiet >"$TMP/lease.out" 2>"$TMP/lease.err" &
launcher=$!
: >"$TMP/renewals"
wait_until "three lease renewals while the points run" \
    'sqlite3 -readonly "$DB" "SELECT lease_renewed_at FROM sweep" >>"$TMP/renewals" 2>/dev/null;
     [ "$(sort -u "$TMP/renewals" | grep -c .)" -ge 3 ] || ! alive $launcher'
[ "$(sort -u "$TMP/renewals" | grep -c .)" -ge 3 ] ||
    fail "the lease was not renewed while the points ran: $(sort -u "$TMP/renewals" | tr '\n' ' ')"
wait_exit $launcher || fail "the long sweep under mpirun failed: $(cat "$TMP/lease.err")"
expect_sql "SELECT status, (SELECT count(*) FROM point) FROM sweep" "ok|2"
finish
