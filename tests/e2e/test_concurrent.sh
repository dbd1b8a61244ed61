# Four runner processes writing one database at once: three runs of one
# script with different --set values and one write-heavy script, --jobs 1
# each. All finish with exit 0 and nothing about locks on stderr, every point
# and row is there under the right sweep, and the database is sound. Twice:
# first racing to create the database, then on the database they made.
. tests/e2e/lib.sh

laws=$(write_script laws.lua <<'LUA'
-- About a second of Monte Carlo per run: long enough to overlap the others.
local opt = options { law = "uniform", replicates = 300 }
sweep("straggler", { workers = 64, trials = 20000, law = opt.law,
                     seed = range(1, opt.replicates) }, { print = false })
LUA
)
rows=$(write_script rows.lua <<'LUA'
-- Cheap points, many rows: 300 points of 300 rows, mostly writing.
sweep("testkit", { rows = 300, x = range(1, 300) }, { print = false, keep_rows = false })
LUA
)

# run_four ROUND: starts the four runs together and waits for each.
run_four() {
    set -- uniform exponential pareto
    for law in "$@"; do
        "$RUNNER" sweep "$laws" --db "$DB" --set law="$law" --jobs 1 --quiet \
            >"$TMP/out.$law" 2>"$TMP/err.$law" &
        eval "pid_$law=\$!"
    done
    "$RUNNER" sweep "$rows" --db "$DB" --plugin-dir "$RUNNER_FIXTURES/good" --jobs 1 --quiet \
        >"$TMP/out.rows" 2>"$TMP/err.rows" &
    pid_rows=$!
    for name in uniform exponential pareto rows; do
        eval "wait \$pid_$name"
        status=$?
        [ "$status" = 0 ] || fail "round $1: the $name run exited $status: $(cat "$TMP/err.$name")"
        if grep -Eiq "locked|busy" "$TMP/err.$name"; then
            fail "round $1: the $name run reported a lock: $(cat "$TMP/err.$name")"
        fi
        grep -q "points ok, 0 failed" "$TMP/err.$name" ||
            fail "round $1: the $name run did not report its sweep: $(cat "$TMP/err.$name")"
    done
}

# expect_round ROUND: the database holds 4 * ROUND complete sweeps.
expect_round() {
    sweeps=$((4 * $1))
    expect_sql "SELECT count(*), sum(status = 'ok') FROM sweep" "$sweeps|$sweeps"
    # Per sweep: its points, its rows, and the table the rows went to.
    expect_sql "SELECT s.script_path, s.overrides_json, count(*), sum(p.row_count)
        FROM sweep s JOIN point p ON p.sweep_id = s.id
        WHERE s.id > $sweeps - 4 GROUP BY s.id ORDER BY s.script_path, s.overrides_json" \
"$laws|{\"law\":\"exponential\"}|300|300
$laws|{\"law\":\"pareto\"}|300|300
$laws|{\"law\":\"uniform\"}|300|300
$rows|{}|300|90000"
    expect_sql "SELECT count(*) FROM straggler" "$((900 * $1))"
    expect_sql "SELECT count(*) FROM testkit" "$((90000 * $1))"
    # Every row belongs to a point of its own sweep and section, and every
    # point holds exactly the rows it says.
    for t in straggler testkit; do
        expect_sql "SELECT count(*) FROM $t r JOIN point p ON p.id = r.point_id
            WHERE p.sweep_id <> r.sweep_id OR p.section_id <> r.section_id" "0"
        expect_sql "SELECT count(*) FROM point p JOIN section c ON c.id = p.section_id
            LEFT JOIN (SELECT point_id, count(*) AS n FROM $t GROUP BY point_id) r
            ON r.point_id = p.id WHERE c.plugin = '$t' AND p.row_count <> coalesce(r.n, 0)" "0"
    done
    # The four really ran at the same time: each started before any ended.
    expect_sql "SELECT max(started_at) < min(ended_at) FROM sweep WHERE id > $sweeps - 4" "1"
    expect_sql "PRAGMA integrity_check" "ok"
}

run_four 1
expect_round 1
run_four 2
expect_round 2
# The same script and --set give the same rows, however the runs interleaved.
for law in uniform exponential pareto; do
    a=$(sql "SELECT workers, trials, seed, law, wait_s, round_s FROM straggler WHERE sweep_id =
        (SELECT min(id) FROM sweep WHERE overrides_json = '{\"law\":\"$law\"}') ORDER BY row_id")
    b=$(sql "SELECT workers, trials, seed, law, wait_s, round_s FROM straggler WHERE sweep_id =
        (SELECT max(id) FROM sweep WHERE overrides_json = '{\"law\":\"$law\"}') ORDER BY row_id")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "the $law rows differ between the two rounds"
done

# Creating the database is the narrowest race: twelve one-point runs started
# together on a file that does not exist yet, 40 times over. Each must open
# (create, switch to WAL, migrate) without a lock error and store its sweep.
one=$(write_script one.lua <<'LUA'
sweep("speedup", { workers = 1 }, { print = false })
LUA
)
race_failures=0
for round in $(seq 1 40); do
    DB="$TMP/race$round.db"
    pids=""
    for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
        "$RUNNER" sweep "$one" --db "$DB" --jobs 1 --quiet >/dev/null 2>"$TMP/race.$k" &
        pids="$pids $!"
    done
    for pid in $pids; do
        wait_exit $pid
    done
    for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
        if ! grep -q "points ok, 0 failed" "$TMP/race.$k"; then
            race_failures=$((race_failures + 1))
            # The first few messages say enough.
            [ "$race_failures" -le 3 ] && fail "creating a database, round $round: $(cat "$TMP/race.$k")"
        fi
    done
    stored=$(sql "SELECT count(*) FROM sweep WHERE status = 'ok'")
    [ "$stored" = 12 ] || [ "$race_failures" -gt 0 ] ||
        fail "creating a database, round $round: all runs reported success, $stored sweeps stored"
    rm -f "$DB" "$DB-wal" "$DB-shm"
done
[ "$race_failures" -le 3 ] || fail "... $race_failures of 480 runs failed to create the database"
finish
