# Resumable sweeps: interrupt (Ctrl-C) or kill -9 a sweep at random moments;
# the database stays intact with no partial point visible, and --resume (or
# runner resume SWEEP) ends with exactly the rows of an uninterrupted run.
. tests/e2e/lib.sh
REF="$TMP/reference.db"

script=$(write_script resumable.lua <<'LUA'
-- Two sections; the second derives its grid from the first's rows, so a
-- resumed run must hand back the stored rows of finished points.
local first = sweep("straggler", { workers = {64, 128, 256}, trials = 1000000, seed = range(1, 4) },
                    { print = false })
local widest = 0
for _, row in ipairs(first) do widest = math.max(widest, row.workers) end
sweep("speedup", { workers = {1, widest}, trials = 300000, jitter = {1, 2} }, { print = false })
LUA
)
"$RUNNER" sweep "$script" --db "$REF" --quiet >/dev/null 2>&1 || fail "reference run failed"

# same_rows DB: the result rows of DB's newest sweep equal the reference's.
same_rows() {
    for t in straggler speedup; do
        cols=$(sqlite3 "$REF" "SELECT group_concat(name, ', ') FROM (SELECT name FROM plugin_column WHERE plugin = '$t' ORDER BY role DESC, position)")
        diff=$(sqlite3 "$1" "ATTACH '$REF' AS ref; SELECT count(*) FROM (SELECT $cols FROM $t WHERE sweep_id = (SELECT max(id) FROM sweep) EXCEPT SELECT $cols FROM ref.$t); SELECT (SELECT count(*) FROM $t WHERE sweep_id = (SELECT max(id) FROM sweep)) - (SELECT count(*) FROM ref.$t);")
        [ "$diff" = "0
0" ] || fail "$t rows differ from the uninterrupted run: $diff"
    done
}

# no_partial_points DB: every stored point has exactly its rows.
no_partial_points() {
    [ -e "$1" ] || return 0
    sum="0"
    for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('straggler', 'speedup')"); do
        sum="$sum + (SELECT count(*) FROM $t WHERE point_id = p.id)"
    done
    bad=$(sqlite3 "$1" "SELECT count(*) FROM point p WHERE row_count <> $sum")
    [ "$bad" = "0" ] || fail "$bad partially stored point(s)"
    [ "$(sqlite3 "$1" "PRAGMA integrity_check")" = "ok" ] || fail "integrity_check failed"
}

# Ctrl-C, then --resume.
"$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1 >/dev/null 2>&1 &
pid=$!
# Interrupt once the first point is committed.
wait_until "the first committed point" \
    '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 1 ] || ! alive $pid'
kill -INT $pid
wait_exit $pid
status=$?
expect_status 130
no_partial_points "$DB"
expect_sql "SELECT status FROM sweep" "interrupted"
run "$RUNNER" sweep "$script" --db "$DB" --resume --quiet
expect_status 0
expect_stderr_contains "already stored"
expect_sql "SELECT count(*), status FROM sweep" "1|ok"
same_rows "$DB"

# kill -9 at many moments, resuming after each. Each moment is a state, not a
# time, so the kills land the same on a loaded machine: right after the
# resumed process took the sweep over (its pid is in the sweep row), or once
# one more point is committed. Five points at most, of sixteen: the sweep is
# unfinished when the last round ends.
rm -f "$DB" "$DB-wal" "$DB-shm"
"$RUNNER" sweep "$script" --db "$DB" --quiet >/dev/null 2>&1 &
pid=$!
wait_until "the first committed point" \
    '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 1 ] || ! alive $pid'
kill -9 $pid
wait_exit $pid 2>/dev/null
id=$(sql "SELECT max(id) FROM sweep")
for round in 1 2 3 4 5 6 7 8; do
    no_partial_points "$DB"
    stored=$(db_count "$DB" "SELECT count(*) FROM point")
    target=$((stored + round % 2))
    "$RUNNER" sweep "$script" --db "$DB" --resume --quiet >/dev/null 2>"$TMP/err" &
    pid=$!
    wait_until "round $round's resumed process to take the sweep over" \
        '[ "$(db_count "$DB" "SELECT pid FROM sweep WHERE id = $id")" = $pid ] || ! alive $pid'
    wait_until "round $round's point $target" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge $target ] || ! alive $pid'
    kill -9 $pid 2>/dev/null
    wait_exit $pid 2>/dev/null
done
no_partial_points "$DB"
# The stored sweep is still marked running by a dead process: resumable.
expect_sql "SELECT status FROM sweep" "running"
run "$RUNNER" resume "$id" --db "$DB" --quiet
expect_status 0
expect_sql "SELECT count(*), status FROM sweep" "1|ok"
no_partial_points "$DB"
same_rows "$DB"

# A script edited since its sweep ran cannot be resumed into that sweep.
echo "-- edited" >>"$script"
run "$RUNNER" sweep "$script" --db "$DB" --resume
expect_status 2
expect_stderr "runner: $DB: sweep $id ran another version of $script (the text changed since); 'runner resume $id' finishes it with its own text, or drop --resume to start a new sweep"

# Nothing to resume.
run "$RUNNER" sweep "$script" --db "$TMP/empty.db" --resume
expect_status 2
expect_stderr "runner: $TMP/empty.db: no earlier sweep of $script to resume; run it without --resume"
run "$RUNNER" resume 99 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep 99; 'runner sweeps' lists them"
finish
