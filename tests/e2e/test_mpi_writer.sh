# Rank 0's writer thread under MPI (docs/mpi.md, "Rank 0's two threads"):
# the thread that talks MPI takes results into the reorder window while a
# writer thread stores them in point order.
#   1. Many tiny points on two workers store the points and rows --jobs 1
#      stores, in the same order with the same ids, identities and seeds;
#      with --max-failures the writer stops at the same point.
#   2. Receiving overlaps storing: while another process holds the
#      database's write lock (rank 0's writer waits for it), the workers
#      go on running points, up to the window; with rank 0 storing on the
#      thread that talks MPI they stopped within two chunks. Then the lock
#      is let go and the sweep ends as --jobs 1's does.
#   3. --shard under MPI: rank 0 hands out only the shard's own points
#      (their ordinals on the wire) and 3 shards merged equal --jobs 1.
# Skipped (77) without mpirun, or when runner was built without MPI; under
# make test either is a failure.
. tests/e2e/lib.sh
. tests/e2e/mpi_lib.sh
POINT_COLUMNS="id, sweep_id, section_id, ordinal, params_json, identity, seed, status, error, row_count"

# 1. Tiny points, many chunks in flight, then a section that stops at its
# 500th failed point (every other point fails) with thousands handed out.
script=$(write_script tiny.lua <<'LUA'
sweep("speedup", { workers = {8, 64}, jitter = linspace(0.5, 2, 15000) }, { print = false })
sweep("faulty", { x = range(1, 4000), mode = {"ok", "fail"} }, { print = false })
LUA
)
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
run "$RUNNER" sweep "$script" --db "$TMP/one.db" --jobs 1 --max-failures 500 --quiet
expect_status 1
run mpirun --oversubscribe -np 3 "$RUNNER" sweep "$script" --db "$TMP/three.db" --max-failures 500 --quiet
if grep -q "built without MPI" "$TMP/err"; then
    skip_missing "MPI support" "runner was built without MPI (RUNNER_MPI=OFF, or no libopenmpi-dev)"
fi
expect_status 1
expect_stderr_contains "runner: $script:2: stopped after 500 failed points (--max-failures 500)"
expect_stderr_contains "runner: sweep 1 stored in $TMP/three.db: 30500 points ok, 500 failed"
DB="$TMP/three.db"
expect_sql "SELECT max(ordinal) FROM point WHERE section_id = 2" "999"
compare_rows "SELECT $POINT_COLUMNS FROM point ORDER BY id" "$TMP/one.db" "$TMP/three.db" "tiny points"
compare_rows "SELECT * FROM speedup ORDER BY row_id" "$TMP/one.db" "$TMP/three.db" "tiny points' rows"
compare_rows "SELECT * FROM faulty ORDER BY row_id" "$TMP/one.db" "$TMP/three.db" "failing points' rows"
unset RUNNER_PLUGIN_PATH

# 2. Each point (a command, run by the one worker) appends its x to a file.
# Points after the 20th wait for the gate, which the lock holder opens once
# it holds the lock: the sweep cannot end before the lock is taken, however
# fast or loaded the machine.
if command -v python3 >/dev/null 2>&1; then
    script=$(write_script overlap.lua <<LUA
command "tick" {
  argv = { [[[ {x} -le 20 ] || while [ ! -e '$TMP/gate' ]; do sleep 0.01; done; echo {x} >> '$TMP/ran'; printf '{{"y": %s}}\n' {x}]] },
  shell = true,
  params = { x = { type = "integer" } },
  columns = { { name = "y", type = "integer" } },
}
sweep("tick", { x = range(1, 1000) }, { print = false })
LUA
)
    touch "$TMP/gate"
    run "$RUNNER" sweep "$script" --db "$TMP/tick1.db" --jobs 1 --quiet
    expect_status 0
    rm -f "$TMP/ran" "$TMP/gate"
    DB="$TMP/tick.db"
    mpirun --oversubscribe -np 2 "$RUNNER" sweep "$script" --db "$DB" --quiet >"$TMP/out" 2>"$TMP/err" &
    launcher=$!
    wait_until "the first points stored" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 5 ] || ! alive $launcher'
    # The helper takes the write lock between two of rank 0's commits
    # (polling: SQLite's own busy wait sleeps past the gap) and holds it
    # until told to let go (at most 60 s).
    python3 - "$DB" "$TMP/gate" "$TMP/release" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
