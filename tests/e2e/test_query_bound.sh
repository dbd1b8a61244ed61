# Every query on a file runner did not write is bounded (docs/guarantees.md,
# "Files that are not runner's"): a result table replaced by a view that
# recurses forever makes show, export, fit, pareto, merge and the
# Python module stop with one line naming the file, exit 2, instead of
# spinning until killed. A view that returns no row is stopped after
# RUNNER_QUERY_TIMEOUT seconds; one that returns rows for ever, by the step
# and row budget a file of its size allows. (timeout 60 only turns a hang of
# an older build into a failure here.)
. tests/e2e/lib.sh
script=$(write_script s.lua <<'LUA'
sweep("speedup", { workers = { 1, 2, 4, 8 } }, { print = false })
LUA
)
"$RUNNER" sweep "$script" --db "$DB" --quiet 2>/dev/null || fail "sweep 1 failed"
"$RUNNER" sweep "$script" --db "$DB" --quiet 2>/dev/null || fail "sweep 2 failed"
# hostile FILE WHERE: FILE's speedup table becomes a view of the same columns
# over a recursive CTE that never ends (WHERE x < 0: no row ever; empty:
# a row per step for ever).
hostile() {
    cols=$(sqlite3 -batch "$1" "SELECT group_concat('x AS \"' || name || '\"', ', ')
        FROM pragma_table_info('speedup') WHERE name NOT IN ('sweep_id', 'section_id')")
    sqlite3 -batch "$1" "ALTER TABLE speedup RENAME TO speedup_kept;
        CREATE VIEW speedup AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
        SELECT 1 AS sweep_id, 1 AS section_id, $cols FROM c $2"
}
hostile "$DB" "WHERE x < 0"
stopped="a query returned no row for 1 s (RUNNER_QUERY_TIMEOUT) and was stopped; a view or trigger in the file may never end"
export RUNNER_QUERY_TIMEOUT=1
run timeout 60 "$RUNNER" show 1 --db "$DB" --format csv
expect_status 2
expect_stderr "runner: $DB: cannot read the rows of section 1: $stopped"
run timeout 60 "$RUNNER" export 1 --db "$DB" --out "$TMP"
expect_status 2
expect_stderr_contains "$DB: "
expect_stderr_contains ": $stopped"
run timeout 60 "$RUNNER" fit 1 --x workers --y speedup --model amdahl --db "$DB"
expect_status 2
expect_stderr "runner: fit: sweep 1, section 1: $DB: cannot read the rows of section 1: $stopped"
run timeout 60 "$RUNNER" pareto 1 --min round_s --max speedup --db "$DB"
expect_status 2
expect_stderr "runner: pareto: $DB: cannot read the rows of section 1: $stopped"
expect_sql "SELECT count(*) FROM fit" "0"

# A shard whose rows are such a view: merge stops, OUT gets no point.
"$RUNNER" sweep "$script" --shard 1/2 --db "$TMP/a.db" --quiet 2>/dev/null || fail "shard 1"
"$RUNNER" sweep "$script" --shard 2/2 --db "$TMP/b.db" --quiet 2>/dev/null || fail "shard 2"
hostile "$TMP/a.db" "WHERE x < 0"
run timeout 60 "$RUNNER" merge "$TMP/m.db" "$TMP/a.db" "$TMP/b.db"
expect_status 2
expect_stderr "runner: $TMP/a.db: cannot read the rows of \"speedup\": $stopped"
[ "$(db_count "$TMP/m.db" "SELECT count(*) FROM point_block")" = 0 ] ||
    fail "merge stored points"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || skip_missing python3 "the Python module needs python3"
run timeout 60 env PYTHONPATH="$PWD/python" "$PY" -c "
import runner_db
try:
    runner_db.open('$DB')._sweep_here(1).section(1).rows()
except runner_db.RunnerError as e:
    print(e)"
expect_status 0
expect_stdout_contains "runner_db: $DB: $stopped"

# A view that returns rows for ever: the step and row budget stop it.
cp "$TMP/a.db" "$TMP/rows.db"
sqlite3 -batch "$TMP/rows.db" "DROP VIEW speedup"
hostile_rows() {
    cols=$(sqlite3 -batch "$1" "SELECT group_concat('x AS \"' || name || '\"', ', ')
        FROM pragma_table_info('speedup_kept') WHERE name NOT IN ('sweep_id', 'section_id')")
    sqlite3 -batch "$1" "CREATE VIEW speedup AS WITH RECURSIVE c(x) AS
        (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT 1 AS sweep_id, 1 AS section_id, $cols FROM c"
}
hostile_rows "$TMP/rows.db"
unset RUNNER_QUERY_TIMEOUT
run timeout 120 "$RUNNER" show 1 --db "$TMP/rows.db" --format csv
expect_status 2
expect_stderr_contains "runner: $TMP/rows.db: cannot read the rows of section 1: a query ran "
expect_stderr_contains " million steps, more than a file of this size can need, and was stopped; a view or trigger in the file may never end"
run timeout 120 env PYTHONPATH="$PWD/python" "$PY" -c "
import runner_db
try:
    runner_db.open('$TMP/rows.db')._sweep_here(1).section(1).rows()
except runner_db.RunnerError as e:
    print(e)"
expect_status 0
expect_stdout_contains "runner_db: $TMP/rows.db: a query "
expect_stdout_contains ", and was stopped; a view"

# The bound's setting: a positive number of seconds up to a day.
for bad in 0 -1 abc 1e3 100000 inf; do
    run env RUNNER_QUERY_TIMEOUT="$bad" "$RUNNER" sweeps --db "$DB"
    expect_status 2
    expect_stderr "runner: RUNNER_QUERY_TIMEOUT='$bad': expected how long a query may run without returning a row, a positive number of seconds up to 86400 (like 300 or 0.5)"
done
run env RUNNER_QUERY_TIMEOUT=0.5 "$RUNNER" sweeps --db "$DB" --format csv
expect_status 0
finish
