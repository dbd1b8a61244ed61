# Storage faults: a read-only database, a full disk, a file that is not a
# runner database, a damaged one, and one written by a newer runner. Each is
# refused or stopped with a clear line naming the file and a non-zero exit;
# what was already stored is neither lost nor changed; after a full disk,
# --resume finishes the sweep with the rows of an undisturbed run.
#
# The full disk is made two ways. A file-size limit (ulimit -f, SIGXFSZ
# ignored) works for any user: writes past it fail, SQLite reports an I/O
# error. A real ENOSPC (SQLITE_FULL) needs a small file system: as root the
# test re-runs itself in a private mount namespace and mounts a 4 MiB tmpfs
# that vanishes with it. (PRAGMA max_page_count cannot do this: it is a
# setting of one connection, not stored in the file, so it cannot be set on
# a database for another process.)
if [ -z "${RUNNER_E2E_MOUNT_NS:-}" ] && [ "$(id -u)" = 0 ] &&
   command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
    exec env RUNNER_E2E_MOUNT_NS=1 unshare -m sh "$0"
fi
. tests/e2e/lib.sh
ORIG="$TMP/orig.db"
"$RUNNER" sweep scripts/jitter.lua --db "$ORIG" --quiet >/dev/null 2>&1 || fail "setup sweep failed"
# runner deletes the -wal when it closes; make sure the copy is the whole database.
sqlite3 -batch "$ORIG" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null

# stored DB: a digest of everything sweep 1 stored (its catalog rows and result rows).
stored() {
    sqlite3 -batch "$1" "SELECT * FROM sweep WHERE id = 1;
        SELECT * FROM section WHERE sweep_id = 1 ORDER BY id;
        SELECT * FROM sweep_plugin WHERE sweep_id = 1;
        SELECT * FROM point WHERE sweep_id = 1 ORDER BY id;
        SELECT * FROM speedup WHERE sweep_id = 1 ORDER BY row_id;
        SELECT * FROM plugin_column WHERE plugin = 'speedup' ORDER BY name;" | sha256sum
}
ORIG_STORED=$(stored "$ORIG")
file_sha() {
    sha256sum <"$1" | cut -d ' ' -f 1
}
# expect_intact DB WHAT: sweep 1 is exactly as stored and the database is sound.
expect_intact() {
    [ "$(stored "$1")" = "$ORIG_STORED" ] || fail "$2: the earlier sweep's rows changed"
    [ "$(sqlite3 -batch "$1" "PRAGMA integrity_check")" = "ok" ] || fail "$2: integrity_check failed"
}
# fresh DIR: a copy of the original database in DIR; prints its path.
fresh() {
    mkdir -p "$1"
    cp "$ORIG" "$1/results.db"
    echo "$1/results.db"
}

# ---- a read-only database -------------------------------------------------
# root writes whatever the mode bits say, so as root runner runs as nobody.
AS_USER=""
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
        AS_USER="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
        chmod 755 "$TMP"
    else
        AS_USER="none"
    fi
fi
small=$(write_script small.lua <<'LUA'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
LUA
)
chmod 644 "$small"
# as_user CMD...: runs CMD as the unprivileged user (or as ourselves when not root).
as_user() {
    $AS_USER "$@"
}
if [ "$AS_USER" = none ] || ! as_user "$RUNNER" plugins speedup >/dev/null 2>&1; then
    echo "SKIP: read-only database: cannot run runner as an unprivileged user here"
else
    # A read-only file in a writable directory.
    F=$(fresh "$TMP/ro-file")
    [ -n "$AS_USER" ] && chown -R nobody "$TMP/ro-file"
    chmod 444 "$F"
    sha=$(file_sha "$F")
    run as_user "$RUNNER" sweep "$small" --db "$F" --quiet
    expect_status 2
    expect_stderr "runner: $F: this user may not write the database (only reading commands read it: sweeps, show, export, diff, report, serve)"
    [ "$(file_sha "$F")" = "$sha" ] || fail "read-only file: its bytes changed"
    # Reading a read-only database is harmless: show works (the sqlite3
    # shell reads it too).
    "$RUNNER" show 1 --db "$ORIG" --format csv >"$TMP/expected.csv" 2>&1
    run as_user "$RUNNER" show 1 --db "$F" --format csv
    if [ "$status" != 0 ]; then
        fail "read-only file: 'runner show' exited $status: $(cat "$TMP/err")"
    elif ! cmp -s "$TMP/out" "$TMP/expected.csv"; then
        fail "read-only file: 'runner show' did not print the stored rows"
    fi
    [ "$(file_sha "$F")" = "$sha" ] || fail "read-only file: its bytes changed"
    expect_intact "$F" "read-only file"

    # A writable file in a read-only directory: no room for the -wal and -shm.
    F=$(fresh "$TMP/ro-dir")
    if [ -n "$AS_USER" ]; then chown nobody "$F"; else chmod 555 "$TMP/ro-dir"; fi
    sha=$(file_sha "$F")
    run as_user "$RUNNER" sweep "$small" --db "$F" --quiet
    expect_status 2
    expect_stderr "runner: $F: this user may not create files in its directory, where a writer keeps the -wal and -shm files (only reading commands read it: sweeps, show, export, diff, report, serve)"
    chmod 755 "$TMP/ro-dir"
    [ "$(file_sha "$F")" = "$sha" ] || fail "read-only directory: the file's bytes changed"
    expect_intact "$F" "read-only directory"
