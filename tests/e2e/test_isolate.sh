# Plugin faults: a failing point fails only itself; --fail-fast stops at the
# first; with --isolate a point that crashes or hangs costs only that point,
# recorded as crashed or timeout, and the sweep goes on.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
script=$(write_script faulty.lua <<'LUA'
sweep("faulty", { x = {1, 2}, mode = {"ok", "fail", "crash", "abort", "hang"} }, { print = false })
LUA
)
# The timeout is long enough for a point that does return to do so on a
# loaded machine (0.5 s was not, under ctest -j16 on 2 cores); the two hangs
# cost it once, side by side.
run "$RUNNER" sweep "$script" --db "$DB" --point-timeout 10 --jobs 2
expect_status 1
expect_sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM point ORDER BY ordinal)" "ok failed crashed crashed timeout ok failed crashed crashed timeout"
expect_sql "SELECT DISTINCT error FROM point WHERE status = 'crashed' AND params_json LIKE '%crash\"%'" "the point's process died of signal 11 (Segmentation fault)"
expect_sql "SELECT DISTINCT error FROM point WHERE status = 'timeout'" "no result after 10 s (--point-timeout); the point's process was killed"
expect_sql "SELECT x, y, note FROM faulty ORDER BY x" "1.0|1.0|made in the point's process
2.0|2.0|made in the point's process"
expect_stderr_contains 'runner: faulty point 2 {"x":1.0,"mode":"crash"} crashed: the point'"'"'s process died of signal 11 (Segmentation fault)'
expect_stderr_contains 'runner: faulty point 4 {"x":1.0,"mode":"hang"} timed out: no result after 10 s'
expect_sql "SELECT status FROM sweep" "failed"

# --fail-fast: the first failed point stops the sweep with status 1.
rm -f "$DB"*
script2=$(write_script fast.lua <<'LUA'
sweep("faulty", { x = {1, 2, 3}, mode = {"ok", "fail"} }, { print = false })
sweep("faulty", { x = 9 })
LUA
)
run "$RUNNER" sweep "$script2" --db "$DB" --fail-fast --jobs 1
expect_status 1
expect_stderr_contains "runner: $script2:1: stopped at the first failed point (--fail-fast)"
expect_sql "SELECT count(*) FROM point" "2"
expect_sql "SELECT count(*) FROM section" "1"

# Without --isolate a crash takes runner down, but what finished is stored
# and --resume --isolate completes the sweep.
rm -f "$DB"*
script3=$(write_script crash.lua <<'LUA'
-- x repeats on purpose: a grid may hold one point twice, and resuming must
-- keep both copies.
sweep("faulty", { x = {1, 1, 2}, mode = {"ok", "crash"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$script3" --db "$DB" --jobs 1
[ "$status" -ge 128 ] || fail "expected death by signal, got status $status"
expect_sql "PRAGMA integrity_check" "ok"
expect_sql "SELECT status FROM sweep" "running"
run "$RUNNER" sweep "$script3" --db "$DB" --resume --isolate --jobs 1
expect_status 1
expect_sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM point ORDER BY ordinal)" "ok crashed ok crashed ok crashed"

# A hung isolated point's process dies with runner, whatever ends runner:
# kill -9, or a second signal (SIGTERM then SIGINT: two of the same signal
# sent at once may arrive as one). The point spins and ignores SIGTERM.
spin=$(write_script spin.lua <<'LUA'
sweep("faulty", { mode = "spin" }, { print = false })
LUA
)
for ending in KILL TERM; do
    rm -f "$DB"*
    "$RUNNER" sweep "$spin" --db "$DB" --isolate --jobs 1 --quiet >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    wait_until "the isolated point's process" '[ -n "$(pgrep -P $pid)" ] || ! alive $pid'
    child=$(pgrep -P $pid)
    if [ "$ending" = KILL ]; then
        kill -KILL $pid
    else
        kill -TERM $pid
        kill -INT $pid
    fi
    wait_until "runner to end (SIG$ending)" '! alive $pid'
    wait_exit $pid
    status=$?
    if [ "$ending" = TERM ]; then
        # the second signal leaves at once and says so
        expect_status 130
        expect_stderr "runner: interrupted twice; stopped at once, keeping what was committed"
    fi
    wait_until "the point's process to die with runner (SIG$ending)" '! kill -0 $child 2>/dev/null' ||
        kill -KILL $pid $child 2>/dev/null
done
run "$RUNNER" sweep "$script" --db "$DB" --point-timeout 0
expect_status 2
expect_stderr "runner: --point-timeout 0: expected a positive number of seconds; see 'runner --help'"
finish
