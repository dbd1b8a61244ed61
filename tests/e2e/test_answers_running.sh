# fit, pareto and sensitivity on a sweep still running say so in one line,
# with how many points their answer covers (docs/analysis.md); the sweep's
# status is every reader's judgement (lease_judge). Once it stopped, no note.
. tests/e2e/lib.sh
start_slow_sweep slow 1
wait_until "three points stored" \
    '[ "$(db_count "$DB" "SELECT count(*) FROM point WHERE sweep_id = 1")" -ge 3 ] || ! alive $sweep_pid'
run "$RUNNER" pareto 1 --min round_s --max wait_share --db "$DB"
expect_status 0
grep -Eq "^runner: pareto: note: sweep 1 is still running; this answer covers the [0-9]+ points? stored so far$" \
    "$TMP/err" || fail "pareto: no note: $(cat "$TMP/err")"
covered=$(sed -n 's/.*covers the \([0-9]*\) point.*/\1/p' "$TMP/err")
[ "${covered:-0}" -ge 1 ] || fail "pareto: the note counts no point"
run "$RUNNER" fit 1 --x seed --y round_s --model linear --db "$DB"
expect_status 0
expect_stderr_contains "runner: fit: note: sweep 1 is still running; this answer covers the "
run "$RUNNER" show 1 --db "$DB" --format csv
expect_status 0
expect_equal "show: no note" "$(cat "$TMP/err")" ""
kill -INT "$sweep_pid"
wait_exit "$sweep_pid"
run "$RUNNER" pareto 1 --min round_s --max wait_share --db "$DB"
expect_status 0
expect_equal "pareto after the sweep stopped: no note" "$(cat "$TMP/err")" ""
finish