fi

# ---- a full disk --------------------------------------------------------------
# 16000 points of 10 rows each, about 16 MB: more than either disk below
# holds, in batches of at most 1000 points, so the disk fills mid-sweep with
# some of this sweep's batches already committed. keep_rows = false: the
# script does not need its rows, and reading back every stored point on
# resume costs a scan of the whole result table each.
big=$(write_script big.lua <<'LUA'
sweep("testkit", { rows = 10, x = range(1, 16000) }, { print = false, keep_rows = false })
LUA
)
REF="$TMP/reference.db"
"$RUNNER" sweep "$big" --db "$REF" --plugin-dir "$RUNNER_FIXTURES/good" --quiet >/dev/null 2>&1 ||
    fail "reference run of big.lua failed"
rows_of_newest() {
    sqlite3 -batch "$1" "SELECT x, rows, fail, label, y, not_a_number, pos_inf, neg_inf, row_index,
        even, tag, random FROM testkit WHERE sweep_id = (SELECT max(id) FROM sweep)
        ORDER BY row_id" | sha256sum
}
REF_ROWS=$(rows_of_newest "$REF")

# expect_stopped_by_full_disk DB WHAT PATTERN: the state after a sweep of
# big.lua stopped by a write failure whose SQLite message matches PATTERN.
expect_stopped_by_full_disk() {
    expect_status 2
    first=$(head -n 1 "$TMP/err")
    case "$first" in
        "runner: $1: cannot "*) ;;
        *) fail "$2: the first line does not name the database: $first" ;;
    esac
    printf '%s\n' "$first" | grep -Eq "$3" || fail "$2: the first line does not say why: $first"
    expect_intact "$1" "$2"
    # No partial point: every stored point has exactly its rows.
    partial=$(sqlite3 -batch "$1" "SELECT count(*) FROM point p LEFT JOIN
        (SELECT point_id, count(*) AS n FROM testkit GROUP BY point_id) t ON t.point_id = p.id
        WHERE p.sweep_id = 2 AND p.row_count <> coalesce(t.n, 0)")
    [ "$partial" = 0 ] || fail "$2: $partial partially stored point(s)"
    stored_ok=$(sqlite3 -batch "$1" "SELECT count(*) FROM point WHERE sweep_id = 2 AND status = 'ok'")
    [ "$stored_ok" -lt 16000 ] || fail "$2: the disk never filled up; the test proves nothing"
    # Any summary must count what is stored, not what was computed: not the
    # batch the failed commit lost.
    claimed=$(sed -n 's/^runner: sweep 2 stored in .*: \([0-9][0-9]*\) points ok.*/\1/p' "$TMP/err")
    [ -z "$claimed" ] || [ "$claimed" = "$stored_ok" ] ||
        fail "$2: stderr says $claimed points ok were stored; the database holds $stored_ok"
}
# expect_resumed DB WHAT: --resume finished the sweep with the reference rows.
expect_resumed() {
    expect_status 0
    expect_stderr_contains "already stored"
    [ "$(sqlite3 -batch "$1" "SELECT status FROM sweep WHERE id = 2")" = ok ] ||
        fail "$2: the resumed sweep is not ok"
    [ "$(sqlite3 -batch "$1" "SELECT count(*) FROM point WHERE sweep_id = 2")" = 16000 ] ||
        fail "$2: the resumed sweep does not hold 16000 points"
    [ "$(rows_of_newest "$1")" = "$REF_ROWS" ] || fail "$2: rows differ from an undisturbed run"
    expect_intact "$1" "$2"
}

