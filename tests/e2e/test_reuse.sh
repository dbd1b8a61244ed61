# runner sweep --reuse (docs/cli.md): a point this database already holds ok
# with the same plugin file, identity (plugin, version, canonical
# parameters, sweep seed) and seed is copied, not run; the copy names its
# source in point.reused_from and its rows are those a run gives. An edited
# script reruns only what changed.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

# testkit: two rows per point, NaN, infinities, -0.0 (label z) and a value
# from the point's random stream, so a copy with the wrong seed would show.
v1=$(write_script v1.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3}, rows = 2, label = {"a", "z"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$v1" --db "$DB" --quiet
expect_status 0
expect_stderr "runner: sweep 1 stored in $DB: 6 points ok, 0 failed"

# 1. The edited script: one more x value. Only its two points run.
v2=$(write_script v2.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3, 4}, rows = 2, label = {"a", "z"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$v2" --db "$DB" --quiet --reuse
expect_status 0
expect_stderr "runner: sweep 2 stored in $DB: 8 points ok, 0 failed, 6 reused"
expect_sql "SELECT count(*), count(reused_from) FROM point WHERE sweep_id = 2" "8|6"
expect_sql "SELECT group_concat(json_extract(params_json, '$.x'), ',') FROM point
    WHERE sweep_id = 2 AND reused_from IS NULL" "4.0,4.0"
# each copy names the point with its identity and seed in sweep 1
expect_sql "SELECT count(*) FROM point AS p JOIN point AS q ON q.id = p.reused_from
    WHERE p.sweep_id = 2 AND q.sweep_id = 1 AND q.identity = p.identity AND q.seed = p.seed" "6"
expect_sql "SELECT count(*) FROM testkit WHERE sweep_id = 2" "16"
run "$RUNNER" diff 1 2 --db "$DB" --common
expect_status 0
expect_equal "diff of the shared points" "$(tail -n 1 "$TMP/out")" \
    "sweeps 1 and 2 are equal on the points both hold"
run "$RUNNER" diff 1 2 --db "$DB"
expect_status 1

# 2. The rows are those a run gives: the same script run without --reuse.
run "$RUNNER" sweep "$v2" --db "$DB" --quiet
expect_status 0
expect_stderr "runner: sweep 3 stored in $DB: 8 points ok, 0 failed"
run "$RUNNER" diff 2 3 --db "$DB"
expect_status 0
COLS="x, rows, fail, label, y, not_a_number, pos_inf, neg_inf, row_index, even, tag, random"
expect_sql "SELECT count(*) FROM (SELECT $COLS FROM testkit WHERE sweep_id = 2
    EXCEPT SELECT $COLS FROM testkit WHERE sweep_id = 3)" "0"
expect_sql "SELECT group_concat(typeof(not_a_number) || ':' || not_a_number, ',') FROM
    (SELECT DISTINCT not_a_number FROM testkit WHERE sweep_id = 2)" "text:NaN"
# in the same order: rows of point k of both sweeps line up
expect_sql "SELECT count(*) FROM (SELECT row_number() OVER (ORDER BY row_id) AS n, random
    FROM testkit WHERE sweep_id = 2) AS a JOIN (SELECT row_number() OVER (ORDER BY row_id)
    AS n, random FROM testkit WHERE sweep_id = 3) AS b USING (n) WHERE a.random = b.random" "16"

# 3. Another sweep seed is another computation: nothing is reused.
run "$RUNNER" sweep "$v2" --db "$DB" --quiet --reuse --seed 1
expect_status 0
expect_stderr "runner: sweep 4 stored in $DB: 8 points ok, 0 failed, 0 reused"
run "$RUNNER" diff 3 4 --db "$DB" --columns random
expect_status 1

# 4. Threads: every point copied, the same rows.
run "$RUNNER" sweep "$v2" --db "$DB" --quiet --reuse --jobs 4
expect_status 0
expect_stderr "runner: sweep 5 stored in $DB: 8 points ok, 0 failed, 8 reused"
run "$RUNNER" diff 3 5 --db "$DB"
expect_status 0

# 5. Failed points are never copied; with --resume, the sweep's own points
# stay, the failed run again and the rest are copied from other sweeps.
ff=$(write_script ff.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3, 4}, fail = {false, true} }, { print = false })
LUA
)
ok_only=$(write_script ok_only.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3, 4}, fail = false }, { print = false })
LUA
)
run "$RUNNER" sweep "$ok_only" --db "$DB" --quiet
expect_status 0
run "$RUNNER" sweep "$ff" --db "$DB" --quiet --fail-fast
expect_status 1
expect_sql "SELECT count(*) FROM point WHERE sweep_id = 7" "2"
run "$RUNNER" sweep "$ff" --db "$DB" --quiet --resume --reuse
expect_status 1
expect_stderr_contains "runner: sweep 7 resumed in $DB: 3 points ok, 4 failed, 1 already stored, 3 reused"
expect_sql "SELECT count(*), sum(status = 'ok'), count(reused_from) FROM point WHERE sweep_id = 7" "8|4|3"
run "$RUNNER" sweep "$ff" --db "$DB" --quiet --reuse
expect_status 1
expect_stderr_contains "runner: sweep 8 stored in $DB: 4 points ok, 4 failed, 4 reused"

# 6. Another plugin file (same name and version, other bytes) is not the
# same computation: nothing is copied.
mkdir -p "$TMP/other"
cp "$RUNNER_FIXTURES/good/testkit.so" "$TMP/other/testkit.so"
printf 'x' >>"$TMP/other/testkit.so"
run "$RUNNER" sweep "$v2" --db "$DB" --quiet --reuse --plugin-dir "$TMP/other"
expect_status 0
expect_stderr "runner: sweep 9 stored in $DB: 8 points ok, 0 failed, 0 reused"

# 7. Under MPI, rank 0 copies and the workers run the rest.
if command -v mpirun >/dev/null 2>&1; then
    mpi_environment
    v3=$(write_script v3.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3, 4, 5}, rows = 2, label = {"a", "z"} }, { print = false })
LUA
)
    run mpirun --oversubscribe -np 2 "$RUNNER" sweep "$v3" --db "$DB" --quiet --reuse
    expect_status 0
    expect_stderr_contains "runner: sweep 10 stored in $DB: 10 points ok, 0 failed, 8 reused"
    run "$RUNNER" diff 3 10 --db "$DB" --common
    expect_status 0
fi
finish
