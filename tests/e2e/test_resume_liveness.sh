# Resume's liveness check (issue 20, item 16): a sweep left `running` names
# the process running it by host, boot id, pid and start time (schema 4), and
# resume compares them all. A pid that lives but is another process (reused
# after a reboot, or later on) does not block resume; the very process does;
# when runner cannot tell (another host, a row an older runner wrote) it
# refuses and says what to do, and --force settles that doubt only.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
[ -r /proc/sys/kernel/random/boot_id ] && [ -r /proc/1/stat ] ||
    { echo "SKIP: no /proc here"; exit 77; }
BOOT=$(cat /proc/sys/kernel/random/boot_id)
# start_ticks PID: field 22 of /proc/PID/stat (the name, field 2, may hold blanks).
start_ticks() {
    sed 's/.*) //' "/proc/$1/stat" | cut -d ' ' -f 20
}
INIT_TICKS=$(start_ticks 1)

# ---- a live runner is refused, --force or not ----------------------------------
# The script spins after its first section, so the sweep row stays running.
spin=$(write_script spin.lua <<'LUA'
sweep("testkit", {x = {1, 2}}, {print = false})
while true do end
LUA
)
"$RUNNER" sweep "$spin" --db "$DB" --quiet >/dev/null 2>&1 &
pid=$!
wait_until "the sweep row" '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 2 ] || ! alive $pid'
expect_sql "SELECT pid = $pid, pid_host = host, pid_start_ticks = $(start_ticks $pid),
    pid_boot_id = '$BOOT' FROM sweep WHERE id = 1" "1|1|1|1"
run "$RUNNER" resume 1 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: sweep 1 is still running (pid $pid on this host); wait for it or stop it first"
run "$RUNNER" resume 1 --db "$DB" --force
expect_status 2
expect_stderr "runner: $DB: sweep 1 is still running (pid $pid on this host); wait for it or stop it first"
kill -9 $pid
wait_exit $pid 2>/dev/null
expect_sql "SELECT status FROM sweep WHERE id = 1" "running"

# A script that ends, for the resumes below.
script=$(write_script ends.lua <<'LUA'
sweep("testkit", {x = {1, 2}}, {print = false})
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 0
# left_by SET: sweep 2 left running by the process SET describes (SQL), with
# no lease, as a runner before schema 12 left it (test_lease.sh: leases).
left_by() {
    sql "UPDATE sweep SET status = 'running', ended_at = NULL, lease_renewed_at = NULL,
        lease_period_s = NULL, slurm_job_id = NULL, $1 WHERE id = 2"
}
# resumes: runner resume 2 goes ahead and finishes the sweep.
resumes() {
    run "$RUNNER" resume 2 --db "$DB" "$@"
    expect_status 0
    expect_stderr_contains "sweep 2 resumed in $DB"
    expect_sql "SELECT status, pid_boot_id = '$BOOT' FROM sweep WHERE id = 2" "ok|1"
}

# pid 1 lives (init), but the sweep was running in another boot of this host:
# before schema 4 this was "still running (pid 1 on this host)".
left_by "pid = 1, pid_start_ticks = $INIT_TICKS, pid_boot_id = 'a-boot-before-this-one'"
resumes
# This boot, but pid 1 started at another time: the pid was reused.
left_by "pid = 1, pid_start_ticks = $((INIT_TICKS + 12345)), pid_boot_id = '$BOOT'"
resumes
# pid 1 with its own start time in this boot: that very process. Refused,
# --force or not.
left_by "pid = 1, pid_start_ticks = $INIT_TICKS, pid_boot_id = '$BOOT'"
run "$RUNNER" resume 2 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: sweep 2 is still running (pid 1 on this host); wait for it or stop it first"
run "$RUNNER" resume 2 --db "$DB" --force
expect_status 2

# A row an older runner wrote names a live pid and nothing else: in doubt.
left_by "pid = 1, pid_host = NULL, pid_start_ticks = NULL, pid_boot_id = NULL"
run "$RUNNER" resume 2 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: sweep 2 may still be running (pid 1 on this host is alive, but the sweep does not record which process started it); if it is not running, 'runner resume 2 --force'"
resumes --force
# ... and a dead pid in such a row is no doubt.
left_by "pid = 999999999, pid_host = NULL, pid_start_ticks = NULL, pid_boot_id = NULL"
resumes

# Another host: nothing can be checked from here.
left_by "pid = 4242, pid_host = 'node7.example', pid_start_ticks = 99, pid_boot_id = 'theirs'"
run "$RUNNER" resume 2 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: sweep 2 is still running on host node7.example (pid 4242) or was left by a process that died; if it is not running, 'runner resume 2 --force'"
run "$RUNNER" sweep "$script" --db "$DB" --resume
expect_status 2
expect_stderr "runner: $DB: sweep 2 is still running on host node7.example (pid 4242) or was left by a process that died; if it is not running, 'runner resume 2 --force'"
resumes --force
expect_sql "SELECT pid_host = host FROM sweep WHERE id = 2" "1"
finish