# A file-size limit of 4 MiB (ulimit -f counts 512-byte blocks in POSIX sh).
F=$(fresh "$TMP/fsize")
run sh -c 'trap "" XFSZ; ulimit -f 8192 && exec "$@"' sh \
    "$RUNNER" sweep "$big" --db "$F" --plugin-dir "$RUNNER_FIXTURES/good" --quiet --jobs 1
expect_stopped_by_full_disk "$F" "file-size limit" "disk I/O error|database or disk is full"
run "$RUNNER" sweep "$big" --db "$F" --plugin-dir "$RUNNER_FIXTURES/good" --quiet --resume
expect_resumed "$F" "resume after the file-size limit"

# A full file system (ENOSPC): a 4 MiB tmpfs, then made larger.
DISK="$TMP/disk"
mkdir "$DISK"
if [ -n "${RUNNER_E2E_MOUNT_NS:-}" ] && mount -t tmpfs -o size=4m tmpfs "$DISK" 2>/dev/null; then
    cp "$ORIG" "$DISK/results.db"
    F="$DISK/results.db"
    run "$RUNNER" sweep "$big" --db "$F" --plugin-dir "$RUNNER_FIXTURES/good" --quiet --jobs 1
    expect_stopped_by_full_disk "$F" "full disk" "database or disk is full"
    mount -o remount,size=64m "$DISK" || fail "cannot enlarge the tmpfs"
    run "$RUNNER" sweep "$big" --db "$F" --plugin-dir "$RUNNER_FIXTURES/good" --quiet --resume
    expect_resumed "$F" "resume after the full disk"
    umount "$DISK"
else
    echo "SKIP: full file system: needs root and a private mount namespace (unshare -m) for a tmpfs"
fi

# ---- not a runner database -------------------------------------------------
F="$TMP/notes.db"
printf 'These are my notes, not a database.\n' >"$F"
sha=$(file_sha "$F")
run "$RUNNER" sweep "$small" --db "$F"
expect_status 2
expect_stderr "runner: $F: not a runner database (file is not a database)"
[ "$(file_sha "$F")" = "$sha" ] || fail "text file: its bytes changed"

F="$TMP/other.db"
sqlite3 -batch "$F" "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ada'), ('Grace')"
sha=$(file_sha "$F")
run "$RUNNER" sweep "$small" --db "$F"
expect_status 2
expect_stderr "runner: $F: not a runner database (it holds other tables and no runner schema version)"
run "$RUNNER" sweeps --db "$F"
expect_status 2
expect_stderr "runner: $F: not a runner database (it holds other tables and no runner schema version)"
[ "$(file_sha "$F")" = "$sha" ] || fail "another application's database: its bytes changed"
[ -e "$F-wal" ] && fail "another application's database: runner left a -wal beside it"
DB="$F"
expect_sql "SELECT group_concat(name) FROM people" "Ada,Grace"
expect_sql "PRAGMA journal_mode" "delete"

# A runner database cut short (copied while being written, a disk error).
F="$TMP/truncated.db"
head -c 8192 "$ORIG" >"$F"
sha=$(file_sha "$F")
run "$RUNNER" sweep "$small" --db "$F"
expect_status 2
expect_stderr "runner: $F: cannot read the schema version: database disk image is malformed"
[ "$(file_sha "$F")" = "$sha" ] || fail "truncated database: its bytes changed"

# ---- a database from a newer runner -----------------------------------------
F=$(fresh "$TMP/newer")
sqlite3 -batch "$F" "PRAGMA user_version = 99"
sqlite3 -batch "$F" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
sha=$(file_sha "$F")
schema=$("$RUNNER" --version | sed -n 's/.*schema \([0-9][0-9]*\).*/\1/p')
newer="runner: $F: database schema version 99 is newer than this runner supports ($schema); use a newer runner or another --db"
run "$RUNNER" sweep "$small" --db "$F"
expect_status 2
expect_stderr "$newer"
run "$RUNNER" sweep scripts/jitter.lua --db "$F" --resume
expect_status 2
expect_stderr "$newer"
run "$RUNNER" resume 1 --db "$F"
expect_status 2
expect_stderr "$newer"
run "$RUNNER" show 1 --db "$F"
expect_status 2
expect_stderr "$newer"
[ "$(file_sha "$F")" = "$sha" ] || fail "newer database: its bytes changed"
DB="$F"
expect_sql "PRAGMA user_version" "99"
expect_intact "$F" "newer database"
finish
