# runner slurm when tasks fail or run out of time (docs/slurm.md, "Failed
# and timed-out tasks"), on a one-node Slurm of the test's own
# (slurm_lib.sh; cred_expire=10, so a requeued task waits 10 s, not 120):
# 1. A task that fails: the merge job (afterany) still runs, merges the
#    complete shards into complete.db, names the failed one in merge.log
#    with the command that runs it; that one command (--resubmit) submits
#    only that shard and a new merge, which equals one process. No job is
#    left pending.
# 2. A shard longer than its time limit (--time 1:00 --requeue-before 45):
#    it stops after its running point 45 s before the limit, requeues
#    itself and finishes in a later allocation with no hand; the merge
#    equals one process.
# 3. The switches reach sbatch: --array-throttle, --mem (and the merge
#    job's estimate), --sbatch-arg with a value that needs quoting.
. tests/e2e/lib.sh
. tests/e2e/slurm_lib.sh

# same_rows DB ONE WHAT [ROWS]: DB's points and rows (the speedup rows,
# else the query ROWS) equal ONE's (count, and EXCEPT both ways).
same_rows() {
    for q in "SELECT c.ordinal, p.ordinal, p.params_json, p.identity, p.seed, p.status FROM point AS p JOIN section AS c ON c.id = p.section_id" \
        "${4:-SELECT p.identity, r.workers, r.jitter, r.speedup FROM point AS p JOIN speedup AS r ON r.point_id = p.id}"; do
        expect_equal "$3: count" "$(sqlite3 "$1" "SELECT count(*) FROM ($q)")" \
            "$(sqlite3 "$2" "SELECT count(*) FROM ($q)")"
        expect_equal "$3: rows one process lacks" \
            "$(sqlite3 "$1" "ATTACH '$2' AS one; $q EXCEPT $(echo "$q" | sed 's/\(FROM\|JOIN\) \([a-z]*\)/\1 one.\2/g')")" ""
        expect_equal "$3: rows it lacks" \
            "$(sqlite3 "$1" "ATTACH '$2' AS one; $(echo "$q" | sed 's/\(FROM\|JOIN\) \([a-z]*\)/\1 one.\2/g') EXCEPT $q")" ""
    done
}

# 1. Shard 2 of 3 fails: its database's place is taken by a directory.
script=$(write_script grid.lua <<'LUA'
sweep("speedup", { workers = range(1, 30), jitter = {0.5, 2}, trials = 2000 }, { print = false })
LUA
)
"$RUNNER" sweep "$script" --db "$TMP/single.db" --quiet --jobs 1 2>/dev/null || fail "the single-process run failed"
mkdir -p "$TMP/fail/shard-2.db"
run "$RUNNER" slurm "$script" --shards 3 --db-dir "$TMP/fail" --db "$TMP/merged.db" --time 5:00 --submit
expect_status 0
array=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\1/p' "$TMP/out")
merge=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\2/p' "$TMP/out")
[ -n "$array" ] && [ -n "$merge" ] || fail "runner slurm --submit printed: $(cat "$TMP/out" "$TMP/err")"
wait_job "$merge"
expect_equal "the array's tasks" "$(job_state "$array")" "COMPLETED FAILED "
expect_equal "the merge job" "$(job_state "$merge")" "FAILED "  # it ran: afterany
grep -qF "runner: slurm: 1 of 3 shards not complete; the 2 complete ones are merged into $TMP/fail/complete.db" "$TMP/fail/merge.log" ||
    fail "merge.log: $(cat "$TMP/fail/merge.log")"
grep -qF "  shard 2/3: cannot be read: " "$TMP/fail/merge.log" || fail "merge.log: $(cat "$TMP/fail/merge.log")"
rerun=$(sed -n '/^run them and merge again with:$/{n;s/^  //p}' "$TMP/fail/merge.log")
expect_equal "the command merge.log gives" "$rerun" \
    "cd $PWD && $RUNNER slurm $script --shards 3 --db-dir $TMP/fail --db $TMP/merged.db --time 5:00 --resubmit"
[ ! -e "$TMP/merged.db" ] || [ "$(db_count "$TMP/merged.db" "SELECT count(*) FROM sweep")" = 0 ] ||
    fail "the merge job wrote an incomplete sweep into merged.db"
