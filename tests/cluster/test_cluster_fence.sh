# Fencing across nodes (issue 36; docs/guarantees.md, "Fencing"): a shard's
# writer on one node of the cluster (cluster_lib.sh: three nodes on this
# machine) loses its sweep while it still lives, and stores nothing more.
#   p. paused: the task's runner is stopped (SIGSTOP) at point 10 of 40 past
#      its lease; `runner resume` on another node takes the sweep over and
#      finishes it. Continued, the paused writer stops at its next batch
#      with its one line and exit status 5 (the task FAILED); the merge job
#      (afterany) merges the finished shard.
#   n. a network cut: the node's link goes down and its writer freezes (a
#      node that lost its shared file system too: here the file system is
#      this machine's, so SIGSTOP plays the hang); the node is set DOWN, as
#      slurmctld does itself once SlurmdTimeout (30 s) passes; Slurm
#      requeues the task on another node, which takes the sweep over. When
#      the file system comes back (SIGCONT) the old writer stops at its
#      next batch with its line, and then the link heals.
# Each ends with every point stored once (count and EXCEPT both ways
# against one process) in the shard and in the merge.
if [ -z "${RUNNER_CLUSTER_LOCKED:-}" ] && command -v flock >/dev/null; then
    RUNNER_CLUSTER_LOCKED=1 exec flock -o /tmp/runner-cluster.lock sh "$0" "$@"
fi
. tests/cluster/cluster_lib.sh

# Point 10 waits at a gate while DIR/gate.on exists; every point prints its
# own square. The gate's directory is the point's second argument.
cat >"$TMP/point.sh" <<'SH'
#!/bin/sh
if [ "$1" = 10 ] && [ -e "$2/gate.on" ]; then
    touch "$2/started.10"
    while [ ! -e "$2/go" ]; do sleep 0.02; done
fi
echo "{\"sq\": $(($1 * $1))}"
SH
chmod +x "$TMP/point.sh"
# fenced_script CASE: a sweep of 40 command points whose point 10 waits at
# $TMP/CASE's gate.
fenced_script() {
    mkdir -p "$TMP/$1"
    write_script "$1.lua" <<LUA
command "sq" { argv = { "$TMP/point.sh", "{i}", "$TMP/$1" },
  params = { i = { type = "integer", min = 0, max = 100 } },
  columns = { { name = "sq", type = "integer" } } }
sweep("sq", { i = range(0, 39) }, { print = false })
LUA
}
pause=$(fenced_script pause)
cut=$(fenced_script cut)
"$RUNNER" sweep "$pause" --db "$TMP/ref.db" --quiet --jobs 1 2>/dev/null || fail "the one-process run failed"
SQ_ROWS="SELECT p.identity, r.i, r.sq FROM point AS p JOIN sq AS r ON r.point_id = p.id"

# stop_unlocked PID DB: SIGSTOP PID at a moment it holds no write lock on
# DB's -shm file (/proc/locks), letting it run on and trying again
# otherwise: a writer stopped inside a write transaction holds SQLite's
# lock, and a takeover would wait for it (docs/guarantees.md, "Fencing").
stop_unlocked() {
    stop_pid=$1
    shm_inode=$(stat -c %i "$2-shm")
    tries=0
    while :; do
        kill -STOP "$1"
        wait_for "pid $1 to stop" 10 'all_stopped "$stop_pid"'
        grep -Eq "POSIX +ADVISORY +WRITE +$1 +[0-9a-f]+:[0-9a-f]+:$shm_inode " /proc/locks || return 0
        kill -CONT "$1"
        tries=$((tries + 1))
        [ $tries -lt 500 ] || {
            fail "the writer held the write lock at every one of 500 stops"
            return 1
        }
        sleep 0.01
    done
}
# other_node NODE: a node of n1 n2 n3 that is not NODE.
other_node() {
    for n in n1 n2 n3; do
        [ "$n" != "$1" ] && echo "$n" && return 0
    done
}
# writer_of SCRIPT ARRAY: "pid node" of the runner running SCRIPT in ARRAY.
writer_of() {
    writer_script=$1 writer_array=$2
    wait_for "the task's runner" 30 \
        'task_of "sweep $writer_script" "SLURM_ARRAY_JOB_ID=$writer_array" >/dev/null' &&
        task_of "sweep $writer_script" "SLURM_ARRAY_JOB_ID=$writer_array"
}
# taken_over_line LOG: the displaced writer's line is in LOG (the task's
# output; grep -a: a requeued run may have rewritten the file under it).
taken_over_line() {
    grep -aEq "^runner: sweep 1 was taken over by n[123]:[0-9]+ at [0-9T:.-]+Z?; this process stops; its last point was not stored and the new owner runs it\$" "$1"
}

