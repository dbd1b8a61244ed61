# runner diff A B (docs/cli.md): points meet by plugin and canonical
# parameters, not by id; each output column says how many rows changed and
# by how much at most; exit 0 when equal (within --tolerance), 1 when not,
# 2 for bad input: a regression gate for CI.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

# The walk-through twice, the second with one jitter changed: the points
# both hold (jitter 2) are equal, the others are only in one.
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet --set jitters=2,0.25
expect_status 0
run "$RUNNER" diff 1 1 --db "$DB" --columns speedup
expect_status 0
expect_equal "a sweep against itself" "$(cat "$TMP/out")" "sweep 1 vs sweep 1
plugin   points_in_both  only_in_a  only_in_b  status_changed  rows_unmatched  column   rows  changed  max_abs_change  max_rel_change
speedup              24          0          0               0               0  speedup    24        0               0               0
sweeps 1 and 1 are equal"
run "$RUNNER" diff 1 2 --db "$DB" --columns speedup,efficiency
expect_status 1
expect_equal "jitters 2,1,0.5 vs 2,0.25" "$(cat "$TMP/out")" "sweep 1 vs sweep 2
  plugin = speedup · points_in_both = 8 · only_in_a = 16 · only_in_b = 8 · status_changed = 0 · rows_unmatched = 0 · rows = 8 · changed = 0 · max_abs_change = 0 · max_rel_change = 0
column    
speedup   
efficiency
only in sweep 1: speedup {\"base\":30.0,\"jitter\":0.5,\"workers\":1,\"trials\":0,\"model\":\"walkthrough\",\"scaling\":\"strong\",\"model_params\":44500000,\"bytes_per_param\":4,\"latency_s\":5.0000000000000004e-6,\"bandwidth_bytes_per_s\":3125000000.0,\"reduce_bytes_per_s\":100000000000.0} and more
only in sweep 2: speedup {\"base\":30.0,\"jitter\":0.25,\"workers\":1,\"trials\":0,\"model\":\"walkthrough\",\"scaling\":\"strong\",\"model_params\":44500000,\"bytes_per_param\":4,\"latency_s\":5.0000000000000004e-6,\"bandwidth_bytes_per_s\":3125000000.0,\"reduce_bytes_per_s\":100000000000.0} and more
sweeps 1 and 2 differ"
run "$RUNNER" diff 1 2 --db "$DB" --common
expect_status 0
expect_equal "--common verdict" "$(tail -n 1 "$TMP/out")" "sweeps 1 and 2 are equal on the points both hold"
# 'last' and the other selectors work as in every command
run "$RUNNER" diff 1 last --db "$DB" --common --format csv --columns speedup
expect_status 0
expect_equal "csv" "$(cat "$TMP/out")" "plugin,points_in_both,only_in_a,only_in_b,status_changed,rows_unmatched,column,rows,changed,max_abs_change,max_rel_change
speedup,8,16,8,0,0,speedup,8,0,0,0"

# A changed value: the same points under another sweep seed give other
# random draws; every other column (NaN ones too) is equal.
grid=$(write_script grid.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3}, rows = 2 }, { print = false })
LUA
)
run "$RUNNER" sweep "$grid" --db "$DB" --quiet
expect_status 0
run "$RUNNER" sweep "$grid" --db "$DB" --quiet --seed 7
expect_status 0
run "$RUNNER" diff 3 4 --db "$DB" --format csv
expect_status 1
expect_equal "another seed" "$(cat "$TMP/out")" "plugin,points_in_both,only_in_a,only_in_b,status_changed,rows_unmatched,column,rows,changed,max_abs_change,max_rel_change
testkit,3,0,0,0,0,y,6,0,0,0
testkit,3,0,0,0,0,not_a_number,6,0,0,0
testkit,3,0,0,0,0,pos_inf,6,0,0,0
testkit,3,0,0,0,0,neg_inf,6,0,0,0
testkit,3,0,0,0,0,row_index,6,0,0,0
testkit,3,0,0,0,0,even,6,0,0,0
testkit,3,0,0,0,0,tag,6,0,0,0
testkit,3,0,0,0,0,random,6,6,0.74524726805418906,0.84809371190524419"
run "$RUNNER" diff 3 4 --db "$DB" --columns random --format json
expect_status 1
expect_equal "json" "$(python3 -c 'import json, sys
d = json.load(sys.stdin)
names = [c["name"] for c in d["columns"]]
print(d["title"], [dict(zip(names, r))["changed"] for r in d["rows"]])' <"$TMP/out")" "sweep 3 vs sweep 4 [6]"

# Tolerances: one value off by a relative 1e-10.
sqlite3 -batch "$DB" "UPDATE testkit SET y = y * (1 + 1e-10) WHERE sweep_id = 4
    AND row_id = (SELECT max(row_id) FROM testkit WHERE sweep_id = 4)"
run "$RUNNER" diff 3 4 --db "$DB" --columns y
expect_status 1
expect_stdout_contains "testkit               3          0          0               0               0  y          6        1           6e-10           1e-10"
run "$RUNNER" diff 3 4 --db "$DB" --columns y --tolerance 1e-9
expect_status 0
run "$RUNNER" diff 3 4 --db "$DB" --columns y --tolerance 1e-11
expect_status 1
run "$RUNNER" diff 3 4 --db "$DB" --columns y --abs-tolerance 1e-9
expect_status 0

# Bad input: exit 2 and one line saying why.
run "$RUNNER" diff 1 --db "$DB"
expect_status 2
expect_stderr "runner: diff needs two sweeps: runner diff A B; see 'runner --help'"
run "$RUNNER" diff 1 2 3 --db "$DB"
expect_status 2
expect_stderr "runner: diff: unexpected argument '3'; see 'runner --help'"
run "$RUNNER" diff 1 99 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep 99 with stored sections; 'runner sweeps' lists them"
run "$RUNNER" diff 1 2 --db "$DB" --columns speedup,nope
expect_status 2
expect_stderr "runner: diff: no output column 'nope' in sweep 1 or 2 ('runner show' names them)"
run "$RUNNER" diff 1 2 --db "$DB" --tolerance -1
expect_status 2
expect_stderr "runner: --tolerance -1: expected a positive relative tolerance (1e-9); see 'runner --help'"
run "$RUNNER" diff 1 2 --db "$TMP/none.db"
expect_status 2
expect_stderr "runner: $TMP/none.db: no such database (run 'runner sweep' first, or pass --db)"
finish
