# Liveness by lease (issue 29, docs/guarantees.md "Liveness"): the process
# running a sweep renews sweep.lease_renewed_at every RUNNER_LEASE_SECONDS
# (P), also while one point runs for long; a reader on any host shows the
# sweep `running` while the lease is fresh and `interrupted` once 3 P have
# passed without a renewal; resume after that needs no --force, and before
# it refuses naming the host, pid, Slurm job and the seconds left. Another
# host is played by writing its name and boot id into the row.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
# No real Slurm here: the fakes below stand for squeue where a test needs one.
unset SLURM_JOB_ID SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID SLURM_STEP_ID
FAKES="$TMP/fakes"
mkdir -p "$FAKES"
NOW_SQL="((julianday('now') - 2440587.5) * 86400.0)"

# ---- RUNNER_LEASE_SECONDS: a positive number of seconds, or exit 2 ---------
ends=$(write_script ends.lua <<'LUA'
sweep("testkit", {x = {1, 2}}, {print = false})
LUA
)
for bad in abc 0 -1 "" 5s 1e3 inf 86401; do
    RUNNER_LEASE_SECONDS=$bad run "$RUNNER" sweep "$ends" --db "$DB"
    expect_status 2
    expect_stderr "runner: RUNNER_LEASE_SECONDS='$bad': expected the lease's renewal period, a positive number of seconds up to 86400 (like 5 or 0.5)"
done
[ ! -e "$DB" ] || fail "a bad RUNNER_LEASE_SECONDS wrote the database"
RUNNER_LEASE_SECONDS=2.5 run "$RUNNER" sweep "$ends" --db "$DB"
expect_status 0
expect_sql "SELECT lease_period_s, lease_renewed_at > 0, slurm_job_id IS NULL FROM sweep" "2.5|1|1"
RUNNER_LEASE_SECONDS=nope run "$RUNNER" resume 1 --db "$DB"
expect_status 2
expect_stderr "runner: RUNNER_LEASE_SECONDS='nope': expected the lease's renewal period, a positive number of seconds up to 86400 (like 5 or 0.5)"
run "$RUNNER" sweep "$ends" --db "$DB"
expect_status 0
expect_sql "SELECT lease_period_s FROM sweep WHERE id = 2" "5.0"

# ---- a long point: the lease is renewed while it runs ----------------------
# Point 2 waits at a gate; point 1 before it is quick (point 0, the first,
# commits at once), so the writer's batch holding point 1 is still open when
# point 2 starts: the renewal must not wait for it (the lease thread has the
# writer's side commit it between points).
cat >"$TMP/gate.sh" <<SH
#!/bin/sh
if [ "\$1" = 2 ]; then
    touch "$TMP/started.2"
    while [ ! -e "$TMP/go.2" ]; do sleep 0.02; done
fi
echo "{\"v\": \$1}"
SH
chmod +x "$TMP/gate.sh"
gated=$(write_script gated.lua <<LUA
command "gate" { argv = { "$TMP/gate.sh", "{i}" },
  params = { i = { type = "integer", min = 0, max = 10 } },
  columns = { { name = "v", type = "integer" } } }
sweep("gate", { i = range(0, 4) }, { print = false })
LUA
)
RUNNER_LEASE_SECONDS=0.2 "$RUNNER" sweep "$gated" --db "$DB" --quiet --jobs 1 \
    >/dev/null 2>"$TMP/gated.err" &
pid=$!
wait_until "point 2 to start" '[ -e "$TMP/started.2" ] || ! alive $pid'
first=$(sql "SELECT lease_renewed_at FROM sweep WHERE id = 3")
# Five periods of renewals while point 2 runs (bounded by WAIT_LIMIT_S).
wait_until "the lease renewed during the long point" \
    '[ "$(sql "SELECT lease_renewed_at >= $first + 1.0 FROM sweep WHERE id = 3")" = 1 ] || ! alive $pid'
alive $pid || fail "the gated sweep ended before its gate opened"
expect_sql "SELECT count(*) FROM point WHERE sweep_id = 3" "2"
run "$RUNNER" sweeps --db "$DB" --status running --format csv
expect_status 0
expect_stdout_contains "3,,$gated,,running,"
# The same row seen from another host: a copy of the file in which the
# process is node7's. Its lease is fresh, then (no renewals in the copy)
# expires after 3 periods.
sqlite3 -batch "$DB" ".backup '$TMP/copy.db'"
sqlite3 -batch "$TMP/copy.db" "UPDATE sweep SET pid_host = 'node7', pid_boot_id = 'theirs'
    WHERE id = 3"
wait_until "the copy's lease to expire" \
    '"$RUNNER" sweeps --db "$TMP/copy.db" --format csv | grep -q "^3,.*,interrupted,"'
touch "$TMP/go.2"
wait_exit $pid
status=$?
expect_status 0
expect_sql "SELECT status, count(*) FROM sweep, gate WHERE sweep.id = 3 AND gate.sweep_id = 3" "ok|5"

