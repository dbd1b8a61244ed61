# Every signal that asks runner to stop (docs/guarantees.md, "Signals"):
# SIGINT, SIGTERM, SIGHUP (a closed terminal or ssh session), SIGUSR1
# (Slurm's warning before the time limit, sbatch --signal=B:USR1@S) and
# SIGXCPU (a CPU-time limit). Each ends runner with status 130, no process
# of the sweep left behind (a command's whole group, an isolated point's
# child), the sweep interrupted, and a resume that stores every point once.
. tests/e2e/lib.sh

cat >"$TMP/slow.sh" <<SH
#!/bin/sh
# Point i: a grandchild that would outlive a careless stop, then a gate.
sleep 300 &
echo \$! >"$TMP/child.\$1"
[ -e "$TMP/slow.\$1" ] && sleep 0.3
[ -e "$TMP/gate.\$1" ] && while [ ! -e "$TMP/go" ]; do sleep 0.02; done
kill \$! 2>/dev/null
echo "{\"v\": \$((\$1 * 10))}"
SH
chmod +x "$TMP/slow.sh"
script=$(write_script slow.lua <<LUA
command "slow" { argv = { "$TMP/slow.sh", "{i}" },
  params = { i = { type = "integer", min = 0, max = 100 } },
  columns = { { name = "v", type = "integer" } } }
sweep("slow", { i = range(0, 5) }, { print = false })
LUA
)
for signal in INT TERM HUP USR1 XCPU; do
    rm -f "$DB" "$DB-wal" "$DB-shm" "$TMP"/child.* "$TMP"/gate.* "$TMP/go"
    touch "$TMP/gate.3" "$TMP/slow.2"
    "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1 >/dev/null 2>"$TMP/err" &
    pid=$!
    wait_until "point 3 to start ($signal)" '[ -s "$TMP/child.3" ] || ! alive $pid'
    wait_until "points 0 to 2 committed ($signal)" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 3 ] || ! alive $pid'
    child=$(cat "$TMP/child.3")
    kill -$signal $pid
    wait_exit $pid
    status=$?
    expect_status 130
    expect_stderr_contains "runner: interrupted; finished points are stored"
    wait_until "point 3's process group to die ($signal)" '! alive $child'
    expect_sql "SELECT status FROM sweep" "interrupted"
    expect_sql "PRAGMA integrity_check" "ok"
    expect_sql "SELECT group_concat(i) FROM slow" "0,1,2"
    touch "$TMP/go"
    run "$RUNNER" sweep "$script" --db "$DB" --resume --quiet
    expect_status 0
    expect_sql "SELECT count(*), status FROM sweep" "1|ok"
    expect_sql "SELECT count(*), count(DISTINCT i) FROM slow" "6|6"
    expect_sql "SELECT group_concat(v) FROM (SELECT v FROM slow ORDER BY i)" "0,10,20,30,40,50"
done

# A plugin sweep with --isolate: the isolated child is in runner's own
# process group, so a closed terminal's SIGHUP reaches both; the child
# finishes or is killed, never outlives runner.
plugin_script=$(write_script long.lua <<'LUA'
sweep("straggler", { workers = 500, trials = 1000000, seed = range(1, 40) }, { print = false })
LUA
)
for signal in HUP USR1 XCPU; do
    rm -f "$DB" "$DB-wal" "$DB-shm"
    "$RUNNER" sweep "$plugin_script" --db "$DB" --isolate >/dev/null 2>"$TMP/err" &
    pid=$!
    wait_until "the first committed point ($signal, isolated)" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 1 ] || ! alive $pid'
    kids=$(descendants $pid)
    kill -$signal $pid
    wait_exit $pid
    status=$?
    expect_status 130
    for kid in $kids; do
        wait_until "isolated child $kid to end ($signal)" '! alive $kid'
    done
    expect_sql "SELECT status FROM sweep" "interrupted"
    expect_sql "SELECT count(*) FROM point WHERE status != 'ok'" "0"
    expect_sql "SELECT (SELECT count(*) FROM point) = (SELECT count(*) FROM straggler)" "1"
done
finish
