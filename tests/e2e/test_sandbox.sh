# The sandbox, whole: a sweep script cannot run commands, read or write
# files (beyond plots under the current directory), load code from files,
# strings, bytecode or C, or use more memory or time than it is given. Each
# escape is tried and its exact refusal asserted, exit status 2 and no
# database. Then what a script may use: the exact globals, require "report".
. tests/e2e/lib.sh
RUNNER_ABS=$(cd "$(dirname "$RUNNER")" && pwd)/$(basename "$RUNNER")
MARK="$TMP/escaped"

# expect_refused NAME BODY EXPECTED_AFTER_PATH [FLAGS...]: the script
# $TMP/NAME.lua is refused with "runner: $TMP/NAME.lua:EXPECTED".
expect_refused() {
    name=$1; body=$2; expected=$3; shift 3
    printf '%s\n' "$body" >"$TMP/$name.lua"
    run "$RUNNER" sweep "$TMP/$name.lua" --db "$DB" "$@"
    expect_status 2
    expect_stderr "runner: $TMP/$name.lua:$expected"
    [ -e "$DB" ] && { fail "$name created the database"; rm -f "$DB" "$DB-wal" "$DB-shm"; }
    [ -e "$MARK" ] && { fail "$name escaped the sandbox: $MARK exists"; rm -f "$MARK"; }
}

# ---- running commands --------------------------------------------------------
expect_refused execute "os.execute('touch $MARK')" \
    "1: attempt to call a nil value (field 'execute')"
expect_refused popen "local p = io.popen('touch $MARK')" \
    "1: attempt to index a nil value (global 'io')"
# Not even as a value a pcall could probe.
expect_refused execute_probe "assert(os.execute == nil and io == nil)
os.execute('touch $MARK')" "2: attempt to call a nil value (field 'execute')"

# ---- reading and writing files -----------------------------------------------
expect_refused io_open "local f = io.open('/etc/passwd')" \
    "1: attempt to index a nil value (global 'io')"
expect_refused io_lines "for line in io.lines('/etc/passwd') do end" \
    "1: attempt to index a nil value (global 'io')"
expect_refused io_write "io.output('$MARK'):write('x')" \
    "1: attempt to index a nil value (global 'io')"
expect_refused dofile "dofile('/etc/passwd')" \
    "1: attempt to call a nil value (global 'dofile')"
expect_refused loadfile "local chunk = loadfile('/etc/passwd')" \
    "1: attempt to call a nil value (global 'loadfile')"
expect_refused remove "os.remove('$TMP/remove.lua')" \
    "1: attempt to call a nil value (field 'remove')"
expect_refused rename "os.rename('$TMP/rename.lua', '$MARK')" \
    "1: attempt to call a nil value (field 'rename')"
expect_refused tmpname "local name = os.tmpname()" \
    "1: attempt to call a nil value (field 'tmpname')"
# require takes module names, never paths.
for module in ../../etc/passwd /etc/passwd lib/report Report "" a..b .report \
              aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; do
    expect_refused require_path "require '$module'" \
        "1: require '$module': module names are lower-case words separated by dots"
done
expect_refused require_missing "require 'secrets'" \
    "1: require 'secrets': no module lib/secrets.lua next to the script or in runner's scripts/lib"
# plot() writes images, only below the current directory.
expect_refused plot_absolute "plot({}, { x = 'a', y = 'b', output = '$TMP/evil.svg' })" \
    "1: plot: output '$TMP/evil.svg' must be a relative path under the current directory"
expect_refused plot_parent "plot({}, { x = 'a', y = 'b', output = 'plots/../../evil.svg' })" \
    "1: plot: output 'plots/../../evil.svg' must not contain empty, '.' or '..' components"
expect_refused plot_not_image "plot({}, { x = 'a', y = 'b', output = 'evil.lua' })" \
    "1: plot: output 'evil.lua' must end in .svg or .png"
mkdir "$TMP/work" "$TMP/outside"
ln -s "$TMP/outside" "$TMP/work/link"
printf '%s\n' "print(plot({ { a = 1, b = 2 }, { a = 2, b = 3 } }, { x = 'a', y = 'b', output = 'link/evil.svg' }))" \
    >"$TMP/plot_link.lua"
run sh -c 'cd "$1/work" && exec "$2" sweep "$1/plot_link.lua" --db "$1/results.db"' sh "$TMP" "$RUNNER_ABS"
expect_status 0
expect_stdout_contains "plot: link: is a symbolic link; plots are written only below the current directory"
[ -z "$(ls "$TMP/outside")" ] || fail "plot() wrote through a symbolic link"
# A hard link is replaced by the new image, never written through.
echo precious >"$TMP/outside/victim.svg"
ln "$TMP/outside/victim.svg" "$TMP/work/hard.svg"
printf '%s\n' "print(plot({ { a = 1, b = 2 }, { a = 2, b = 3 } }, { x = 'a', y = 'b', output = 'hard.svg' }))" \
    >"$TMP/plot_hard.lua"
