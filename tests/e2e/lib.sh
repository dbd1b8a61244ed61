# Shared helpers for the end-to-end tests (POSIX sh). Each test sources this,
# works in its own temporary directory, and exits non-zero on the first
# failed expectation, printing what was expected and what came out.
set -u
: "${RUNNER:=build/runner}"
: "${RUNNER_FIXTURES:=build/fixtures}"
: "${RUNNER_BUILD:=build}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/runner-e2e.XXXXXX")
# On exit, also what the test left running (a server, a sweep it stopped
# waiting for): it would hold ctest's output pipe open, and ctest waits
# for that pipe to close.
trap 'for p in $(descendants $$); do kill -KILL "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
DB="$TMP/results.db"
# Every curl a test runs gives up after two minutes (curl reads
# $CURL_HOME/.curlrc; runner's libcurl does not): a request a server never
# answers fails the test instead of hanging it.
mkdir -p "$TMP/curl-home"
echo "max-time = 120" >"$TMP/curl-home/.curlrc"
export CURL_HOME="$TMP/curl-home"
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run CMD...: runs a command, keeping stdout in $TMP/out, stderr in $TMP/err
# and the exit status in $status.
run() {
    "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
}

expect_status() {
    if [ "$status" != "$1" ]; then
        fail "expected exit status $1, got $status"
        echo "--- stdout:" >&2; cat "$TMP/out" >&2
        echo "--- stderr:" >&2; cat "$TMP/err" >&2
    fi
}

# expect_stderr TEXT: stderr is exactly TEXT (one line).
expect_stderr() {
    actual=$(cat "$TMP/err")
    if [ "$actual" != "$1" ]; then
        fail "stderr differs"
        echo "  expected: $1" >&2
        echo "  actual:   $actual" >&2
    fi
}

# expect_stderr_contains TEXT
expect_stderr_contains() {
    if ! grep -qF -- "$1" "$TMP/err"; then
        fail "stderr lacks: $1"
        echo "  actual: $(cat "$TMP/err")" >&2
    fi
}

expect_stdout_contains() {
    if ! grep -qF -- "$1" "$TMP/out"; then
        fail "stdout lacks: $1"
        echo "--- stdout:" >&2; cat "$TMP/out" >&2
    fi
}

# sql QUERY: prints the query's result from $DB.
sql() {
    sqlite3 -batch "$DB" "$1"
}

# expect_sql QUERY EXPECTED
expect_sql() {
    actual=$(sql "$1")
    if [ "$actual" != "$2" ]; then
        fail "query: $1"
        echo "  expected: $2" >&2
        echo "  actual:   $actual" >&2
    fi
}

# expect_equal WHAT ACTUAL EXPECTED
expect_equal() {
    if [ "$2" != "$3" ]; then
        fail "$1"
        echo "  expected: $3" >&2
        echo "  actual:   $2" >&2
    fi
}

# wait_until WHAT CONDITION...: runs the shell CONDITION every 20 ms until it
# succeeds. Tests wait on state (a row, a file, a process), never for a fixed
# time, so they pass on a loaded machine; WAIT_LIMIT_S (default 300) only
# bounds a test that would otherwise hang, and then fails it naming WHAT.
wait_until() {
    what=$1
    shift
    polls=$(( ${WAIT_LIMIT_S:-300} * 50 ))
    while ! eval "$*"; do
        polls=$((polls - 1))
        if [ "$polls" -le 0 ]; then
            fail "gave up waiting for $what"
            return 1
        fi
        sleep 0.02
    done
    return 0
}

# alive PID: the process runs (a child that exited but was not waited for is
# a zombie, which kill -0 still reaches).
alive() {
    kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1" | cut -c1)" != Z ]
}

