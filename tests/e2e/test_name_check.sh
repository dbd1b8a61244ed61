# One validator for stored names (docs/guarantees.md, "Text in and out"):
# a fit's model name from Lua and a sweep's note from the CLI are checked
# where they enter — valid UTF-8, no NUL (a Lua "a\0b" is refused, not cut
# to "a"), no control character, a length cap — and refused with one line,
# exit 2, nothing stored.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
n=0
for name in '"a\0b"' '"caf\xe9"' '"x\27[31m"' 'string.rep("n", 257)'; do
    n=$((n + 1))
    script=$(write_script "fit$n.lua" <<LUA
local rows = sweep("speedup", { workers = range(1, 6) }, { print = false })
local f = fit { rows = rows, x = "workers", y = "speedup", params = { a = 1 },
                model = function(x, p) return p.a * x end, name = $name }
LUA
)
    rm -f "$DB" "$DB-wal" "$DB-shm"
    run "$RUNNER" sweep "$script" --db "$DB" --quiet
    expect_status 2
    expect_stderr_contains "$script:2: fit{name = ...}: '"
    expect_stderr_contains "(names are UTF-8 text without control characters, 256 bytes at most)"
    expect_sql "SELECT count(*) FROM fit" "0"
done
run "$RUNNER" note 1 "$(printf 'caf\351')" --db "$DB"
expect_status 2
expect_stderr "runner: note 'caf\\xe9' is not valid UTF-8 (names are UTF-8 text without control characters, 4096 bytes at most)"
run "$RUNNER" note 1 "$(printf 'a\033[2Jb')" --db "$DB"
expect_status 2
expect_stderr "runner: note 'a\\x1b[2Jb' holds a control character (names are UTF-8 text without control characters, 4096 bytes at most)"
expect_sql "SELECT count(*) FROM sweep WHERE note IS NOT NULL" "0"
run "$RUNNER" note 1 "a fine note" --db "$DB"
expect_status 0
finish
