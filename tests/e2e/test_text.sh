# Text in and out (docs/guarantees.md, "Text in and out"): text that is not
# UTF-8 is refused where it enters or kept byte for byte, never dropped;
# every output format shows it (table escaped, CSV raw, JSON with U+FFFD)
# without losing a field; a negative zero reads back the same in a first
# run and a resume; a failure message is stored as written and printed on
# one line.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
export LC_ALL=C  # grep compares bytes
latin1=$(printf 'caf\351')             # "café" in Latin-1: not UTF-8
replaced=$(printf 'caf\357\277\275')   # what JSON shows: U+FFFD for the byte

# --- a --set value that is not UTF-8 is refused before anything is stored
script=$(write_script options.lua <<'LUA'
local o = options { name = "plain" }
sweep("testkit", { label = "a" }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --set "name=$latin1"
expect_status 2
expect_stderr 'runner: --set name=caf\xe9: not valid UTF-8; runner keeps options as UTF-8 text'
[ -e "$DB" ] && expect_sql "SELECT count(*) FROM sweep" "0"
# ... and so is an option's default that JSON cannot hold (it was dropped).
script=$(write_script default.lua <<'LUA'
local o = options { name = { "plain", "caf\xe9" } }
sweep("testkit", { label = "a" }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 2
expect_stderr "runner: $script:1: options{...}: name: text is not valid UTF-8"
[ -e "$DB" ] && expect_sql "SELECT count(*) FROM sweep" "0"

# --- a script path and a title that are not UTF-8, in every format. A
# title is a name checked where it enters (name_check): the script's own
# Latin-1 title is refused, nothing stored ...
cat >"$TMP/$latin1.lua" <<'LUA'
sweep("testkit", { x = { 1, 2 } }, { title = "caf\xe9 title", print = false })
LUA
run "$RUNNER" sweep "$TMP/$latin1.lua" --db "$DB"
expect_status 2
expect_stderr "runner: $TMP/caf\xe9.lua:1: testkit: title 'caf\xe9 title' is not valid UTF-8 (names are UTF-8 text without control characters, 4096 bytes at most)"
# ... and one an older runner stored is shown in every format as below.
cat >"$TMP/$latin1.lua" <<'LUA'
sweep("testkit", { x = { 1, 2 } }, { title = "old title", print = false })
LUA
run "$RUNNER" sweep "$TMP/$latin1.lua" --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM section" "1" # the refused script stored none
sqlite3 "$DB" "UPDATE section SET title = CAST(X'636166E9207469746C65' AS TEXT)"
expect_sql "SELECT script_path = '$TMP/$latin1.lua' FROM sweep WHERE status = 'ok'" "1"
# json_doc PATH: the value at PATH in the JSON document on stdout.
json_doc() {
    sqlite3 -batch :memory: "SELECT json_extract(readfile('$TMP/out'), '$1')"
}
json_count() {
    sqlite3 -batch :memory: "SELECT json_array_length(readfile('$TMP/out'), '$1')"
}
run "$RUNNER" sweeps --db "$DB"
expect_status 0
expect_stdout_contains "$TMP/caf\\xe9.lua"
run "$RUNNER" sweeps --db "$DB" --format csv
expect_status 0
expect_stdout_contains ",$TMP/$latin1.lua,,ok,"   # name, script, tags, status
run "$RUNNER" sweeps --db "$DB" --format json
expect_status 0
expect_equal "sweeps json: one value per column" "$(json_count '$.rows[#-1]')" \
    "$(json_count '$.columns')"
expect_equal "sweeps json: the script" "$(json_doc '$.rows[#-1][2]')" "$TMP/$replaced.lua"
run "$RUNNER" show last --db "$DB"
expect_status 0
expect_stdout_contains 'caf\xe9 title'
run "$RUNNER" show last --db "$DB" --format csv
expect_status 0
expect_stdout_contains "x,rows,fail,label,y"
run "$RUNNER" show last --db "$DB" --format json
expect_status 0
expect_equal "show json: the title" "$(json_doc '$[0].title')" "$replaced title"
expect_equal "show json: one value per column" "$(json_count '$[0].rows[1]')" \
    "$(json_count '$[0].columns')"

# --- -0.0 from a plugin reads the same in the first run and in a resume
script=$(write_script zero.lua <<'LUA'
local rows = sweep("testkit", { label = "z", x = { 1, 2 }, fail = { false, true } },
                   { print = false })
for _, r in ipairs(rows) do print(r.x, tostring(r.y)) end
LUA
)
rm -f "$DB"
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 1
first=$(cat "$TMP/out")
expect_equal "first run: y is one zero" "$first" "$(printf '1.0\t0.0\n2.0\t0.0')"
# --- a failure message with a newline and an escape code: one line on
# stderr, stored as the plugin wrote it
expect_stderr_contains 'failed: testkit: asked to fail at x = 1\n\x1b[31mtwice'
expect_equal "failure lines on stderr" "$(grep -c 'failed: testkit' "$TMP/err")" "2"
expect_sql "SELECT count(*) FROM point WHERE error = 'testkit: asked to fail at x = 1' || char(10, 27) || '[31mtwice'" "1"
run "$RUNNER" sweep "$script" --db "$DB" --resume
expect_status 1
expect_stderr_contains "2 already stored"
expect_equal "resumed run: the rows Lua sees" "$(cat "$TMP/out")" "$first"

finish