run sh -c 'cd "$1/work" && exec "$2" sweep "$1/plot_hard.lua" --db "$1/results.db"' sh "$TMP" "$RUNNER_ABS"
expect_status 0
expect_stdout_contains "hard.svg"
expect_equal "the hard-linked file outside" "$(cat "$TMP/outside/victim.svg")" "precious"
grep -q "<svg" "$TMP/work/hard.svg" || fail "plot() did not write hard.svg"
rm -f "$TMP/outside/victim.svg"

# ---- loading code ------------------------------------------------------------
expect_refused load "local f = load('return 1')" \
    "1: attempt to call a nil value (global 'load')"
expect_refused loadstring "local f = loadstring('return 1')" \
    "1: attempt to call a nil value (global 'loadstring')"
expect_refused dump "local bytecode = string.dump(print)" \
    "1: attempt to call a nil value (field 'dump')"
expect_refused dump_metatable "local bytecode = getmetatable('').__index.dump(print)" \
    "1: attempt to call a nil value (field 'dump')"
expect_refused loadlib "local open = package.loadlib('libc.so.6', 'system')" \
    "1: attempt to index a nil value (global 'package')"
expect_refused debug "local registry = debug.getregistry()" \
    "1: attempt to index a nil value (global 'debug')"
for library in package debug io; do
    expect_refused require_stdlib "local lib = require '$library'" \
        "1: require '$library': no module lib/$library.lua next to the script or in runner's scripts/lib"
done
# A C module next to the script is not even looked at: only lib/NAME.lua is.
mkdir -p "$TMP/lib"
cp "$RUNNER_FIXTURES/good/testkit.so" "$TMP/lib/cmodule.so"
expect_refused require_c "local m = require 'cmodule'" \
    "1: require 'cmodule': no module lib/cmodule.lua next to the script or in runner's scripts/lib"
# Bytecode in a module file is refused; the message names the file.
# BUG: runner prints "runner: attempt to load a binary chunk (mode is 't')"
# without naming lib/bytecode.lua (the same for a bytecode script).
printf '\033LuaT\000not really bytecode' >"$TMP/lib/bytecode.lua"
printf '%s\n' "local m = require 'bytecode'" >"$TMP/require_bytecode.lua"
run "$RUNNER" sweep "$TMP/require_bytecode.lua" --db "$DB"
expect_status 2
expect_stderr_contains "attempt to load a binary chunk (mode is 't')"
expect_stderr_contains "lib/bytecode.lua"
[ "$(wc -l <"$TMP/err" | tr -d ' ')" = 1 ] || fail "require of bytecode: not one line of stderr"

# ---- memory ------------------------------------------------------------------
printf 'local t = {}\nfor i = 1, 1e9 do t[i] = {} end\n' >"$TMP/table_growth.lua"
run "$RUNNER" sweep "$TMP/table_growth.lua" --db "$DB" --script-memory 16
expect_status 2
expect_stderr "runner: not enough memory"
# Stopping the collector does not lift the limit.
printf 'collectgarbage("stop")\nlocal t = {}\nfor i = 1, 1e9 do t[i] = string.rep("x", 1000) .. i end\n' \
    >"$TMP/no_gc.lua"
run "$RUNNER" sweep "$TMP/no_gc.lua" --db "$DB" --script-memory 16
expect_status 2
expect_stderr "runner: not enough memory"
# One allocation larger than the limit.
printf 'local s = string.rep("x", 2^30)\n' >"$TMP/big_string.lua"
run "$RUNNER" sweep "$TMP/big_string.lua" --db "$DB" --script-memory 64
expect_status 2
expect_stderr "runner: not enough memory"
expect_refused recursion "local function deeper(n) return 1 + deeper(n + 1) end
deeper(1)" "1: stack overflow"
# Errors Lua raises inside a library function carry the script's line too.
expect_refused recursion_in_gsub "local function deeper(s) return s:gsub('.', deeper) end
deeper('ab')" "1: C stack overflow"
expect_refused recursion_in_tostring "local function deeper() return tostring(setmetatable({}, { __tostring = deeper })) end
deeper()" "1: C stack overflow"
expect_refused sort_compare "local t = { 3, 1, 2 }
table.sort({ 1, 'a', 3 })" "2: attempt to compare string with number"
# error(msg, 0) asks for no position, and keeps it that way.
printf '%s\n' "error('plain', 0)" >"$TMP/error_level_0.lua"
run "$RUNNER" sweep "$TMP/error_level_0.lua" --db "$DB"
expect_status 2
expect_stderr "runner: plain"
[ -e "$DB" ] && fail "a memory failure created the database"

# ---- time --------------------------------------------------------------------
expect_refused loop "local n = 0
while true do n = n + 1 end" \
    "2: the script ran for more than 1 s of its own time (--script-timeout)" --script-timeout 1
# In a coroutine: Lua's coroutine.wrap adds the caller's position in front.
expect_refused coroutine "local spin = coroutine.wrap(function() while true do end end)
spin()" "2: $TMP/coroutine.lua:1: the script ran for more than 1 s of its own time (--script-timeout)" \
    --script-timeout 1

