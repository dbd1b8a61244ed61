# Class D of issue 28: wrong rows or values without an error. A date that
# does not exist is refused (it compared as text, so rm --until 2026-13-01
# removed every sweep); an integer written with a unit is converted exactly
# or refused (9007199254740993B went through a double to ...992); a resume
# that runs nothing leaves the sweep's times alone.
. tests/e2e/lib.sh

small=$(write_script small.lua <<'LUA'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
LUA
)
"$RUNNER" sweep "$small" --db "$DB" --quiet 2>/dev/null || fail "setup sweep failed"
"$RUNNER" sweep "$small" --db "$DB" --quiet 2>/dev/null || fail "setup sweep failed"

# 1. Strict dates: refused with the accepted forms, exit 2, nothing removed.
for bad in 2026-13-01 2026-02-30 2025-02-29 2026-04-31 2026-00-10 2026-01-00 \
           "2026-01-01T25:00" "2026-01-01T23:60" "2026-01-01 12:00:60"; do
    run "$RUNNER" rm --until "$bad" --force --db "$DB"
    expect_status 2
    expect_stderr "runner: --until $bad: no such date or time; expected a UTC date (2026-12-01), date and time (2026-12-01T14:30) or an age (90m, 2h, 7d); see 'runner --help'"
    run "$RUNNER" sweeps --since "$bad" --db "$DB"
    expect_status 2
done
# A date with control characters is echoed escaped, on one line.
run "$RUNNER" sweeps --until "$(printf '2026-01-01\033[31m\nX')" --db "$DB"
expect_status 2
expect_stderr "runner: --until 2026-01-01\\x1b[31m\\nX: expected a UTC date (2026-12-01), date and time (2026-12-01T14:30) or an age (90m, 2h, 7d); see 'runner --help'"
expect_sql "SELECT count(*) FROM sweep" "2"
# Real days at the edges still work: a leap day, the last second of a day.
run "$RUNNER" sweeps --db "$DB" --since 2024-02-29 --until "2099-12-31T23:59:59Z" --format csv
expect_status 0
expect_equal "sweeps between two real dates" "$(cut -d, -f1 "$TMP/out" | tail -n +2 | tr '\n' ' ')" "1 2 "
run "$RUNNER" rm --until 2000-02-29 --force --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep matches the filters; nothing removed"
expect_sql "SELECT count(*) FROM sweep" "2"

# 2. Integers with a unit: exact, or refused with the reason.
opts=$(write_script opts.lua <<'LUA'
local opt = options { n = { default = 8, unit = "bytes", doc = "a size" } }
print("n " .. math.type(opt.n) .. " " .. opt.n)
LUA
)
run "$RUNNER" sweep "$opts" --db "$DB" --set n=9007199254740993B
expect_status 2
expect_stderr "runner: $opts:1: --set n=9007199254740993B: 9007199254740993 is out of the exact integer range [-2^53, 2^53]"
run "$RUNNER" sweep "$opts" --db "$DB" --set n=9007199254740993.0
expect_status 2
expect_stderr "runner: $opts:1: --set n=9007199254740993.0: 9007199254740993 is out of the exact integer range [-2^53, 2^53]"
run "$RUNNER" sweep "$opts" --db "$DB" --set n=9007199254740992B
expect_status 0
expect_stdout_contains "n integer 9007199254740992"
run "$RUNNER" sweep "$opts" --db "$DB" --set n=0.3KiB
expect_status 2
expect_stderr "runner: $opts:1: --set n=0.3KiB: expected an integer, got 307.2"
# A parameter: the script's text converts the same way, into the row.
mem=$(write_script mem.lua <<'LUA'
sweep("memory", { gpu_memory_bytes = { "1.1kB", "0.5TiB" }, model_params = "7.5G", workers = 8 },
      { print = false })
LUA
)
run "$RUNNER" sweep "$mem" --db "$DB" --quiet
expect_status 0
expect_sql "SELECT DISTINCT gpu_memory_bytes, typeof(gpu_memory_bytes) FROM memory ORDER BY 1" \
"1100|integer
549755813888|integer"
bad=$(write_script bad.lua <<'LUA'
sweep("memory", { gpu_memory_bytes = "9007199254740993B", model_params = 7, workers = 8 },
      { print = false })
LUA
)
run "$RUNNER" sweep "$bad" --db "$DB" --quiet
expect_status 2
expect_stderr "runner: $bad:1: memory: gpu_memory_bytes: 9007199254740993 is out of the exact integer range [-2^53, 2^53]"

# 3. A resume of a finished sweep that runs nothing keeps its times.
DB="$TMP/resume.db"
"$RUNNER" sweep "$small" --db "$DB" --quiet 2>/dev/null || fail "setup sweep failed"
sweep_times() { sql "SELECT started_at || ' ' || ended_at || ' ' || status FROM sweep WHERE id = 1"; }
before=$(sweep_times)
# The clock moves past the recorded end (a state, not a fixed wait).
end_s=$(sql "SELECT CAST(strftime('%s', ended_at) AS INTEGER) FROM sweep WHERE id = 1")
wait_until "the clock past sweep 1's end" '[ "$(date -u +%s)" -gt "$end_s" ]'
run "$RUNNER" resume 1 --db "$DB"
expect_status 0
expect_stderr "runner: sweep 1 resumed in $DB: 0 points ok, 0 failed, 2 already stored"
expect_equal "the times of a resume that ran nothing" "$(sweep_times)" "$before"
finish
