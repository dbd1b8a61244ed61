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

# Every name a script hands runner, at each entry point (script_name.c): a
# NUL (which cut "workers\0x" to "workers", another name, before), ESC,
# bytes that are not UTF-8 and a 1 MB name are refused at the script's line
# with one line, exit 2; no section and no answer stored.
why_nul="holds a NUL byte (names are UTF-8 text without control characters, 256 bytes at most)"
n=0
# entry|Lua (NAME where the name goes)|the refusal's start
while IFS='|' read -r entry lua refused; do
    for name in '"workers\0x"' '"x\27[2J"' '"caf\xe9"' 'string.rep("w", 1048576)'; do
        n=$((n + 1))
        printf '%s\n' "${lua%%NAME*}$name${lua#*NAME}" >"$TMP/entry$n.lua"
        rm -f "$DB" "$DB-wal" "$DB-shm"
        run "$RUNNER" sweep "$TMP/entry$n.lua" --db "$DB" --quiet
        expect_status 2
        expect_stderr_contains "runner: $TMP/entry$n.lua:1: $refused '"
        expect_stderr_contains "(names are UTF-8 text without control characters,"
        [ "$(wc -c <"$TMP/err")" -lt 1000 ] || fail "$entry: the refusal of a 1 MB name is not cut"
        case $entry in
            answer*) [ "$(db_count "$DB" "SELECT count(*) FROM fit")" = 0 ] ||
                         fail "$entry: a fit was stored" ;;
            *) [ ! -e "$DB" ] || [ "$(db_count "$DB" "SELECT count(*) FROM section")" = 0 ] ||
                   fail "$entry: a section was stored" ;;
        esac
    done
done <<'ENTRIES'
grid parameter|sweep("speedup", { [NAME] = { 1, 2 } }, { print = false })|speedup: parameter
section title|sweep("speedup", { workers = { 1 } }, { print = false, title = NAME })|speedup: title
printed columns|sweep("speedup", { workers = { 1 } }, { print = false, columns = { NAME } })|speedup: columns:
plugin|sweep(NAME, { workers = { 1 } }, { print = false })|sweep: plugin
command name|command { name = NAME, argv = { "echo", "y=1" }, output = "keyvalue", columns = { { name = "y", type = "integer" } } }|command
command column|command { name = "c", argv = { "echo", "y=1" }, output = "keyvalue", columns = { { name = NAME, type = "integer" } } }|command 'c': columns
command column by key|command { name = "c", argv = { "echo", "y=1" }, output = "keyvalue", columns = { [NAME] = { type = "integer" } } }|command 'c': columns
command parameter|command { name = "c", argv = { "echo", "y={v}" }, output = "keyvalue", params = { { name = NAME, type = "integer" } }, columns = { y = { type = "integer" } } }|command 'c': params
command pattern|command { name = "c", argv = { "echo", "y=1" }, output = { [NAME] = "y=(.*)" }, columns = { y = { type = "integer" } } }|command 'c': output
option|local o = options { [NAME] = { default = 1, doc = "d" } }|options{...}:
answer fit x|local r = sweep("speedup", { workers = { 1, 2, 4 } }, { print = false }); fit{ rows = r, x = NAME, y = "speedup", model = "amdahl" }|fit{x = ...}:
answer fit params|local r = sweep("speedup", { workers = { 1, 2, 4 } }, { print = false }); fit{ rows = r, x = "workers", y = "speedup", params = { [NAME] = 1 }, model = function(x, p) return x end }|fit{params = ...}:
answer pareto|local r = sweep("speedup", { workers = { 1, 2, 4 } }, { print = false }); pareto{ rows = r, min = { NAME }, max = "speedup" }|pareto{min = ...}:
answer sensitivity|local r = sweep("speedup", { workers = { 1, 2, 4 } }, { print = false }); sensitivity{ rows = r, y = NAME }|sensitivity{y = ...}:
answer filter|local r = sweep("speedup", { workers = { 1, 2, 4 } }, { print = false }); r:filter{ [NAME] = 2 }|rows:find/filter:
answer plot|local r = sweep("speedup", { workers = { 1, 2, 4 } }, { print = false }); plot(r, { x = NAME, y = "speedup", output = "p.svg" })|plot:
ENTRIES
# the exact line, once
printf '%s\n' 'sweep("speedup", { ["workers\0x"] = { 1, 2 } }, { print = false })' >"$TMP/nul.lua"
run "$RUNNER" sweep "$TMP/nul.lua" --db "$DB" --quiet
expect_status 2
expect_stderr "runner: $TMP/nul.lua:1: speedup: parameter 'workers' $why_nul"
finish