# ---- a dead process on another host ----------------------------------------
# leave_on_node7 PERIOD RENEWED: sweep 2 left running by node7's pid 4242,
# its lease renewed at RENEWED (SQL, Unix s) with period PERIOD.
leave_on_node7() {
    sql "UPDATE sweep SET status = 'running', ended_at = NULL, pid = 4242,
        pid_host = 'node7.example', pid_start_ticks = 99, pid_boot_id = 'theirs',
        lease_period_s = $1, lease_renewed_at = $2, slurm_job_id = '4711',
        slurm_array_job_id = '4700', slurm_array_task_id = '11', slurm_step_id = '0'
        WHERE id = 2"
}
# A lease of 0.3 s renewed now: interrupted once it expires (0.9 s later;
# whether a reader sees it fresh first depends on the load, so the fresh
# state is checked below with a period of 100 s).
leave_on_node7 0.3 "$NOW_SQL"
wait_until "sweep 2's lease to expire" \
    '"$RUNNER" sweeps --db "$DB" --format csv | grep -q "^2,.*,interrupted,"'
run "$RUNNER" sweeps --db "$DB" --format csv --status interrupted
expect_stdout_contains "2,,$ends,,interrupted,"
# Expired: resume goes ahead without --force, and the row is this host's.
run "$RUNNER" resume 2 --db "$DB"
expect_status 0
expect_stderr_contains "sweep 2 resumed in $DB"
expect_sql "SELECT status, pid_host = host, slurm_job_id IS NULL FROM sweep WHERE id = 2" "ok|1|1"

# Before expiry (a period of 100 s): refused, naming host, pid, Slurm job
# and the seconds until the lease expires; sweep --resume alike.
leave_on_node7 100 "$NOW_SQL"
# Fresh: running from here.
run "$RUNNER" sweeps --db "$DB" --format csv --status running
expect_stdout_contains "2,,$ends,,running,"
refusal="runner: $DB: sweep 2 is still running on host node7.example (pid 4242, Slurm job 4700_11); its lease expires in N s: resume it then, or stop it first"
for cmd in "resume 2" "sweep $ends --resume"; do
    # shellcheck disable=SC2086
    run "$RUNNER" $cmd --db "$DB"
    expect_status 2
    left=$(sed 's/.*expires in \([0-9]*\) s.*/\1/' "$TMP/err")
    sed -i 's/expires in [0-9]* s/expires in N s/' "$TMP/err"
    expect_stderr "$refusal"
    [ "$left" -gt 200 ] && [ "$left" -le 300 ] || fail "seconds left: $left, not at most 300 and near it"
done
# The report and the dashboard's record show the Slurm job by the host.
run "$RUNNER" report 2 --db "$DB" -o "$TMP/report.html"
expect_status 0
grep -q "<th>Slurm job</th><td class=\"mono\">4711 (array 4700_11), step 0</td>" "$TMP/report.html" ||
    fail "the report does not show the Slurm job: $(grep -o '<th>host.\{0,200\}' "$TMP/report.html")"

# ---- a fresh lease is believed, whatever the scheduler says (issue 36) ------
# The lease (100 s) is fresh: squeue is not even asked, and its "gone" does
# not make the sweep interrupted nor let resume go ahead (a node cut off
# from the controller goes on renewing while Slurm calls its job ended).
printf '#!/bin/sh\necho "$*" >>"%s/asked"\necho "slurm_load_jobs error: Invalid job id specified" >&2\nexit 1\n' \
    "$TMP" >"$FAKES/squeue"
chmod +x "$FAKES/squeue"
PATH="$FAKES:$PATH" run "$RUNNER" sweeps --db "$DB" --format csv --status running
expect_stdout_contains "2,,$ends,,running,"
PATH="$FAKES:$PATH" run "$RUNNER" resume 2 --db "$DB"
expect_status 2
expect_stderr_contains "its lease expires in"
[ ! -e "$TMP/asked" ] || fail "squeue was asked about a fresh lease: $(cat "$TMP/asked")"
# Expired: squeue is asked, about the task (ARRAYID_TASK), in bounded time.
# SUSPENDED (scontrol suspend, gang scheduling) is alive; anything else,
# RUNNING too (a stopped or cut-off process), is interrupted.
leave_on_node7 100 "($NOW_SQL - 400)"
PATH="$FAKES:$PATH" run "$RUNNER" sweeps --db "$DB" --format csv --status interrupted
expect_stdout_contains "2,,$ends,,interrupted,"
expect_equal "squeue's question" "$(cat "$TMP/asked")" "-h -j 4700_11 -o %T"
printf '#!/bin/sh\necho SUSPENDED\n' >"$FAKES/squeue"
PATH="$FAKES:$PATH" run "$RUNNER" sweeps --db "$DB" --format csv --status running
expect_stdout_contains "2,,$ends,,running,"
PATH="$FAKES:$PATH" run "$RUNNER" resume 2 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: sweep 2 is suspended by its scheduler (Slurm job 4700_11 on host node7.example, pid 4242); it goes on when resumed: cancel it first, or take it over with 'runner resume 2 --force' (the suspended process then stops at its next batch)"
printf '#!/bin/sh\necho RUNNING\n' >"$FAKES/squeue"
PATH="$FAKES:$PATH" run "$RUNNER" sweeps --db "$DB" --format csv --status interrupted
expect_stdout_contains "2,,$ends,,interrupted,"
# A scheduler that hangs: no answer in bounded time, the expired lease decides.
printf '#!/bin/sh\nexec sleep 300\n' >"$FAKES/squeue"
PATH="$FAKES:$PATH" run "$RUNNER" resume 2 --db "$DB"
expect_status 0
expect_stderr_contains "sweep 2 resumed in $DB"

