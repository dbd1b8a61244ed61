# Readers on a database this user cannot write (docs/guarantees.md, "Files
# that are not runner's", the read-only rule): another user's results, a
# 0644 file in a 0555 folder, read by every reading command (sweeps, show,
# export, diff, verify, report, serve, the Python module), opened read-only
# or immutable as access(2) decides, leaving nothing beside it and its bytes
# as they were; a writing command refuses with one line, exit 2. As root
# (CI) the readers run as nobody, since root writes whatever the mode bits
# say; as another user the file and folder are made read-only with chmod.
. tests/e2e/lib.sh
script=$(write_script ro.lua <<'LUA'
sweep("speedup", { workers = { 1, 2, 4 } }, { print = false })
LUA
)
chmod 644 "$script"
RO="$TMP/ro"
F="$RO/results.db"
mkdir -p "$RO"
"$RUNNER" sweep "$script" --db "$F" --quiet 2>/dev/null || fail "sweep 1 failed"
"$RUNNER" sweep "$script" --db "$F" --quiet 2>/dev/null || fail "sweep 2 failed"
"$RUNNER" show 1 --db "$F" --format csv >"$TMP/expected.csv" 2>&1
AS_USER=""
if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1 ||
        skip_missing setpriv "readers as another user need setpriv and the user nobody"
    AS_USER="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
    chmod 755 "$TMP"
    chmod 644 "$F"
else
    chmod 444 "$F"
fi
chmod 555 "$RO"
as_user() {
    $AS_USER "$@"
}
as_user "$RUNNER" plugins speedup >/dev/null 2>&1 ||
    skip_missing runner "the build cannot be run as $(as_user id -un 2>/dev/null)"
sha=$(sha256sum <"$F")
left_beside() {
    [ ! -e "$F-wal" ] && [ ! -e "$F-shm" ] || fail "$1 left $(ls "$RO" | tr '\n' ' ')"
    [ "$(sha256sum <"$F")" = "$sha" ] || fail "$1 changed the file's bytes"
}

# ---- every reading command answers
run as_user "$RUNNER" sweeps --db "$F" --format csv
expect_status 0
expect_stdout_contains ",$script,,ok,1,3,0,"
left_beside sweeps
run as_user "$RUNNER" show 1 --db "$F" --format csv
expect_status 0
cmp -s "$TMP/out" "$TMP/expected.csv" || fail "show did not print the stored rows"
left_beside show
mkdir -m 777 "$TMP/theirs"
for cmd in "export 1 --out $TMP/theirs" "diff 1 2" "verify 1" "show 1 --provenance" "history --y speedup"; do
    # shellcheck disable=SC2086 # the command's words
    run as_user "$RUNNER" $cmd --db "$F"
    expect_status 0
    left_beside "$cmd"
done
if command -v gnuplot >/dev/null 2>&1; then
    run as_user "$RUNNER" report 1 --db "$F" -o "$TMP/theirs/report.html"
    expect_status 0
    left_beside report
fi
if command -v curl >/dev/null 2>&1; then
    as_user "$RUNNER" serve --db "$F" --listen 127.0.0.1:0 >"$TMP/serve.out" 2>"$TMP/serve.err" &
    serve_pid=$!
    wait_until "runner serve's URL" \
        'grep -q "^runner: serving" "$TMP/serve.out" || ! alive $serve_pid'
    base=$(grep -o 'http://[^ ]*' "$TMP/serve.out" | head -n 1 |
        sed -e 's|^http://[^:]*:\([0-9]*\)/.*|http://127.0.0.1:\1/|')
    code=$(curl -s -o "$TMP/body" -w '%{http_code}' "${base}api/sweeps")
    expect_equal "serve: api/sweeps" "$code" 200
    grep -q '"ro.lua"\|ro\.lua' "$TMP/body" || fail "serve: api/sweeps lacks the sweeps"
    kill -TERM "$serve_pid"
    wait_exit "$serve_pid"
    left_beside serve
fi
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || PY=""
if [ -n "$PY" ]; then
    run as_user env PYTHONPATH="$PWD/python" RUNNER_BIN="$RUNNER" "$PY" -c "
import runner_db
db = runner_db.open('$F')
print(len(db.frame(1, section=1) if False else db._sweep_here(1).section(1).rows()),
      [s['id'] for s in db.sweeps()])"
    expect_status 0
    expect_stdout_contains "3 [1, 2]"
    left_beside "the Python module"
fi

# ---- a writing command says why in one line, exit 2, nothing changed
for cmd in "sweep $script" "tag 1 nightly" "note 1 hello" \
    "fit 1 --x workers --y speedup --model amdahl" "rm 1"; do
    # shellcheck disable=SC2086
    run as_user "$RUNNER" $cmd --db "$F"
    expect_status 2
    expect_stderr "runner: $F: this user may not write the database (only reading commands read it: sweeps, show, export, diff, report, serve)"
    left_beside "$cmd"
done

# ---- a writer alive (its -wal and -shm beside the file, made by the owner):
# read-only, never immutable, so a commit still in the WAL is seen.
if [ -n "$AS_USER" ] && [ -n "$PY" ]; then
    mkfifo "$TMP/hold"
    "$PY" -c "
import sqlite3, sys
c = sqlite3.connect('$F', isolation_level=None)
c.execute('PRAGMA wal_autocheckpoint = 0')
c.execute(\"UPDATE sweep SET name = 'renamed' WHERE id = 1\")
print('ready', flush=True)
sys.stdin.read()
" <"$TMP/hold" >"$TMP/writer.out" 2>&1 &
    writer_pid=$!
    exec 9>"$TMP/hold" # the writer reads until this closes
    wait_until "the writer's commit" 'grep -q ready "$TMP/writer.out" || ! alive $writer_pid'
    [ -s "$F-wal" ] || fail "the writer's commit is not in the WAL"
    run as_user "$RUNNER" sweeps --db "$F" --format csv
    expect_status 0
    expect_stdout_contains "1,renamed,"
    exec 9>&-
    wait_exit "$writer_pid"
fi
chmod 755 "$RO"
finish