while True:
    try:
        db.execute("BEGIN IMMEDIATE")
        break
    except sqlite3.OperationalError:
        time.sleep(0.0005)
open(sys.argv[2], "w").close()
polls = 0
while not os.path.exists(sys.argv[3]) and polls < 3000:  # bound: 60 s
    time.sleep(0.02)
    polls += 1
db.execute("COMMIT")
PY
    holder=$!
    wait_until "the helper holding the write lock" '[ -e "$TMP/gate" ] || ! alive $holder'
    stored=$(db_count "$DB" "SELECT count(*) FROM point")
    ran=$(wc -l <"$TMP/ran")
    # Without a writer thread of its own rank 0 stops handing out points
    # once its store waits: at most two chunks (of one point: each costs
    # milliseconds) more run, so ten more tell the two apart. The wait is
    # bounded below the 10 s the store waits for the lock before it fails.
    WAIT_LIMIT_S=8 wait_until "10 more points run while the store waits (ran $ran, stored $stored)" \
        '[ "$(wc -l <"$TMP/ran")" -ge $((ran + 10)) ]'
    expect_equal "points stored while the lock was held" "$(db_count "$DB" "SELECT count(*) FROM point")" "$stored"
    touch "$TMP/release"
    wait_exit $holder
    wait_exit $launcher
    status=$?
    expect_status 0
    expect_sql "SELECT status FROM sweep" "ok"
    compare_rows "SELECT $POINT_COLUMNS FROM point ORDER BY id" "$TMP/tick1.db" "$DB" "command points after the lock"
    compare_rows "SELECT row_id, sweep_id, section_id, point_id, x, y, exit_status FROM tick ORDER BY row_id" "$TMP/tick1.db" "$DB" "command rows after the lock"
else
    echo "SKIP: overlap: needs python3 to hold the write lock"
fi
# 3. Shards under MPI: each shard's own ordinals go out and come back.
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
sharded=$(write_script sharded.lua <<'LUA'
sweep("testkit", { x = linspace(0, 1, 50), rows = {0, 1, 3} }, { print = false })
sweep("testkit", { x = {1, 2, 3}, fail = {false, true} }, { print = false, title = "failing" })
LUA
)
"$RUNNER" sweep "$sharded" --db "$TMP/sharded-one.db" --jobs 1 --quiet 2>/dev/null
for i in 1 2 3; do
    # Exit 1 where the shard holds failed points, 0 where not, as --jobs 1.
    "$RUNNER" sweep "$sharded" --db "$TMP/sharded-jobs1-$i.db" --shard "$i/3" --jobs 1 --quiet 2>/dev/null
    expected=$?
    run mpirun --oversubscribe -np 3 "$RUNNER" sweep "$sharded" --db "$TMP/sharded$i.db" --shard "$i/3" --quiet
    expect_status $expected
done
run "$RUNNER" merge "$TMP/sharded.db" "$TMP/sharded1.db" "$TMP/sharded2.db" "$TMP/sharded3.db"
expect_status 1
compare_rows "SELECT $POINT_COLUMNS FROM point ORDER BY id" "$TMP/sharded-one.db" "$TMP/sharded.db" "3 MPI shards merged"
compare_rows "SELECT * FROM testkit ORDER BY row_id" "$TMP/sharded-one.db" "$TMP/sharded.db" "3 MPI shards' rows merged"
finish
