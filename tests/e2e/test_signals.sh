# Ctrl-C (SIGINT) and SIGTERM: no new points start, finished points are
# committed, the sweep is marked interrupted, the exit status is 130, and the
# database passes an integrity check.
. tests/e2e/lib.sh

script=$(write_script long.lua <<'LUA'
-- 40 points of about half a second each: long enough to interrupt.
sweep("straggler", { workers = 500, trials = 1000000, seed = range(1, 40) }, { print = false })
LUA
)
for signal in INT TERM; do
    rm -f "$DB" "$DB-wal" "$DB-shm"
    "$RUNNER" sweep "$script" --db "$DB" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    # Wait until at least one point is committed, then signal.
    wait_until "the first committed point" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 1 ] || ! alive $pid'
    kill -$signal $pid
    wait_exit $pid
    status=$?
    expect_status 130
    expect_stderr_contains "runner: interrupted; finished points are stored"
    expect_sql "SELECT status FROM sweep" "interrupted"
    expect_sql "PRAGMA integrity_check" "ok"
    # Every stored point finished normally; the interrupted one is not stored.
    expect_sql "SELECT count(*) FROM point WHERE status != 'ok'" "0"
    expect_sql "SELECT count(*) > 0 AND count(*) < 40 FROM point" "1"
    expect_sql "SELECT (SELECT count(*) FROM point) = (SELECT count(*) FROM straggler)" "1"
done
finish
