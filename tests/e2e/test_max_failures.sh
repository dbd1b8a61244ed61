# --max-failures N: once N points of the sweep failed, no more points start;
# the points before the Nth failure in point order are stored, whatever
# --jobs is, and the sweep ends failed with status 1. --fail-fast is N = 1.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
# Points in order: x=1 ok, x=1 fail, x=2 ok, x=2 fail, x=3 ok, x=3 fail.
script=$(write_script limit.lua <<'LUA'
sweep("faulty", { x = {1, 2, 3}, mode = {"ok", "fail"} }, { print = false })
sweep("faulty", { x = 9 }, { print = false })
LUA
)
for jobs in 1 4; do
    rm -f "$DB"*
    run "$RUNNER" sweep "$script" --db "$DB" --max-failures 2 --jobs "$jobs" --quiet
    expect_status 1
    expect_stderr_contains "runner: $script:1: stopped after 2 failed points (--max-failures 2)"
    expect_stderr_contains "runner: sweep 1 stored in $DB: 2 points ok, 2 failed"
    expect_sql "SELECT group_concat(ordinal || ':' || status, ' ') FROM (SELECT ordinal, status FROM point ORDER BY ordinal)" "0:ok 1:failed 2:ok 3:failed"
    expect_sql "SELECT x FROM faulty ORDER BY x" "1.0
2.0"
    expect_sql "SELECT count(*) FROM section" "1"
    expect_sql "SELECT status FROM sweep" "failed"
done

# A limit the sweep never reaches changes nothing: every point runs.
rm -f "$DB"*
run "$RUNNER" sweep "$script" --db "$DB" --max-failures 4 --jobs 2 --quiet
expect_status 1
expect_stderr_contains "runner: sweep 1 stored in $DB: 4 points ok, 3 failed"
expect_sql "SELECT count(*) FROM point" "7"
expect_sql "SELECT count(*) FROM section" "2"

# The count is the sweep's, not a section's: one failure in the first
# section and the first in the second make two.
rm -f "$DB"*
two=$(write_script two.lua <<'LUA'
sweep("faulty", { x = 1, mode = {"ok", "fail"} }, { print = false })
sweep("faulty", { x = {2, 3}, mode = {"fail", "ok"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$two" --db "$DB" --max-failures 2 --jobs 1 --quiet
expect_status 1
expect_stderr_contains "runner: $two:2: stopped after 2 failed points (--max-failures 2)"
expect_sql "SELECT group_concat(s.ordinal || '.' || p.ordinal || ':' || p.status, ' ') FROM (SELECT * FROM point ORDER BY section_id, ordinal) p JOIN section s ON s.id = p.section_id" "1.0:ok 1.1:failed 2.0:failed"

# A crashed point (--isolate) counts as a failed one.
rm -f "$DB"*
crash=$(write_script crash.lua <<'LUA'
sweep("faulty", { mode = {"crash", "ok", "fail", "ok"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$crash" --db "$DB" --isolate --max-failures 2 --jobs 2 --quiet
expect_status 1
expect_stderr_contains "runner: $crash:1: stopped after 2 failed points (--max-failures 2)"
expect_sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM point ORDER BY ordinal)" "crashed ok failed"

# N = 1 stores what --fail-fast stores, with its own message; --fail-fast
# keeps its own.
rm -f "$DB"*
run "$RUNNER" sweep "$script" --db "$DB" --max-failures 1 --jobs 1 --quiet
expect_status 1
expect_stderr_contains "runner: $script:1: stopped after 1 failed point (--max-failures 1)"
expect_sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM point ORDER BY ordinal)" "ok failed"
rm -f "$DB"*
run "$RUNNER" sweep "$script" --db "$DB" --fail-fast --max-failures 3 --jobs 1 --quiet
expect_status 1
expect_stderr_contains "runner: $script:1: stopped at the first failed point (--fail-fast)"
expect_sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM point ORDER BY ordinal)" "ok failed"

# Bad values: one line, status 2, nothing written.
rm -f "$DB"*
run "$RUNNER" sweep "$script" --db "$DB" --max-failures 0
expect_status 2
expect_stderr "runner: --max-failures 0: expected a positive integer; see 'runner --help'"
run "$RUNNER" sweep "$script" --db "$DB" --max-failures=-1
expect_status 2
expect_stderr "runner: --max-failures -1: expected a positive integer; see 'runner --help'"
[ ! -e "$DB" ] || fail "a refused --max-failures created the database"

finish
