# Bad scripts and bad flags: one line naming file:line, exit status 2, and
# the database never created or changed.
. tests/e2e/lib.sh

# expect_rejected SCRIPT_BODY EXPECTED_STDERR_AFTER_PATH [FLAGS...]
case_number=0
expect_rejected() {
    case_number=$((case_number + 1))
    body=$1; expected=$2; shift 2
    script="$TMP/case$case_number.lua"
    printf '%s\n' "$body" >"$script"
    run "$RUNNER" sweep "$script" --db "$DB" "$@"
    expect_status 2
    expect_stderr "runner: $script:$expected"
    [ -e "$DB" ] && { fail "case $case_number created the database"; rm -f "$DB"*; }
}

expect_rejected 'sweep "speedup" { jiter = 2 }' \
    "1: speedup: unknown parameter 'jiter' (did you mean 'jitter'?)"
expect_rejected '
sweep "speedup" {
  workers = {1, 2, 2.5},
}' "2: speedup: workers: expected an integer, got 2.5"
expect_rejected 'sweep "speedup" { workers = 0 }' \
    "1: speedup: workers: 0 is out of range [1, 10000000] workers"
expect_rejected 'sweep "speedup" { jitter = 0/0 }' \
    "1: speedup: jitter: expected a finite number, got nan"
expect_rejected 'sweep "speedup" { jitter = math.huge }' \
    "1: speedup: jitter: expected a finite number, got inf"
expect_rejected 'sweep "speedup" { jitter = "two" }' \
    "1: speedup: jitter: expected a number, got a text"
expect_rejected 'sweep "speedup" { jitter = {} }' \
    "1: speedup: jitter: a list of values must be a non-empty sequence {v1, v2, ...}"
expect_rejected 'sweep "spedup" { jitter = 1 }' \
    "1: unknown plugin 'spedup' (did you mean 'speedup'?); 'runner plugins' lists the installed ones"
expect_rejected 'local x = 1
sweep "speedup" { workers = range(1, 2000), jitter = range(1, 1000) }' \
    "2: speedup: the grid has 2000000 points, more than --max-points 1000000"
expect_rejected 'sweep "speedup" { workers = range(1, 20) }' \
    "1: speedup: the grid has 20 points, more than --max-points 10" --max-points 10
expect_rejected 'sweep "speedup" { zip { jitter = {1, 2}, base = {1, 2, 3} } }' \
    "1: speedup: zipped parameters 'base' (3 values) and 'jitter' (2 values) must have the same length"
expect_rejected 'sweep "speedup" {' \
    "2: unexpected symbol near <eof>"
expect_rejected 'local t = nil
print(t.field)' \
    "2: attempt to index a nil value (local 't')"
expect_rejected 'os.execute("touch /tmp/pwned")' \
    "1: attempt to call a nil value (field 'execute')"
expect_rejected 'io.open("/etc/passwd")' \
    "1: attempt to index a nil value (global 'io')"
expect_rejected 'require "../../etc/passwd"' \
    "1: require '../../etc/passwd': module names are lower-case words separated by dots"
expect_rejected 'load("return 1")' \
    "1: attempt to call a nil value (global 'load')"
expect_rejected 'options { jitter = 2 }' \
    "1: --set jiter: the script has no option 'jiter' (did you mean 'jitter'?)" --set jiter=1
expect_rejected 'local o = options { workers = 8 }' \
    "1: --set workers=eight: expected an integer" --set workers=eight
expect_rejected 'sweep "speedup" { }' \
    "1: --set x: the script declares no options (declare them with options{...} before the first sweep)" --set x=1

# A runaway script is stopped by its own time limit.
expect_rejected 'while true do end' \
    "1: the script ran for more than 1 s of its own time (--script-timeout)" --script-timeout 1
# A script that allocates without bound hits its heap limit.
case_number=$((case_number + 1))
printf 'local t = {}\nfor i = 1, 1e9 do t[i] = string.rep("x", 100) .. i end\n' >"$TMP/mem.lua"
run "$RUNNER" sweep "$TMP/mem.lua" --db "$DB" --script-memory 16
expect_status 2
expect_stderr "runner: not enough memory"

# Flags.
run "$RUNNER" sweep
expect_status 2
expect_stderr "runner: sweep needs a SCRIPT (e.g. runner sweep scripts/jitter.lua); see 'runner --help'"
run "$RUNNER" sweep scripts/jitter.lua --frobnicate
expect_status 2
expect_stderr "runner: sweep: unknown option '--frobnicate'; see 'runner --help'"
run "$RUNNER" sweep scripts/jitter.lua --max-points
expect_status 2
expect_stderr "runner: sweep: option '--max-points' needs a value; see 'runner --help'"
run "$RUNNER" sweep scripts/jitter.lua --max-points -3
expect_status 2
expect_stderr "runner: --max-points -3: expected a positive integer; see 'runner --help'"
run "$RUNNER" sweep "$TMP/nonexistent.lua" --db "$DB"
expect_status 2
expect_stderr "runner: $TMP/nonexistent.lua: cannot read the script: No such file or directory"
run "$RUNNER" frobnicate
expect_status 2
expect_stderr "runner: unknown command 'frobnicate'; see 'runner --help'"
run "$RUNNER" show 1 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no such database (run 'runner sweep' first, or pass --db)"
[ -e "$DB" ] && fail "a bad command created the database"

# A bad second section leaves the first stored and the database consistent.
printf 'sweep "speedup" { workers = {1, 2} }\nsweep "speedup" { workers = -1 }\n' >"$TMP/second.lua"
run "$RUNNER" sweep "$TMP/second.lua" --db "$DB"
expect_status 2
expect_stderr_contains "runner: $TMP/second.lua:2: speedup: workers: -1 is out of range"
expect_sql "SELECT status FROM sweep" "error"
expect_sql "SELECT count(*) FROM speedup" "2"
expect_sql "PRAGMA integrity_check" "ok"
finish
