# A writer stopped inside its write transaction (docs/guarantees.md,
# "Fencing": the bound on a stopped writer's lock): SIGSTOP while one of its
# threads holds SQLite's write lock on the WAL. A resume, once the lease has
# expired, waits for the lock at most the busy timeout (10 s), then stops
# with exit status 2 and one line naming the holder and what to do; nothing
# stored changed. Continued, the stopped writer keeps its sweep and
# finishes it: every point once, the same rows as one process. Two hosts are
# two hostname namespaces (unshare --uts), as in test_fencing.sh.
. tests/e2e/lib.sh
. tests/e2e/fencing_lib.sh

# Quick points, so the writer's batch is open most of the time; point 30
# waits at a gate while $TMP/gate.on exists.
gated_sweep 30 locked

touch "$TMP/gate.on"
RUNNER_LEASE_SECONDS=0.3 on_host nodea "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1 \
    >"$TMP/a.out" 2>"$TMP/a.err" &
a=$!
wait_until "nodea's first stored point" \
    '[ "$(sql "SELECT count(*) FROM point" 2>/dev/null)" -ge 1 ] 2>/dev/null || ! alive $a'
runner_pid=$(pgrep -P $a runner || echo $a)
shm_inode=$(stat -c %i "$DB-shm")
holds_write_lock() {
    grep -Eq "POSIX +ADVISORY +WRITE +$runner_pid +[0-9a-f]+:[0-9a-f]+:$shm_inode " /proc/locks
}
# Stop it at a moment it holds the write lock (its batch open).
tries=0
while :; do
    kill -STOP $runner_pid
    # every thread stopped first: one still running could yet let go of it
    wait_until "nodea's threads to stop" 'all_stopped $runner_pid'
    holds_write_lock && break
    kill -CONT $runner_pid
    tries=$((tries + 1))
    [ $tries -lt 500 ] || { fail "nodea held no write lock at any of 500 stops"; break; }
    sleep 0.005
done
stored_by_a=$(sql "SELECT count(*) FROM point WHERE sweep_id = 1")
wait_until "the stopped writer's lease to expire" \
    '"$RUNNER" sweeps --db "$DB" --format csv | grep -q "^1,.*,interrupted,"'

# nodeb's resume waits the busy timeout, then says who holds the lock.
started=$(date +%s.%N)
RUNNER_LEASE_SECONDS=0.3 run on_host nodeb "$RUNNER" resume 1 --db "$DB" --quiet --jobs 1
waited=$(echo "$(date +%s.%N) - $started" | bc)
expect_status 2
expect_stderr "runner: $DB: sweep 1: another process held the database's write lock for the whole 10 s this process waits (the sweep's owner is nodea:$runner_pid; a process stopped inside a write transaction, by SIGSTOP or scontrol suspend, keeps the lock until it runs again or ends): continue it (kill -CONT) or end it, then resume again"
[ "$(echo "$waited >= 9.5 && $waited < 20" | bc)" = 1 ] ||
    fail "the resume waited $waited s for the lock, not the 10 s busy timeout"
expect_sql "SELECT pid_host, owner_epoch, (SELECT count(*) FROM point) FROM sweep WHERE id = 1" "nodea|1|$stored_by_a"

# Continued, nodea still owns the sweep and finishes it.
kill -CONT $runner_pid
rm "$TMP/gate.on"
wait_exit $a
a_status=$?
[ "$a_status" = 0 ] || fail "the continued writer exited $a_status: $(cat "$TMP/a.err")"
expect_sql "SELECT status, pid_host, owner_epoch FROM sweep WHERE id = 1" "ok|nodea|1"
expect_sql "SELECT count(*), count(DISTINCT ordinal) FROM point WHERE sweep_id = 1" "40|40"
sqlite3 -batch "$DB" "ATTACH '$TMP/ref.db' AS ref;
    SELECT 'extra', i, sq FROM (SELECT i, sq FROM main.sq EXCEPT SELECT i, sq FROM ref.sq);
    SELECT 'missing', i, sq FROM (SELECT i, sq FROM ref.sq EXCEPT SELECT i, sq FROM main.sq);" \
    >"$TMP/except" || fail "cannot compare with the one-process run"
[ ! -s "$TMP/except" ] || fail "rows differ from one process: $(cat "$TMP/except")"
finish
