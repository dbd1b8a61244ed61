# Integers never pass through a double (docs/guarantees.md, "Numbers"):
# range checks are exact in int64, bounds and defaults a double cannot hold
# are refused at the declaration, a number with a unit is converted exactly
# or refused, wherever the value comes from (a script's sweep, --set, a
# unit string).
. tests/e2e/lib.sh

# A command with an integer parameter bounded by max = 2^53 (a float in
# Lua, exactly 9007199254740992) and a byte count.
script=$(write_script bounded.lua <<'LUA'
local opt = options { n = { default = 1, doc = "the value" },
                      size = { default = 1, unit = "B", doc = "bytes" } }
command { name = "echo_n", argv = { "printf", "got_n=%s\\ngot_size=%s\\n", "{n}", "{size}" },
  params = { n = { type = "integer", min = 0, max = 2^53 },
             size = { type = "integer", unit = "B", default = 1 },
             r = { type = "real", default = 0 } },
  columns = { { name = "got_n", type = "integer" }, { name = "got_size", type = "integer" } },
  output = "keyvalue" }
sweep("echo_n", { n = { opt.n }, size = { opt.size } }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --set n=9007199254740992
expect_status 0
expect_sql "SELECT got_n FROM echo_n" "9007199254740992"
for bad in 9007199254740993 9223372036854775807; do
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --set n=$bad
    expect_status 2
    expect_stderr_contains "n: $bad is out of range [0, 9007199254740992]"
done
expect_sql "SELECT count(*) FROM echo_n" "1"

# A unit string with a fraction is refused, however close to a whole
# number its double is (2^52 + 1.5 rounds to 2^52 + 2 as a double).
run "$RUNNER" sweep "$script" --db "$DB" --quiet --set size=1.5B
expect_status 2
expect_stderr_contains "expected an integer, got 1.5"
run "$RUNNER" sweep "$script" --db "$DB" --quiet --set size=4503599627370497.5B
expect_status 2
expect_stderr_contains "expected an integer, got 4503599627370497.5B"
cat >"$TMP/unit.lua" <<'LUA'
command { name = "echo_n", argv = { "echo", "got_size={size}" },
  params = { size = { type = "integer", unit = "B", default = 1 } },
  columns = { { name = "got_size", type = "integer" } }, output = "keyvalue" }
sweep("echo_n", { size = { "4503599627370497.5B" } }, { print = false })
LUA
run "$RUNNER" sweep "$TMP/unit.lua" --db "$DB" --quiet
expect_status 2
expect_stderr_contains "not a whole number"
run "$RUNNER" sweep "$script" --db "$DB" --quiet --set size=4503599627370497B
expect_status 0
expect_sql "SELECT max(got_size) FROM echo_n" "4503599627370497"

# Bounds and defaults a double would round are refused where declared.
for decl in "max = 9007199254740993" "min = -9007199254740993" "default = 9007199254740993"; do
    printf 'command { name = "c", argv = { "echo", "n={n}" }, params = { n = { type = "integer", %s } },\n  columns = { { name = "got", type = "integer" } }, output = "keyvalue" }\nsweep("c", { n = { 1 } }, { print = false })\n' "$decl" >"$TMP/decl.lua"
    run "$RUNNER" sweep "$TMP/decl.lua" --db "$DB" --quiet
    expect_status 2
    expect_stderr_contains "within [-2^53, 2^53] when whole"
done
# An integer given to a real parameter past 2^53 is refused, not rounded.
cat >"$TMP/real.lua" <<'LUA'
command { name = "r", argv = { "echo", "got={r}" }, params = { r = { type = "real" } },
  columns = { { name = "got", type = "real" } }, output = "keyvalue" }
sweep("r", { r = { 9007199254740993 } }, { print = false })
LUA
run "$RUNNER" sweep "$TMP/real.lua" --db "$DB" --quiet
expect_status 2
expect_stderr_contains "r: 9007199254740993 is out of the exact integer range [-2^53, 2^53] of a real"
finish
