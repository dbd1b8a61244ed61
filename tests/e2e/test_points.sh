# Point outcomes through the real binary with the testkit fixture plugin:
# failed points are stored with their message and exit status 1; NaN and
# infinities survive; every column type round-trips; the same seed gives the
# same random streams whatever the order, and another seed changes them.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

script=$(write_script points.lua <<'LUA'
local rows = sweep("testkit", {
  x    = {1, 2, 3},
  fail = {false, true},
  rows = 2,
}, { title = "testkit grid" })
-- Rows come back to Lua: failed points have none.
assert(#rows == 6, "expected 6 rows, got " .. #rows)
assert(rows[1].not_a_number ~= rows[1].not_a_number, "NaN comes back as NaN")
assert(rows[1].pos_inf == math.huge and rows[1].neg_inf == -math.huge)
assert(rows[1].tag == "a0" and rows[2].tag == "a1" and rows[1].even == true)
printf("derived: %d rows, first y = %g\n", #rows, rows[1].y)
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 1
expect_stdout_contains "derived: 6 rows, first y = 2"
expect_stdout_contains "testkit grid"
expect_stderr_contains 'runner: testkit point 1 {"x":1.0,"rows":2,"fail":true,"label":"a"} failed: testkit: asked to fail at x = 1'
expect_sql "SELECT status FROM sweep" "failed"
expect_sql "SELECT count(*), group_concat(DISTINCT error) FROM point WHERE status = 'failed'" "3|testkit: asked to fail at x = 1,testkit: asked to fail at x = 2,testkit: asked to fail at x = 3"
expect_sql "SELECT count(*) FROM point WHERE status = 'ok' AND row_count = 2" "3"
# The view rebuilds every point's parameters from its block, failed ones too.
expect_sql "SELECT group_concat(ordinal || ':' || params_json, ' ') FROM point WHERE sweep_id = 1" \
    '0:{"x":1.0,"rows":2,"fail":false,"label":"a"} 1:{"x":1.0,"rows":2,"fail":true,"label":"a"} 2:{"x":2.0,"rows":2,"fail":false,"label":"a"} 3:{"x":2.0,"rows":2,"fail":true,"label":"a"} 4:{"x":3.0,"rows":2,"fail":false,"label":"a"} 5:{"x":3.0,"rows":2,"fail":true,"label":"a"}' 
expect_sql "SELECT count(*) FROM testkit" "6"
expect_sql "SELECT DISTINCT typeof(not_a_number) || not_a_number FROM testkit" "textNaN"
expect_sql "SELECT DISTINCT typeof(pos_inf), pos_inf > 1e308, neg_inf < -1e308 FROM testkit" "real|1|1"
expect_sql "SELECT tag, even, row_index FROM testkit WHERE x = 2 ORDER BY row_index" "a0|1|0
a1|0|1"
expect_sql "SELECT unit FROM plugin_column WHERE plugin = 'testkit' AND name = 'y'" "s"

# Reproducibility: the same grid in another order, same seed -> same draws.
script2=$(write_script reversed.lua <<'LUA'
sweep("testkit", { x = {3, 2, 1}, rows = 2 }, { print = false })
LUA
)
run "$RUNNER" sweep "$script2" --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM testkit a JOIN testkit b ON a.x = b.x AND a.row_index = b.row_index AND a.random = b.random WHERE a.sweep_id = 1 AND b.sweep_id = 2" "6"
run "$RUNNER" sweep "$script2" --db "$DB" --seed 7
expect_status 0
expect_sql "SELECT count(*) FROM testkit a JOIN testkit b ON a.x = b.x AND a.random = b.random WHERE a.sweep_id = 2 AND b.sweep_id = 3" "0"
expect_sql "SELECT seed FROM sweep WHERE id = 3" "7"
# Identities differ by seed; params_json is canonical.
expect_sql "SELECT params_json FROM point WHERE sweep_id = 2 AND ordinal = 0" '{"x":3.0,"rows":2,"fail":false,"label":"a"}'
expect_sql "SELECT count(DISTINCT identity) FROM point WHERE sweep_id IN (2, 3)" "6"

# show: JSON output parses and carries NaN as a string.
run "$RUNNER" show 1 --db "$DB" --format json
expect_status 0
python3 -c "import json,sys; d=json.load(open('$TMP/out')); assert d[0]['rows'][0][5]=='NaN', d[0]['rows'][0]" || fail "show --format json"
finish