# The limit holds even against a script that catches errors, and even in
# one long call into Lua's C library. Both are bounded here by SIGKILL.
if command -v timeout >/dev/null 2>&1; then
    # expect_stopped NAME BODY: runner stops the script itself (the 120 s bound
    # only keeps a broken build from hanging the suite),
    # with one line naming --script-timeout (the line it names may vary).
    expect_stopped() {
        printf '%s\n' "$2" >"$TMP/$1.lua"
        run timeout -s KILL 120 "$RUNNER" sweep "$TMP/$1.lua" --db "$DB" --script-timeout 1
        [ "$status" = 2 ] || fail "$1: exit status $status (137: still running after 120 s), expected 2"
        grep -Eqx "runner: $TMP/$1.lua(:[0-9]+)?: the script ran for more than 1 s of its own time \(--script-timeout\)( inside one library call; stopped)?" \
            "$TMP/err" || fail "$1: stderr is not the timeout line: $(cat "$TMP/err")"
    }
    # pcall must not catch the timeout error.
    expect_stopped pcall_loop "while true do
  pcall(function() while true do end end)
end"
    # The count hook cannot interrupt one long call into the C library (a
    # backtracking string.find): the watchdog stops the process instead.
    expect_stopped pattern "local s = string.rep('a', 3000)
local found = s:find('.-.-.-.-b')"
    # Ctrl-C (here SIGTERM) must stop a script that catches errors, too. The
    # script stores one point first, so the test signals once it is looping.
    printf 'sweep("speedup", { workers = 1 }, { print = false })\nwhile true do\n  pcall(function() while true do end end)\nend\n' >"$TMP/pcall_signal.lua"
    rm -f "$DB" "$DB-wal" "$DB-shm"
    # --foreground: one SIGTERM reaches runner, not a second one through the
    # process group (timeout(1) sends both; a second means "leave at once").
    timeout --foreground -s KILL 120 "$RUNNER" sweep "$TMP/pcall_signal.lua" --db "$DB" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    wait_until "the pcall_signal script's point" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 1 ] || ! alive $pid'
    kill -TERM $pid 2>/dev/null
    wait_exit $pid
    status=$?
    [ "$status" = 130 ] ||
        fail "pcall_signal: exit status $status after one SIGTERM (137: ignored until killed), expected 130"
    rm -f "$DB" "$DB-wal" "$DB-shm"
else
    echo "SKIP: script that catches the timeout: needs timeout(1) to bound it"
fi

# ---- what a script has ---------------------------------------------------------
# Exactly these globals: Lua's safe libraries and runner's functions. A new
# global is a change to the sandbox: review it, then add it here.
script=$(write_script globals.lua <<'LUA'
local function keys(t)
  local names = {}
  for name in pairs(t) do names[#names + 1] = name end
  table.sort(names)
  return table.concat(names, " ")
end
printf("globals: %s\n", keys(_G))
printf("os: %s\n", keys(os))
printf("string: %s\n", keys(string))
printf("runner: %s\n", keys(runner))
printf("absent: %s %s %s %s %s\n", tostring(os.getenv), tostring(os.exit), tostring(os.execute),
       tostring(os.setlocale), tostring(string.dump))
printf("clock and dates: %s %s %s %s\n", type(os.clock()), math.type(os.time()),
       os.date("!%Y-%m-%d", 0), os.difftime(10, 4))
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 0
expected_globals="_G _VERSION assert collectgarbage command coroutine error fit getmetatable ipairs linspace logspace math next options os pairs pareto pcall plot powers_of_two print printf range rawequal rawget rawlen rawset require runner select sensitivity setmetatable string sweep table tonumber tostring type utf8 warn xpcall zip"
expect_stdout_contains "globals: $expected_globals"
expect_stdout_contains "os: clock date difftime time"
expect_stdout_contains "string: byte char find format gmatch gsub len lower match pack packsize rep reverse sub unpack upper"
expect_stdout_contains "runner: db default libexec saltelli_unit script seed version"
expect_stdout_contains "absent: nil nil nil nil nil"
expect_stdout_contains "clock and dates: number integer 1970-01-01 6.0"
[ -e "$DB" ] && fail "a script without sweeps created the database"

# require "report" comes from runner's scripts/lib; a module next to the
# script from its lib/, loaded once, with its name as its argument.
mkdir -p "$TMP/mine/lib"
printf 'local name = ...\ncount = (count or 0) + 1\nreturn { name = name }\n' >"$TMP/mine/lib/helper.lua"
cat >"$TMP/mine/uses_libs.lua" <<'LUA'
local report = require "report"
local helper = require "helper"
local again = require "helper"
printf("%s %s %s %d %s\n", report.percent(0.25), report.bytes(3 * 2^20), helper.name, count,
       tostring(helper == again))
LUA
run "$RUNNER" sweep "$TMP/mine/uses_libs.lua" --db "$DB"
expect_status 0
expect_stdout_contains "25.0% 3.0 MiB helper 1 true"
finish