DB="$TMP/fail/complete.db"
expect_sql "SELECT count(*) FROM merge_source" "2"
# The cause gone, the one command: only shard 2, then a new merge.
rmdir "$TMP/fail/shard-2.db"
run sh -c "$rerun"
expect_status 0
expect_stdout_contains "resubmitted 1 of 3 shards (2): array job "
array=$(sed -n 's/^.*: array job \([0-9]*\), merge job \([0-9]*\)$/\1/p' "$TMP/out")
merge=$(sed -n 's/^.*: array job \([0-9]*\), merge job \([0-9]*\)$/\2/p' "$TMP/out")
wait_job "$merge"
expect_equal "the resubmitted task" "$(scontrol show job "$array" | sed -n 's/.*ArrayTaskId=\([0-9]*\).*/\1/p')" "2"
expect_equal "the new merge job" "$(job_state "$merge")" "COMPLETED "
same_rows "$TMP/merged.db" "$TMP/single.db" "the merge after --resubmit"
# Resubmitted with every shard complete: only a merge.
run sh -c "$rerun"
expect_status 0
expect_stdout_contains "every shard of $TMP/fail is complete: merge job "
merge=$(sed -n 's/^.*merge job \([0-9]*\)$/\1/p' "$TMP/out")
wait_job "$merge"
expect_equal "the merge-only job" "$(job_state "$merge")" "COMPLETED "

# 2. A shard of 40 points of 0.5 s run one at a time (--jobs 1; the
# fixture `slow` sleeps: 20 s whatever the load) under a limit of one
# minute, asked to stop 45 s before it: about 15 s per allocation, so one
# requeue or two.
slow=$(write_script slow.lua <<'LUA'
sweep("slow", { x = range(1, 40), sleep_s = {0.5} }, { print = false })
LUA
)
slow_dir="$RUNNER_FIXTURES/slow"
"$RUNNER" sweep "$slow" --plugin-dir "$slow_dir" --db "$TMP/slow.db" --quiet --jobs 8 2>/dev/null ||
    fail "the single-process slow run failed"
run "$RUNNER" slurm "$slow" --shards 1 --db-dir "$TMP/limit" --db "$TMP/limit.db" --time 1:00 \
    --requeue-before 45 --plugin-dir "$slow_dir" --jobs 1 --submit
expect_status 0
array=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\1/p' "$TMP/out")
merge=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\2/p' "$TMP/out")
WAIT_LIMIT_S=400 wait_until "the time-limited shard's merge" \
    '! job_state "$merge" | grep -qE "PENDING|RUNNING|CONFIGURING|COMPLETING|^ *$"'
expect_equal "the time-limited shard" "$(job_state "$array")" "COMPLETED "
restarts=$(scontrol show job "$array" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
[ "${restarts:-0}" -ge 1 ] || fail "the shard was not requeued (Restarts=$restarts): $(cat "$TMP/limit/shard-1.log")"
grep -q "runner: slurm: shard 1 stopped before its time limit; requeued to finish in the next allocation" \
    "$TMP/limit/shard-1.log" || fail "shard-1.log: $(cat "$TMP/limit/shard-1.log")"
grep -q "runner: slurm: shard 1 stops in [0-9]* s, before its time limit" "$TMP/limit/shard-1.log" ||
    fail "the task read no end time from squeue: $(cat "$TMP/limit/shard-1.log")"
expect_equal "the merge job" "$(job_state "$merge")" "COMPLETED "
echo "note: the shard was requeued $(grep -c "requeued to finish" "$TMP/limit/shard-1.log") times" >&2
same_rows "$TMP/limit.db" "$TMP/slow.db" "the time-limited shard's merge" \
    "SELECT p.identity, r.x, r.y FROM point AS p JOIN slow AS r ON r.point_id = p.id"

# 3. The switches, as Slurm reads them back.
run "$RUNNER" slurm "$script" --shards 3 --db-dir "$TMP/sw" --db "$TMP/sw.db" --time 5:00 \
    --array-throttle 1 --mem 100M --sbatch-arg "--comment=a b 'c\" %a" --submit
expect_status 0
array=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\1/p' "$TMP/out")
merge=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\2/p' "$TMP/out")
show=$(scontrol show job "$array" | head -40)
echo "$show" | grep -q "ArrayTaskThrottle=1" || fail "no throttle: $show"
echo "$show" | grep -q "MinMemoryNode=100M" || fail "no --mem: $show"
expect_equal "the comment" "$(scontrol show job "$merge" | sed -n 's/^ *Comment=//p' | sed 's/ *$//')" "a b 'c\" %a"
expect_equal "the merge job's memory" "$(scontrol show job "$merge" | sed -n 's/.*MinMemoryNode=\([^ ]*\).*/\1/p')" "130M"
wait_job "$merge"
expect_equal "the throttled array" "$(job_state "$array")" "COMPLETED "
same_rows "$TMP/sw.db" "$TMP/single.db" "the throttled array's merge"
finish
