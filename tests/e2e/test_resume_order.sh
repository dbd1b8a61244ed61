# Row order after --resume (docs/lua-api.md, docs/performance.md): a point
# that timed out and succeeds on resume is stored again with a new id, so
# `runner show` and the rows sweep() returns list its rows after the rows
# already stored (stored order, kept so both stream from one index); the
# documented query through the point view gives grid order.
. tests/e2e/lib.sh

# The middle point takes about a CPU-second; --point-timeout 0.3 stops it.
# On a loaded machine a light point may time out too: the expected order is
# worked out from what the first run stored.
grid='{ workers = 64, trials = {1000, 10000000, 2000} }'
script=$(write_script order.lua <<LUA
sweep("straggler", $grid, { print = false })
LUA
)
# stored_order DB: the trials of the points the first run stored ok (in
# grid order), then those it did not (in grid order): the order of rows
# after the resume.
stored_order() {
    sqlite3 -batch "$1" "SELECT group_concat(t, ' ') FROM (SELECT CASE ordinal WHEN 0 THEN 1000 WHEN 1 THEN 10000000 ELSE 2000 END AS t FROM point ORDER BY status <> 'ok', ordinal)"
}
run "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --isolate --point-timeout 0.3 --quiet
expect_status 1
expect_sql "SELECT status FROM point WHERE ordinal = 1" "timeout"
expected=$(stored_order "$DB")
run "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --resume --quiet
expect_status 0
expect_sql "SELECT count(*) FROM straggler" "3"

# runner show: stored order, the resumed points last.
run "$RUNNER" show 1 --db "$DB" --format csv
expect_status 0
shown=$(awk -F, 'NR > 1 { printf "%s%s", sep, $4; sep = " " }' "$TMP/out")
expect_equal "runner show's trials column (stored order)" "$shown" "$expected"
expect_sql "SELECT group_concat(trials, ' ') FROM (SELECT trials FROM straggler ORDER BY point_id, row_id)" \
    "$expected"
# The rows sweep() returns come in the same order.
view=$(write_script view.lua <<LUA
local rows = sweep("straggler", $grid, { print = false })
local trials = {}
for _, row in ipairs(rows) do trials[#trials + 1] = tostring(row.trials) end
print("order: " .. table.concat(trials, " "))
LUA
)
run "$RUNNER" sweep "$view" --db "$TMP/view.db" --jobs 1 --isolate --point-timeout 0.3 --quiet
view_expected=$(stored_order "$TMP/view.db")
run "$RUNNER" sweep "$view" --db "$TMP/view.db" --jobs 1 --resume --quiet
expect_status 0
expect_stdout_contains "order: $view_expected"

# Grid order: through the point view, by ordinal.
expect_sql "SELECT group_concat(trials, ' ') FROM (SELECT r.trials FROM straggler AS r JOIN point AS p ON p.id = r.point_id WHERE r.section_id = 1 ORDER BY p.ordinal, r.row_id)" \
    "1000 10000000 2000"
finish
