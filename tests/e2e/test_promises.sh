# Class F of issue 28: promises kept whole. --reuse copies a point's
# artifacts with its rows; verify says why it does not re-run a command
# sweep; a command's setsid daemon dies with its run (runner is a child
# subreaper); a killed runner's scratch directory is removed by the next
# command sweep; readers leave no -wal/-shm and read a read-only copy;
# plugin paths are stored absolute; --abs-tolerance has no hidden cap.
. tests/e2e/lib.sh

# 1. --reuse: the copied points have their artifacts, also after the sweep
#    they came from is removed.
echo_script=$(write_script echo.lua <<'LUA'
command { name = "echoer", argv = { "sh", "-c", "echo x={n}; echo note {n} >&2" },
  params = { n = { type = "integer", min = 0, max = 9, default = 1 } },
  columns = { { name = "x", type = "integer" } }, output = "keyvalue" }
sweep("echoer", { n = { 1, 2 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$echo_script" --db "$DB" --quiet
expect_status 0
run "$RUNNER" sweep "$echo_script" --db "$DB" --quiet --reuse
expect_status 0
expect_stderr "runner: sweep 2 stored in $DB: 2 points ok, 0 failed, 2 reused"
run "$RUNNER" rm 1 --db "$DB"
expect_status 0
run "$RUNNER" artifacts 2 --db "$DB" --extract "$TMP/art"
expect_status 0
expect_equal "reused artifacts" "$(cat "$TMP/art"/*/stdout "$TMP/art"/*/stderr | sort | tr '\n' ' ')" \
    "note 1 note 2 x=1 x=2 "

# 2. verify of a command sweep: refused with the reason and what to do.
run "$RUNNER" verify 2 --db "$DB"
expect_status 2
expect_stderr "runner: verify: sweep 2 ran command \"echoer\" ($(sql "SELECT executable FROM sweep_command WHERE sweep_id = 2")), not a plugin; verify re-runs plugins only (a command's declaration lives in its script, and its output is not a function of the stored parameters): run the script again and compare the two sweeps with 'runner diff'"

# 3. A daemon a command starts with setsid is killed with its run.
daemon=$(write_script daemon.lua <<LUA
command { name = "daemon", argv = { "sh", "-c",
  "setsid sh -c 'echo \$\$ > $TMP/daemon.{n}; exec sleep 300' </dev/null >/dev/null 2>&1 & "
  .. "while [ ! -s $TMP/daemon.{n} ]; do sleep 0.01; done; echo x={n}" },
  params = { n = { type = "integer", min = 0, max = 9, default = 1 } },
  columns = { { name = "x", type = "integer" } }, output = "keyvalue" }
sweep("daemon", { n = { 1, 2 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$daemon" --db "$TMP/daemon.db" --quiet
expect_status 0
for n in 1 2; do
    pid=$(cat "$TMP/daemon.$n" 2>/dev/null)
    if [ -z "$pid" ]; then
        fail "daemon $n did not start"
    elif alive "$pid"; then
        fail "daemon $n (pid $pid) outlived its command"
        kill -9 "$pid"
    fi
done

# 4. A runner killed with -9 leaves its scratch directory; the next command
#    sweep removes it, and only it: not a live runner's, not a stranger's.
mkdir -p "$TMP/scratch/runner-stranger-1"
slow=$(write_script slow.lua <<LUA
command { name = "slow", argv = { "sh", "-c", "echo \$\$ > $TMP/slow.pid; exec sleep 300" },
  columns = { { name = "x", type = "integer" } }, output = "keyvalue" }
sweep("slow", {}, { print = false })
LUA
)
TMPDIR="$TMP/scratch" "$RUNNER" sweep "$slow" --db "$TMP/slow.db" --quiet 2>/dev/null &
slow_pid=$!
wait_until "the slow command" '[ -s "$TMP/slow.pid" ]'
kill -9 "$slow_pid"
wait_exit "$slow_pid" 2>/dev/null
stale=$(ls -d "$TMP"/scratch/runner-slow-*)
[ -d "$stale" ] || fail "the killed runner left no scratch directory to test with"
TMPDIR="$TMP/scratch" run "$RUNNER" sweep "$echo_script" --db "$TMP/scratch.db" --quiet
expect_status 0
[ ! -e "$stale" ] || fail "the dead runner's scratch directory $stale was kept"
[ -d "$TMP/scratch/runner-stranger-1" ] || fail "a directory runner did not make was removed"
# (the killed runner's command outlives it: stop it by its pid)
kill -9 "$(cat "$TMP/slow.pid")" 2>/dev/null

# 5. Readers leave no -wal/-shm beside a database they only read, and read
#    a read-only copy (file and directory).
mkdir -p "$TMP/rd"
"$RUNNER" sweep "$echo_script" --db "$TMP/rd/r.db" --quiet 2>/dev/null || fail "setup sweep failed"
[ ! -e "$TMP/rd/r.db-wal" ] || fail "the writer left a -wal"
for reader in "sweeps" "show last" "export last --out $TMP/exp" "diff 1 1" "report last -o $TMP/r.html" \
              "artifacts last"; do
    run "$RUNNER" $reader --db "$TMP/rd/r.db"
    expect_status 0
    [ ! -e "$TMP/rd/r.db-wal" ] && [ ! -e "$TMP/rd/r.db-shm" ] ||
        fail "runner $reader left $(ls "$TMP/rd")"
    rm -f "$TMP/rd/r.db-wal" "$TMP/rd/r.db-shm"
done
AS_USER=""
if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1 ||
        skip_missing setpriv "reading a read-only copy needs an unprivileged user (setpriv, nobody)"
    AS_USER="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
    chmod 755 "$TMP"
fi
cp "$TMP/rd/r.db" "$TMP/ro.db"
mkdir "$TMP/ro" && mv "$TMP/ro.db" "$TMP/ro/r.db" && chmod a-w "$TMP/ro/r.db" "$TMP/ro"
sha=$(sha256sum <"$TMP/ro/r.db")
run $AS_USER "$RUNNER" show last --db "$TMP/ro/r.db" --format csv
expect_status 0
expect_stdout_contains "n,x"
run $AS_USER "$RUNNER" sweeps --db "$TMP/ro/r.db" --format csv
expect_status 0
expect_equal "read-only copy's files" "$(ls -A "$TMP/ro")" "r.db"
expect_equal "read-only copy's bytes" "$(sha256sum <"$TMP/ro/r.db")" "$sha"
chmod u+w "$TMP/ro"

# 6. A plugin found through a relative --plugin-dir is stored by its
#    absolute path; verify elsewhere says which --plugin-dir it needs.
mkdir -p "$TMP/pl"
cp "$RUNNER_FIXTURES/good/testkit.so" "$TMP/pl/"
kit=$(write_script kit.lua <<'LUA'
sweep("testkit", { x = { 1, 2 }, rows = 1 }, { print = false })
LUA
)
(cd "$TMP/pl" && "$RUNNER" sweep "$kit" --db "$TMP/kit.db" --plugin-dir . --quiet) ||
    fail "sweep with --plugin-dir . failed"
DB="$TMP/kit.db"
expect_sql "SELECT so_path FROM sweep_plugin" "$TMP/pl/testkit.so"
run "$RUNNER" verify 1 --db "$DB"
expect_status 2
expect_stderr_contains "; the sweep loaded it from $TMP/pl/testkit.so: add --plugin-dir $TMP/pl"
run "$RUNNER" verify 1 --db "$DB" --plugin-dir "$TMP/pl"
expect_status 0

# 7. --abs-tolerance takes any positive finite number.
run "$RUNNER" diff 1 1 --db "$DB" --abs-tolerance 2e12
expect_status 0
run "$RUNNER" diff 1 1 --db "$DB" --abs-tolerance 1e999
expect_status 2
expect_stderr "runner: --abs-tolerance 1e999: expected a positive finite number; see 'runner --help'"
finish