# all_stopped PID: every thread of PID is stopped (state T in its stat).
# `kill -STOP` returns before each thread has stopped: one still running
# may yet take a lock, so wait for this before looking at what it holds.
all_stopped() {
    for stat in /proc/"$1"/task/*/stat; do
        [ "$(sed 's/^.*) \([A-Za-z]\).*$/\1/' "$stat" 2>/dev/null)" = T ] || return 1
    done
    return 0
}

# db_count DB QUERY: the query's single number, 0 while the file or its tables
# do not exist yet (a sweep that has not started).
db_count() {
    n=$(sqlite3 -readonly -batch "$1" "$2" 2>/dev/null) || n=0
    echo "${n:-0}"
}

# start_slow_sweep NAME SWEEP_ID: starts, in the background on $DB, a sweep
# of thousands of points of about half a second each (straggler's Monte
# Carlo, one at a time), sets sweep_pid, and waits until its first point
# (of sweep SWEEP_ID) is stored. Stop it with kill -INT $sweep_pid.
start_slow_sweep() {
    slow=$(write_script "$1.lua" <<'LUA'
sweep("straggler", { workers = 500, trials = 1000000, seed = range(1, 5000) }, { print = false })
LUA
)
    "$RUNNER" sweep "$slow" --db "$DB" --jobs 1 --quiet >"$TMP/$1.out" 2>"$TMP/$1.err" &
    sweep_pid=$!
    wait_until "sweep $2's first point" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point WHERE sweep_id = '"$2"'")" -ge 1 ] || ! alive $sweep_pid'
}

# noisy_awk COUNT: writes $TMP/noisy.awk, which prints COUNT seeded
# "time_s=" lines (awk -v seed=S, and -v size=X or 1) around $SLOW * size
# ($SLOW 1 unless set): the mean of 12 uniforms, nearly normal, sd 5 %.
noisy_awk() {
    cat >"$TMP/noisy.awk" <<AWK
BEGIN {
    slow = ENVIRON["SLOW"] ? ENVIRON["SLOW"] : 1
    scale = size ? size : 1
    srand(seed % 2147483647)
    for (i = 0; i < $1; i++) {
        u = 0
        for (k = 0; k < 12; k++) u += rand()
        printf "time_s=%.9f\n", slow * scale * (1 + 0.05 * (u - 6))
    }
}
AWK
}

# write_script NAME <<EOF ... : a Lua script in the temp dir; prints its path.
write_script() {
    cat >"$TMP/$1"
    echo "$TMP/$1"
}

# skip_without TOOL REASON: when TOOL is not on PATH the test stops there,
# skipped (status 77, "SKIP: REASON"). Under `make test`, which installs every
# tool the tests use, RUNNER_TEST_REQUIRE_TOOLS is set and a missing tool is
# a failure instead: in CI a skipped check must not pass unseen.
skip_without() {
    command -v "$1" >/dev/null 2>&1 || skip_missing "$1" "$2"
}

# skip_missing TOOL REASON: the same, for a tool the test found missing its
# own way. Expectations that already failed are reported first.
skip_missing() {
    [ "$failures" -eq 0 ] || finish
    if [ -n "${RUNNER_TEST_REQUIRE_TOOLS:-}" ]; then
        echo "FAIL: $1 is required under make test (RUNNER_TEST_REQUIRE_TOOLS is set): $2" >&2
        exit 1
    fi
    echo "SKIP: $2"
    exit 77
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures expectation(s) failed" >&2
        exit 1
    fi
    echo "ok"
    exit 0
}

# runner_schema: the schema version this runner writes, as it reports it
# (tests never hard-code it: several changes may add a version at once).
runner_schema() {
    "$RUNNER" --version | sed 's/.*schema \([0-9]*\).*/\1/'
}

# mpi_environment: what a test that starts Open MPI sets first.
mpi_environment() {
    if [ "$(id -u)" = 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    # Containers often forbid the cross-process memory reads of Open MPI's
    # shared-memory transport; copying through the shared segment always works.
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    # Each test its own session directory: two mpiruns starting at once
    # race to create /tmp/ompi.HOST.UID, and the loser fails in orte_init
    # ("A call to mkdir was unable to create the desired directory").
    export OMPI_MCA_orte_tmpdir_base="$TMP"
}

# wait_exit PID: waits for a background child of this shell to end and
# returns its exit status, as wait does. One still running after
# WAIT_EXIT_S seconds (240 by default, under ctest's 300) has hung: the
# test fails with the stacks of it and its children (show_stacks) and
# kills them, so a hang is this test's failure with the place it hung,
# not a suite that never ends.
wait_exit() {
    if ! WAIT_LIMIT_S=${WAIT_EXIT_S:-240} wait_until "process $1 to end" '! alive '"$1"; then
        show_stacks "$1"
        for p in $(descendants "$1") "$1"; do
            kill -KILL "$p" 2>/dev/null
        done
    fi
    wait "$1"
}

# descendants PID: the pids of its children, their children, ...
descendants() {
    for child in $(pgrep -P "$1"); do
        echo "$child"
        descendants "$child"
    done
}

# show_stacks PID: the process tree under PID and, where gdb is installed,
# every thread's stack of each process in it, on stderr.
show_stacks() {
    for p in "$1" $(descendants "$1"); do
        echo "--- process $p: $(ps -o stat=,etimes=,args= -p "$p" 2>/dev/null)" >&2
        case "$(ps -o comm= -p "$p" 2>/dev/null)" in
            sh | dash | bash | sleep) continue ;; # the test's own shells
        esac
        if command -v gdb >/dev/null 2>&1; then
            gdb -p "$p" -batch -nx -ex "thread apply all bt" 2>/dev/null |
                grep -E '^(Thread|#)' >&2
        fi
    done
}

# Under make test (RUNNER_TEST_TIMEOUT_S, ctest's --timeout), a watchdog
# prints the stacks of everything the test runs 20 s before ctest kills
# it, so a hung foreground command shows where it hung too (wait_exit
# does that for background ones). It checks once a second that the test
# still runs, so it never holds ctest's output pipe for longer.
if [ -n "${RUNNER_TEST_TIMEOUT_S:-}" ]; then
    (
        deadline=$(($(date +%s) + RUNNER_TEST_TIMEOUT_S - 20))
        while kill -0 $$ 2>/dev/null; do
            if [ "$(date +%s)" -ge "$deadline" ]; then
                echo "watchdog: the test still runs $((RUNNER_TEST_TIMEOUT_S - 20)) s after it started; what it runs:" >&2
                show_stacks $$
                exit 0
            fi
            sleep 1
        done
    ) &
fi