# start_gated CASE LETTER SCRIPT JOBDIR DB: submits SCRIPT as one shard
# (its database JOBDIR/shard-1.db, the merge DB) with point 10 gated, and
# waits for point 10 to start. Sets array, merge, writer (the task's
# runner), node (where it runs) and shard.
start_gated() {
    touch "$TMP/$1/gate.on"
    run on login "$RUNNER" slurm "$3" --shards 1 --db-dir "$TMP/$4" --db "$TMP/$5" --time 5:00 \
        --jobs 1 --submit
    expect_status 0
    submitted
    gated_case=$1
    wait_for "$2. point 10 to start" 60 '[ -e "$TMP/$gated_case/started.10" ]'
    target=$(writer_of "$3" "$array") || {
        fail "$2. no runner of the shard's task found"
        finish
    }
    writer=${target% *} node=${target#* }
    shard="$TMP/$4/shard-1.db"
}

# ---- p. paused past its lease, resumed on another node --------------------
start=$(now)
start_gated pause p "$pause" pj pause.db
stop_unlocked "$writer" "$shard"
stored_before=$(db_count "$shard" "SELECT count(*) FROM point")
wait_for "p. a reader on login to see the paused shard interrupted" 30 'reader_sees "$shard" interrupted'
rm "$TMP/pause/gate.on"
resumer=$(other_node "$node")
run on "$resumer" "$RUNNER" resume 1 --db "$shard" --quiet --jobs 1
expect_status 0
expect_equal "p. the new owner" "$(sqlite3 "$shard" "SELECT pid_host, owner_epoch, status FROM sweep WHERE id = 1")" \
    "$resumer|2|ok"
kill -CONT "$writer"
touch "$TMP/pause/go"
wait_job "$merge"
timing "p. paused, taken over on another node, continued, merged" "$start"
taken_over_line "$TMP/pj/shard-1.log" || fail "p. the paused writer's line: $(cat -v "$TMP/pj/shard-1.log")"
expect_equal "p. the paused task (exit 5)" "$(job_state "$array")" "FAILED "
on login scontrol show job "$array" | grep -q "ExitCode=5:0" ||
    fail "p. the task's exit code: $(on login scontrol show job "$array" | grep -o 'ExitCode=[0-9:]*')"
expect_equal "p. the merge job" "$(job_state "$merge")" "COMPLETED "
[ "$stored_before" -ge 1 ] && [ "$stored_before" -le 10 ] ||
    fail "p. the paused writer had stored $stored_before points before point 10"
expect_equal "p. points in the shard" "$(sqlite3 "$shard" "SELECT count(*), count(DISTINCT ordinal) FROM point")" "40|40"
same_rows "$shard" "$TMP/ref.db" "p. the shard" "$SQ_ROWS"
[ -f "$TMP/pause.db" ] && same_rows "$TMP/pause.db" "$TMP/ref.db" "p. the merge" "$SQ_ROWS"

# ---- n. a network cut: requeued on another node, the old writer fenced ----
start=$(now)
start_gated cut n "$cut" cj cut.db
ns="$(cat "$CL/prefix")-$node"
expect_equal "n. the writer's network namespace" "$(ip netns identify "$writer")" "$ns"
ip -n "$ns" link set eth0 down
stop_unlocked "$writer" "$shard"
cut_at=$(now)
on login scontrol update nodename="$node" state=down reason="network cut (test_cluster_fence)"
wait_for "n. the task to be requeued" 30 \
    'on login scontrol show job "$array" | grep -q "JobState=PENDING.*Reason=BeginTime"'
rm "$TMP/cut/gate.on"
# Slurm holds a requeued task until its credential expires; release it.
on login scontrol update jobid="$array" StartTime=now
wait_for "n. the requeued task to finish the sweep" 90 \
    '[ "$(db_count "$shard" "SELECT count(*) FROM sweep WHERE id = 1 AND status = '"'ok'"'")" = 1 ]'
timing "n. cut, requeued on another node, finished" "$cut_at"
new_host=$(sqlite3 "$shard" "SELECT pid_host FROM sweep WHERE id = 1")
[ "$new_host" != "$node" ] || fail "n. the requeued task ran on the cut node $node"
expect_equal "n. the sweep's claims" "$(sqlite3 "$shard" "SELECT owner_epoch FROM sweep WHERE id = 1")" 2
# The file system comes back: the old writer's next batch rolls back.
kill -CONT "$writer"
touch "$TMP/cut/go"
wait_for "n. the old writer to stop" 30 '! kill -0 "$writer" 2>/dev/null'
taken_over_line "$TMP/cj/shard-1.log" || fail "n. the old writer's line: $(cat -v "$TMP/cj/shard-1.log")"
ip -n "$ns" link set eth0 up
on login scontrol update nodename="$node" state=resume
wait_job "$merge"
timing "n. network cut to merge" "$start"
expect_equal "n. the requeued task" "$(job_state "$array")" "COMPLETED "
expect_equal "n. the merge job" "$(job_state "$merge")" "COMPLETED "
expect_equal "n. points in the shard" "$(sqlite3 "$shard" "SELECT count(*), count(DISTINCT ordinal) FROM point")" "40|40"
same_rows "$shard" "$TMP/ref.db" "n. the shard" "$SQ_ROWS"
[ -f "$TMP/cut.db" ] && same_rows "$TMP/cut.db" "$TMP/ref.db" "n. the merge" "$SQ_ROWS"
finish
