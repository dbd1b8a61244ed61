# The log's levels (base/log.h, docs/cli.md "Environment"): debugging lines
# only with RUNNER_LOG=debug or --verbose, the default prints none; a bad
# RUNNER_LOG is refused in one line before anything is stored; the stored
# rows are the same whatever the level. --jobs 1: the plan printed does not
# depend on the cores here.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
script=$(write_script log.lua <<'LUA'
sweep("faulty", { x = {1, 2, 3}, mode = "ok" }, { print = false })
LUA
)
debug_line="runner: debug: section 1: faulty, 3 points, here on 1 job, window 1 slots"

expect_no_debug() {
    if grep -q "runner: debug:" "$TMP/err"; then
        fail "$1: a debug line without RUNNER_LOG=debug"
        cat "$TMP/err" >&2
    fi
}

# The default: no debugging line.
rm -f "$DB"*
run env -u RUNNER_LOG "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --quiet
expect_status 0
expect_no_debug "default"
expect_stderr_contains "runner: sweep 1 stored in $DB: 3 points ok"
expect_sql "SELECT group_concat(x, ' ') FROM (SELECT x FROM faulty ORDER BY x)" "1.0 2.0 3.0"

# RUNNER_LOG=info and warn: none either.
for level in info warn; do
    rm -f "$DB"*
    run env RUNNER_LOG="$level" "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --quiet
    expect_status 0
    expect_no_debug "RUNNER_LOG=$level"
done

# RUNNER_LOG=debug: the section's plan, and the same rows.
rm -f "$DB"*
run env RUNNER_LOG=debug "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --quiet
expect_status 0
expect_stderr_contains "$debug_line"
expect_stderr_contains "runner: sweep 1 stored in $DB: 3 points ok"
expect_sql "SELECT group_concat(x, ' ') FROM (SELECT x FROM faulty ORDER BY x)" "1.0 2.0 3.0"

# --verbose is RUNNER_LOG=debug for one command, over a quieter RUNNER_LOG.
rm -f "$DB"*
run env RUNNER_LOG=warn "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --quiet --verbose
expect_status 0
expect_stderr_contains "$debug_line"

# A level runner does not know: one line, exit 2, no database made.
rm -f "$DB"*
run env RUNNER_LOG=loud "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --quiet
expect_status 2
expect_stderr "runner: RUNNER_LOG=loud: expected debug, info or warn"
if [ -e "$DB" ]; then
    fail "RUNNER_LOG=loud: the database was made"
fi

finish
