# The script's limits hold for all of its code and only for its code: a
# __gc finalizer that lua_close runs at exit is stopped by --script-timeout
# and by the first Ctrl-C, and cannot sweep or declare options once the
# sweep ended; time spent waiting for another process's write lock is not
# the script's own time.
. tests/e2e/lib.sh
command -v timeout >/dev/null 2>&1 || { echo "SKIP: needs timeout(1) to bound a hang"; exit 77; }

# ---- time: a finalizer at exit spins ------------------------------------------
# The 120 s bound only keeps a broken build from hanging the suite.
script=$(write_script gc_spin.lua <<'LUA'
sweep("speedup", { workers = 1 }, { print = false })
setmetatable({}, { __gc = function() while true do end end })
LUA
)
run timeout -s KILL 120 "$RUNNER" sweep "$script" --db "$DB" --script-timeout 1
expect_status 2
expect_stderr "runner: sweep 1 stored in $DB: 1 points ok, 0 failed
runner: $script: the script ran for more than 1 s of its own time (--script-timeout) in a __gc finalizer at exit; stopped"
expect_sql "SELECT status FROM sweep" "ok"

# ---- Ctrl-C: the first one stops a finalizer at exit ----------------------------
rm -f "$DB" "$DB-wal" "$DB-shm"
# --foreground: without it timeout(1) passes a SIGTERM on to runner and then
# again to its process group, and runner takes the second as a second Ctrl-C
# (leave at once, silently) whenever it handled the first in between.
# Its own files, new: $TMP/err still holds the case above's "stored in"
# until the background shell truncates it, and a signal that came before
# runner started would end the shell (143), not runner's finalizer (130).
timeout --foreground -s KILL 120 "$RUNNER" sweep "$script" --db "$DB" >"$TMP/gc_int.out" 2>"$TMP/gc_int.err" &
pid=$!
wait_until "the summary line before the finalizer runs" \
    'grep -q "stored in" "$TMP/gc_int.err" || ! alive $pid'
kill -TERM $pid 2>/dev/null
wait_exit $pid
status=$?
cp "$TMP/gc_int.out" "$TMP/out"
cp "$TMP/gc_int.err" "$TMP/err"
expect_status 130
expect_stderr "runner: sweep 1 stored in $DB: 1 points ok, 0 failed
runner: interrupted in a __gc finalizer at exit; the sweep was already stored"

# ---- memory: a finalizer at exit has the script's heap limit --------------------
script=$(write_script gc_memory.lua <<'LUA'
keep = setmetatable({}, { __gc = function()
  printf("big string at exit: %s\n", tostring(pcall(string.rep, "x", 2^30)))
end })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --script-memory 16
expect_status 0
expect_stdout_contains "big string at exit: false"

# ---- a finalizer cannot sweep after the sweep ended ----------------------------
rm -f "$DB" "$DB-wal" "$DB-shm"
script=$(write_script gc_sweep.lua <<'LUA'
sweep("speedup", { workers = 1 }, { print = false })
keep = setmetatable({}, { __gc = function()
  pcall(sweep, "speedup", { workers = 2 }, { print = false })
end })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 2
expect_stderr "runner: sweep 1 stored in $DB: 1 points ok, 0 failed
runner: $script:3: sweep: sweep 1 is closed; a __gc finalizer run at exit comes after the sweep ended and cannot sweep or declare options"
expect_sql "SELECT id || ' ' || status FROM sweep" "1 ok"
expect_sql "SELECT count(*) FROM point" "1"
# Nor in a script that never swept: the database is not even created.
rm -f "$DB" "$DB-wal" "$DB-shm"
script=$(write_script gc_first_sweep.lua <<'LUA'
keep = setmetatable({}, { __gc = function() sweep "speedup" { workers = 2 } end })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 2
expect_stderr "runner: $script:1: sweep: the script has ended; a __gc finalizer run at exit comes after the sweep ended and cannot sweep or declare options"
[ -e "$DB" ] && fail "a finalizer at exit created the database"
script=$(write_script gc_options.lua <<'LUA'
keep = setmetatable({}, { __gc = function() options { n = 1 } end })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 2
expect_stderr "runner: $script:1: options: the script has ended; a __gc finalizer run at exit comes after the sweep ended and cannot sweep or declare options"

# ---- waiting for another writer is not script time -----------------------------
# A helper holds the write lock until told to let go. The script runs once
# the helper's marker says the lock is held; the test lets go once runner has
# the database open and has lived 6 s: longer than --script-timeout 1 plus
# the watchdog's 3 s of grace, shorter than the 10 s busy timeout.
if command -v python3 >/dev/null 2>&1; then
    rm -f "$DB" "$DB-wal" "$DB-shm"
    script=$(write_script locked.lua <<'LUA'
sweep("speedup", { workers = 1 }, { print = false })
LUA
)
    run "$RUNNER" sweep "$script" --db "$DB"
    expect_status 0
    python3 - "$DB" "$TMP/holding" "$TMP/release" <<'PY' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
polls = 0
while not os.path.exists(sys.argv[3]) and polls < 15000:  # bound: 300 s
    time.sleep(0.02)
    polls += 1
db.execute("COMMIT")
PY
    holder=$!
    wait_until "the helper holding the write lock" '[ -e "$TMP/holding" ] || ! alive $holder'
    "$RUNNER" sweep "$script" --db "$DB" --script-timeout 1 >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    wait_until "runner waiting on the lock for 6 s" \
        '! alive $pid || { ls -l /proc/$pid/fd 2>/dev/null | grep -qF "$DB" &&
          [ "$(ps -o etimes= -p $pid | tr -d " ")" -ge 6 ]; }'
    touch "$TMP/release"
    wait_exit $pid
    status=$?
    expect_status 0
    expect_stderr "runner: sweep 2 stored in $DB: 1 points ok, 0 failed"
    wait_exit $holder
    expect_sql "SELECT group_concat(status, ' ') FROM sweep" "ok ok"
else
    echo "SKIP: waiting for a lock: needs python3 to hold it"
fi
finish