# ---- a requeued run of the same Slurm job waits for the lease ---------------
# Slurm starts a requeued job again under its id once it holds the earlier
# run ended (its node set DOWN): resume waits for that run's lease to lapse
# rather than fail the job; a lease renewed meanwhile (the node was only cut
# off) is refused as before.
# A lease of 1 s expires 3 s after it is written: on a machine loaded
# enough that runner reads it later than that, it resumes without waiting,
# and the case is set up again (bounded by WAIT_LIMIT_S).
tries=0
: >"$TMP/err"
until [ "$tries" -ge "${WAIT_LIMIT_S:-300}" ] || grep -q "waiting " "$TMP/err" 2>/dev/null; do
    tries=$((tries + 3))
    leave_on_node7 1 "$NOW_SQL"
    SLURM_JOB_ID=4711 run "$RUNNER" resume 2 --db "$DB"
    expect_status 0
done
expect_stderr_contains "runner: sweep 2: an earlier run of Slurm job 4700_11 on host node7.example holds its lease; waiting "
expect_stderr_contains " s for it to expire"
expect_stderr_contains "sweep 2 resumed in $DB"
expect_sql "SELECT status, slurm_job_id FROM sweep WHERE id = 2" "ok|4711"
# node7's run, cut off but alive, renews until the resume has answered; each
# renewal dated 2 s ahead, so the lease stays fresh however slowly the
# renewals come.
FUTURE_SQL="($NOW_SQL + 2)"
leave_on_node7 1 "$FUTURE_SQL"
SLURM_JOB_ID=4711 "$RUNNER" resume 2 --db "$DB" >"$TMP/out" 2>"$TMP/err" &
pid=$!
while alive $pid; do
    sql "UPDATE sweep SET lease_renewed_at = $FUTURE_SQL WHERE id = 2"
done
wait_exit $pid
status=$?
expect_status 2
expect_stderr_contains "waiting "
expect_stderr_contains "runner: $DB: sweep 2 is still running on host node7.example (pid 4242, Slurm job 4700_11); its lease expires in "
expect_sql "SELECT status, pid FROM sweep WHERE id = 2" "running|4242"
run "$RUNNER" resume 2 --db "$DB" --force
expect_status 0

# ---- Slurm's ids are recorded ----------------------------------------------
printf '#!/bin/sh\necho RUNNING\n' >"$FAKES/squeue"
SLURM_JOB_ID=812 SLURM_ARRAY_JOB_ID=800 SLURM_ARRAY_TASK_ID=12 SLURM_STEP_ID=3 \
    PATH="$FAKES:$PATH" run "$RUNNER" sweep "$ends" --db "$DB"
expect_status 0
expect_sql "SELECT slurm_job_id, slurm_array_job_id, slurm_array_task_id, slurm_step_id
    FROM sweep ORDER BY id DESC LIMIT 1" "812|800|12|3"

# ---- a version 11 file (no lease columns) ----------------------------------
# Readers read it as it is, without writing (a temporary view supplies the
# columns as NULL); runner migrate adds them.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); DROP INDEX sweep_list;
ALTER TABLE sweep DROP COLUMN lease_renewed_at; ALTER TABLE sweep DROP COLUMN lease_period_s;
ALTER TABLE sweep DROP COLUMN slurm_job_id; ALTER TABLE sweep DROP COLUMN slurm_array_job_id;
ALTER TABLE sweep DROP COLUMN slurm_array_task_id; ALTER TABLE sweep DROP COLUMN slurm_step_id;
CREATE INDEX sweep_list ON sweep(id, name, script_path, started_at, ended_at, status, pid, host,
    pid_host, pid_start_ticks, pid_boot_id, overrides_json);
PRAGMA user_version = 11; PRAGMA journal_mode = DELETE;" >/dev/null
sha=$(sha256sum <"$DB")
run "$RUNNER" sweeps --db "$DB" --format csv
expect_status 0
expect_stdout_contains "2,,$ends,,ok,"
run "$RUNNER" report 2 --db "$DB" -o "$TMP/report11.html"
expect_status 0
expect_equal "readers: the version 11 file's bytes" "$(sha256sum <"$DB")" "$sha"
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$(runner_schema)"
expect_sql "SELECT count(*) FROM pragma_table_info('sweep') WHERE name LIKE 'lease%' OR name LIKE 'slurm%'" "6"
finish
