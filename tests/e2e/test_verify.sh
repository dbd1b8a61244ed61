# runner verify SWEEP (docs/cli.md): the stored points run again in memory,
# with their stored parameters and seeds; the rows are compared bit for
# bit, each plugin file against the SHA-256 the sweep recorded; exit 0
# reproduced, 1 not (saying which points and columns), 2 bad input. The
# database is only read.
. tests/e2e/lib.sh

# The walk-through (docs/science.md): every row reproduced.
n=0
for script in seed jitter stragglers vnodes params; do
    run "$RUNNER" sweep "scripts/$script.lua" --db "$DB" --quiet
    expect_status 0
    n=$((n + 1))
    points=$(sql "SELECT sum(point_count) FROM point_block WHERE sweep_id = $n")
    run "$RUNNER" verify last --db "$DB"
    expect_status 0
    expect_equal "verify $script.lua" "$(cat "$TMP/out")" \
        "sweep $n reproduced: $points of $points points run again, every row identical"
done

# Nothing is written, not even to the WAL.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
before=$(sha256sum <"$DB")
run "$RUNNER" verify 1 --db "$DB"
expect_status 0
expect_equal "database bytes after verify" "$(sha256sum <"$DB")" "$before"
[ -s "$DB-wal" ] && fail "verify wrote to the WAL"

# testkit: random draws, NaN, infinities, -0.0 and failed points (which
# must fail again).
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
grid=$(write_script grid.lua <<'LUA'
sweep("testkit", { x = {1, 2, 3}, rows = 2, fail = {false, true}, label = {"a", "z"} },
      { print = false })
LUA
)
run "$RUNNER" sweep "$grid" --db "$DB" --quiet --seed 11
expect_status 1
run "$RUNNER" verify 6 --db "$DB"
expect_status 0
expect_equal "testkit" "$(cat "$TMP/out")" "sweep 6 reproduced: 12 of 12 points run again, every row identical"

# One value changed: found, named, exit 1.
orig=$(sql "SELECT printf('%!.17g', random) FROM testkit WHERE sweep_id = 6 ORDER BY row_id LIMIT 1")
sqlite3 -batch "$DB" "UPDATE testkit SET random = 0.25 WHERE row_id = (SELECT min(row_id) FROM testkit WHERE sweep_id = 6)"
point=$(sql "SELECT point_id FROM testkit WHERE sweep_id = 6 ORDER BY row_id LIMIT 1")
params=$(sql "SELECT params_json FROM point WHERE id = $point")
run "$RUNNER" verify 6 --db "$DB"
expect_status 1
expect_equal "first line" "$(head -n 1 "$TMP/out")" "point $point (testkit $params): row 1, random: stored 0.25, now $orig"
expect_equal "verdict" "$(tail -n 1 "$TMP/out")" \
    "sweep 6 not reproduced: 1 of 12 points run again differ (columns: testkit.random)"

# --sample N: exactly N points, the same ones for the same --seed.
run "$RUNNER" verify 6 --db "$DB" --sample 6 --seed 1
first=$(cat "$TMP/out")
run "$RUNNER" verify 6 --db "$DB" --sample 6 --seed 1
expect_equal "the same sample twice" "$(cat "$TMP/out")" "$first"
caught=0
for seed in 1 2 3 4 5 6 7 8; do
    run "$RUNNER" verify 6 --db "$DB" --sample 3 --seed "$seed"
    case $(tail -n 1 "$TMP/out") in
    "sweep 6 reproduced: 3 of 12 points run again, every row identical") ;;
    "sweep 6 not reproduced: 1 of 3 points run again differ (columns: testkit.random)") caught=$((caught + 1)) ;;
    *) fail "--sample 3 --seed $seed: $(tail -n 1 "$TMP/out")" ;;
    esac
done
[ "$caught" -gt 0 ] && [ "$caught" -lt 8 ] || fail "8 samples of 3 caught the changed point $caught times"
run "$RUNNER" verify 6 --db "$DB" --sample 100
expect_status 1
expect_equal "a sample above the count" "$(tail -n 1 "$TMP/out")" \
    "sweep 6 not reproduced: 1 of 12 points run again differ (columns: testkit.random)"

# Another plugin file: said, never hidden, exit 1 even with the rows equal.
mkdir -p "$TMP/other"
cp "$RUNNER_FIXTURES/good/testkit.so" "$TMP/other/testkit.so"
printf 'x' >>"$TMP/other/testkit.so"
run "$RUNNER" sweep "$grid" --db "$DB" --quiet
expect_status 1
stored=$(sql "SELECT so_sha256 FROM sweep_plugin WHERE sweep_id = 7")
now=$(sha256sum "$TMP/other/testkit.so" | cut -d' ' -f1)
run "$RUNNER" verify 7 --db "$DB" --plugin-dir "$TMP/other"
expect_status 1
expect_equal "another file" "$(cat "$TMP/out")" "testkit: $TMP/other/testkit.so is not the file sweep 7 used: sha256 $now now, $stored then
sweep 7 not verified: 12 of 12 points run again, every row identical, but not by the plugin file it used"

# Bad input.
run "$RUNNER" verify --db "$DB"
expect_status 2
expect_stderr "runner: verify needs a SWEEP: an id, last, a name, a script or tag:T (see 'runner sweeps'); see 'runner --help'"
run "$RUNNER" verify 99 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep 99 with stored sections; 'runner sweeps' lists them"
run "$RUNNER" verify 6 --db "$DB" --sample 0
expect_status 2
expect_stderr "runner: --sample 0: expected a positive integer; see 'runner --help'"
RUNNER_PLUGIN_PATH= run "$RUNNER" verify 6 --db "$DB"
expect_status 2
expect_stderr_contains "runner: verify: sweep 6 used plugin \"testkit\": unknown plugin 'testkit'"
finish
