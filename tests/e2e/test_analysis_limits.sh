# fit{}, pareto{} and sensitivity{} are the script's work (docs/guarantees.md,
# "The script's limits"): their time counts toward --script-timeout and the
# rows they hold toward --script-memory, checked inside their C loops, so a
# script looping over an analysis, or one analysis too big for the limits,
# stops with the limit's line (exit 2) instead of running on.
. tests/e2e/lib.sh
command -v timeout >/dev/null 2>&1 || { echo "SKIP: needs timeout(1) to bound a hang"; exit 77; }
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

# A section of 20 rows to fit and rank; a Saltelli section to analyse.
rows_lua='local rows = sweep("speedup", { workers = range(1, 20) }, { print = false })'
# loop ANALYSIS: a script calling ANALYSIS again and again, forever. The
# 120 s bound only keeps a broken build from hanging the suite.
loop() {
    write_script "loop_$1.lua" <<LUA
$rows_lua
local design = require "design"
local space = { x1 = design.uniform(-3, 3), x2 = design.uniform(-3, 3), x3 = design.uniform(-3, 3) }
local ishigami = sweep("ishigami", { design.saltelli(64, space) }, { print = false })
local calls = 0
while true do
  calls = calls + 1
  $2
end
LUA
}
for analysis in fit pareto sensitivity; do
    case $analysis in
        fit) call='assert(fit { rows = rows, x = "workers", y = "speedup", model = "amdahl" })' ;;
        pareto) call='assert(pareto { rows = rows, min = "workers", max = "speedup" })' ;;
        sensitivity) call='assert(sensitivity { rows = ishigami, y = "y", bootstrap = 2000 })' ;;
    esac
    rm -f "$DB" "$DB-wal" "$DB-shm"
    script=$(loop $analysis "$call")
    run timeout -s KILL 120 "$RUNNER" sweep "$script" --db "$DB" --script-timeout 2 --quiet
    expect_status 2
    expect_stderr_contains "the script ran for more than 2 s of its own time (--script-timeout)"
    expect_sql "SELECT status FROM sweep" "error"
done

# One analysis bigger than the memory left: 100000 rows of three objectives
# (about 4 MB held by pareto{}) with --script-memory 2. The rows are the
# testkit fixture's, 1000 a point (a command's 100000 lines of output took
# past the 60 s a point's output may take to parse under the sanitizers).
script=$(write_script big.lua <<'LUA'
local rows = sweep("testkit", { x = linspace(0, 1, 100), rows = { 1000 } }, { print = false })
local front = pareto { rows = rows, min = { "random", "y" }, max = { "row_index" } }
printf("front: %d\n", #front)
LUA
)
rm -f "$DB" "$DB-wal" "$DB-shm"
run timeout -s KILL 120 "$RUNNER" sweep "$script" --db "$DB" --script-memory 2 --quiet \
    --plugin-dir "$RUNNER_FIXTURES/good"
expect_status 2
expect_stderr_contains "$script:2: pareto{} needed more memory than the script has left (--script-memory 2 MiB)"
expect_sql "SELECT count(*) FROM testkit" "100000"
expect_sql "SELECT count(*) FROM pareto" "0"
finish
