# runner slurm on a Slurm cluster of three nodes on this machine
# (tests/cluster/cluster.sh, as test_multinode.sh) when tasks fail or run
# out of time (issue 36; docs/slurm.md, "Failed and timed-out tasks"):
#   f. a failed task: the merge job (afterany) runs, names it in merge.log
#      with the command that runs it; that one command (--resubmit),
#      run on login, submits only it and a new merge, equal to one process.
#   g. a shard past its time limit (--time 1:00 --requeue-before 45):
#      stopped after its running point, requeued by its own batch script,
#      resumed in later allocations with no hand (cred_expire=10 in
#      cluster.sh: a requeued task waits 10 s, not 120); its merge equals
#      one process.
# Each ends with rows equal to one process: count, and EXCEPT both ways.
# One cluster at a time on this machine: the whole test holds
# /tmp/runner-cluster.lock (flock -o: the daemons it starts do not inherit
# the lock, so one left by a killed run cannot hold it). Needs root,
# iproute2, util-linux, slurm-wlm and munge; skipped, saying why, where
# namespaces cannot be made, a failure under make test.
if [ -z "${RUNNER_CLUSTER_LOCKED:-}" ] && command -v flock >/dev/null; then
    RUNNER_CLUSTER_LOCKED=1 exec flock -o /tmp/runner-cluster.lock sh "$0" "$@"
fi
. tests/cluster/cluster_lib.sh
grid_reference

# g. A shard of 40 points of 0.5 s run one at a time (--jobs 1; the
# fixture `slow` sleeps: 20 s whatever the load) under a limit of one minute, asked to stop 45 s
# before it: about 15 s per allocation, so one requeue or two. Submitted
# first, and runs beside f.
start_g=$(now)
limit=$(write_script limit.lua <<'LUA'
sweep("slow", { x = range(1, 40), sleep_s = {0.5} }, { print = false })
LUA
)
slow_dir=$(realpath "$RUNNER_FIXTURES/slow")
run on login "$RUNNER" slurm "$limit" --shards 1 --db-dir "$TMP/limit" --db "$TMP/limit.db" --time 1:00 \
    --requeue-before 45 --plugin-dir "$slow_dir" --jobs 1 --submit
expect_status 0
submitted
limit_array=$array limit_merge=$merge
"$RUNNER" sweep "$limit" --plugin-dir "$slow_dir" --db "$TMP/limit-one.db" --quiet --jobs 8 2>/dev/null ||
    fail "the single-process limit.lua failed"

# f. Shard 2 of 3 fails: its database's place is taken by a directory.
start=$(now)
mkdir -p "$TMP/fail/shard-2.db"
run on login "$RUNNER" slurm "$script" --shards 3 --db-dir "$TMP/fail" --db "$TMP/fail.db" --time 5:00 --submit
expect_status 0
submitted
wait_job "$merge"
expect_equal "f. the array's tasks" "$(job_state "$array")" "COMPLETED FAILED "
expect_equal "f. the merge job (it ran: afterany)" "$(job_state "$merge")" "FAILED "
grep -qF "  shard 2/3: cannot be read: " "$TMP/fail/merge.log" || fail "f. merge.log: $(cat "$TMP/fail/merge.log")"
rerun=$(sed -n '/^run them and merge again with:$/{n;s/^  //p}' "$TMP/fail/merge.log")
case $rerun in *" --resubmit") ;; *) fail "f. merge.log gives no command: $(cat "$TMP/fail/merge.log")" ;; esac
timing "f. a failed task: the merge job names it" "$start"
rmdir "$TMP/fail/shard-2.db"
run on login sh -c "$rerun"
expect_status 0
expect_stdout_contains "resubmitted 1 of 3 shards (2): array job "
array=$(sed -n 's/^.*: array job \([0-9]*\), merge job \([0-9]*\)$/\1/p' "$TMP/out")
merge=$(sed -n 's/^.*: array job \([0-9]*\), merge job \([0-9]*\)$/\2/p' "$TMP/out")
wait_job "$merge"
expect_equal "f. the resubmitted shard" "$(job_state "$array")" "COMPLETED "
expect_equal "f. the new merge job" "$(job_state "$merge")" "COMPLETED "
[ -f "$TMP/fail.db" ] && same_rows "$TMP/fail.db" "$TMP/single.db" "f. the merge after --resubmit"
timing "f. a failed task resubmitted by one command and merged" "$start"

wait_job "$limit_merge" 200
timing "g. a shard past its time limit, requeued until done, merged" "$start_g"
expect_equal "g. the time-limited shard" "$(job_state "$limit_array")" "COMPLETED "
restarts=$(on login scontrol show job "$limit_array" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
echo "g. the shard was requeued ${restarts:-0} times" >&2
[ "${restarts:-0}" -ge 1 ] || fail "g. the shard was not requeued: $(cat "$TMP/limit/shard-1.log")"
grep -q "runner: slurm: shard 1 stopped before its time limit; requeued to finish in the next allocation" \
    "$TMP/limit/shard-1.log" || fail "g. shard-1.log: $(cat "$TMP/limit/shard-1.log")"
grep -q "runner: slurm: shard 1 stops in [0-9]* s, before its time limit" "$TMP/limit/shard-1.log" ||
    fail "g. the task read no end time from squeue: $(cat "$TMP/limit/shard-1.log")"
expect_equal "g. the merge job" "$(job_state "$limit_merge")" "COMPLETED "
[ -f "$TMP/limit.db" ] && same_rows "$TMP/limit.db" "$TMP/limit-one.db" "g. the time-limited shard's merge" \
    "SELECT p.identity, r.x, r.y FROM point AS p JOIN slow AS r ON r.point_id = p.id"
finish
