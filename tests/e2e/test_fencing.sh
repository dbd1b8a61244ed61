# Fencing (issue 36, docs/guarantees.md "Fencing"): a writer paused past its
# lease and taken over by another process stores nothing more: it stops at
# its next batch with one line and exit status 5, and the sweep holds every
# point once, the same rows as one process. Two hosts are played by two
# hostname namespaces (unshare --uts) on this machine: "nodea" writes,
# is stopped with SIGSTOP, "nodeb" resumes; the reader is this host.
# The database also refuses a second row set for a point (point_once).
. tests/e2e/lib.sh
. tests/e2e/fencing_lib.sh

# ---- the one-process reference; point 10 waits at a gate -------------------
gated_sweep 10 fenced

# ---- nodea writes, stops at point 10, its lease expires ---------------------
touch "$TMP/gate.on"
RUNNER_LEASE_SECONDS=0.3 on_host nodea "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1 \
    >"$TMP/a.out" 2>"$TMP/a.err" &
a=$!
wait_until "point 10 to start" '[ -e "$TMP/started.10" ] || ! alive $a'
# A renewal after point 10 started: the lease thread first committed the
# batch holding points before it, so nodea holds no write transaction.
started=$(sql "SELECT lease_renewed_at FROM sweep WHERE id = 1")
wait_until "a renewal during point 10" \
    '[ "$(sql "SELECT lease_renewed_at > $started FROM sweep WHERE id = 1")" = 1 ] || ! alive $a'
runner_pid=$(pgrep -P $a runner || echo $a)
# Stopped while one of its threads (the lease renewal, the series writer)
# is inside a write transaction, nodea would hold SQLite's WAL write lock,
# and a resume would wait for it (docs/guarantees.md, "Fencing"): stop it
# at a moment it holds no lock on the -shm file (/proc/locks), trying again
# after letting it run on otherwise.
shm_inode=$(stat -c %i "$DB-shm")
holds_write_lock() {
    grep -Eq "POSIX +ADVISORY +WRITE +$runner_pid +[0-9a-f]+:[0-9a-f]+:$shm_inode " /proc/locks
}
tries=0
while :; do
    kill -STOP $runner_pid
    wait_until "nodea's threads to stop" 'all_stopped $runner_pid'
    holds_write_lock || break
    kill -CONT $runner_pid
    tries=$((tries + 1))
    [ $tries -lt 500 ] || { fail "nodea held the write lock at every one of 500 stops"; break; }
    sleep 0.01
done
stored_by_a=$(sql "SELECT count(*) FROM point WHERE sweep_id = 1")
wait_until "the stopped writer's lease to expire" \
    '"$RUNNER" sweeps --db "$DB" --format csv | grep -q "^1,.*,interrupted,"'

# ---- nodeb takes over: no --force, since the lease expired -------------------
rm "$TMP/gate.on"
RUNNER_LEASE_SECONDS=0.3 run on_host nodeb "$RUNNER" resume 1 --db "$DB" --quiet --jobs 1
expect_status 0
expect_sql "SELECT pid_host, owner_epoch FROM sweep WHERE id = 1" "nodeb|2"
expect_sql "SELECT count(*) FROM point WHERE sweep_id = 1" "40"

# ---- nodea goes on: its next batch rolls back and it stops -------------------
kill -CONT $runner_pid
touch "$TMP/go"
wait_exit $a
a_status=$?
[ "$a_status" = 5 ] || fail "the displaced writer exited $a_status, expected 5"
b_pid=$(sql "SELECT pid FROM sweep WHERE id = 1")
grep -Eq "^runner: sweep 1 was taken over by nodeb:$b_pid at [0-9T:.-]+Z?; this process stops; its last point was not stored and the new owner runs it\$" "$TMP/a.err" ||
    fail "the displaced writer's line differs: $(cat "$TMP/a.err")"
[ "$(wc -l <"$TMP/a.err")" = 1 ] || fail "the displaced writer said more than its line: $(cat "$TMP/a.err")"
expect_sql "SELECT status FROM sweep WHERE id = 1" "ok"
[ "$stored_by_a" -ge 1 ] && [ "$stored_by_a" -le 10 ] ||
    fail "nodea stored $stored_by_a points before point 10"

# ---- every point once, the same rows as one process --------------------------
expect_sql "SELECT count(*), count(DISTINCT ordinal) FROM point WHERE sweep_id = 1" "40|40"
expect_sql "SELECT count(*), count(DISTINCT i) FROM sq WHERE sweep_id = 1" "40|40"
sqlite3 -batch "$DB" "ATTACH '$TMP/ref.db' AS ref;
    SELECT 'extra', i, sq FROM (SELECT i, sq FROM main.sq EXCEPT SELECT i, sq FROM ref.sq);
    SELECT 'missing', i, sq FROM (SELECT i, sq FROM ref.sq EXCEPT SELECT i, sq FROM main.sq);" \
    >"$TMP/except" || fail "cannot compare with the one-process run"
[ ! -s "$TMP/except" ] || fail "rows differ from one process: $(cat "$TMP/except")"

# ---- the database itself refuses a point stored twice ------------------------
expect_sql "SELECT count(*) FROM point_once" "40"
sqlite3 -batch "$DB" "INSERT INTO point_block (sweep_id, section_id, first_point_id,
    last_point_id, point_count, ok_count, params_base, points)
    SELECT sweep_id, section_id, 1000, 1000, 1, 1, params_base,
    json_array(json_set(json_extract(points, '\$[0]'), '\$[0]', 1000)) FROM point_block LIMIT 1" \
    2>"$TMP/dup.err" && fail "a second row set for a point was stored"
grep -q "UNIQUE constraint failed: point_once" "$TMP/dup.err" ||
    fail "the duplicate was refused for another reason: $(cat "$TMP/dup.err")"
# Removing the sweep frees its points' keys.
run "$RUNNER" rm 1 --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM point_once" "0"
finish
