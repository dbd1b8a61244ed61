# Row order after --resume (docs/lua-api.md, docs/performance.md): a point
# that timed out and succeeds on resume is stored again with a new id, so
# `runner show` and the rows sweep() returns list its rows after the rows
# already stored (stored order, kept so both stream from one index); the
# documented query through the point view gives grid order.
. tests/e2e/lib.sh

# The middle point takes about a CPU-second; --point-timeout 0.1 stops it.
script=$(write_script order.lua <<'LUA'
sweep("straggler", { workers = 64, trials = {1000, 10000000, 2000} }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --isolate --point-timeout 0.1 --quiet
expect_status 1
expect_sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM point ORDER BY ordinal)" \
    "ok timeout ok"
run "$RUNNER" sweep "$script" --db "$DB" --jobs 1 --resume --quiet
expect_status 0
expect_sql "SELECT count(*) FROM straggler" "3"

# runner show: stored order, the resumed point last.
run "$RUNNER" show 1 --db "$DB" --format csv
expect_status 0
shown=$(awk -F, 'NR > 1 { printf "%s%s", sep, $4; sep = " " }' "$TMP/out")
expect_equal "runner show's trials column (stored order)" "$shown" "1000 2000 10000000"
expect_sql "SELECT group_concat(trials, ' ') FROM (SELECT trials FROM straggler ORDER BY point_id, row_id)" \
    "1000 2000 10000000"
# The rows sweep() returns come in the same order.
view=$(write_script view.lua <<'LUA'
local rows = sweep("straggler", { workers = 64, trials = {1000, 10000000, 2000} }, { print = false })
local trials = {}
for _, row in ipairs(rows) do trials[#trials + 1] = tostring(row.trials) end
print(table.concat(trials, " "))
LUA
)
run "$RUNNER" sweep "$view" --db "$TMP/view.db" --jobs 1 --isolate --point-timeout 0.1 --quiet
run "$RUNNER" sweep "$view" --db "$TMP/view.db" --jobs 1 --resume --quiet
expect_status 0
expect_stdout_contains "1000 2000 10000000"

# Grid order: through the point view, by ordinal.
expect_sql "SELECT group_concat(trials, ' ') FROM (SELECT r.trials FROM straggler AS r JOIN point AS p ON p.id = r.point_id WHERE r.section_id = 1 ORDER BY p.ordinal, r.row_id)" \
    "1000 10000000 2000"
finish
