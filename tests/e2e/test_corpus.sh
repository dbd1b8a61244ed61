# The bad-input corpus (tests/corpus/, format in its README.md): each case
# exits 2 with exactly its one expected line on stderr and nothing on stdout,
# and leaves a database that already holds a finished sweep byte-for-byte
# as it was.
. tests/e2e/lib.sh
CORPUS=tests/corpus

run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
[ "$failures" -eq 0 ] || finish
# A broken file that claims the name of a built-in plugin.
mkdir "$TMP/shadow"
cp "$RUNNER_FIXTURES/notso/garbage.so" "$TMP/shadow/speedup.so"

# The database's content is the file plus whatever its -wal holds. Before a
# case, a TRUNCATE checkpoint folds the WAL into the file and empties it, so
# the file alone is the content. After the case: the WAL must hold nothing
# (frames there are writes not yet checkpointed), the file must hash the
# same, and still the same once checkpointed again (a write that went into
# the WAL and was checkpointed when runner closed changes the file itself).
checkpoint() {
    sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
}
db_sha() {
    sha256sum <"$DB" | cut -d ' ' -f 1
}
wal_bytes() {
    if [ -e "$DB-wal" ]; then wc -c <"$DB-wal" | tr -d ' '; else echo 0; fi
}
# snapshot: records the content a case must leave unchanged.
snapshot() {
    checkpoint
    before=$(db_sha)
}
# db_changed: 0 (true) if the database differs from the last snapshot, with
# what differs in $change.
db_changed() {
    change=""
    [ "$(wal_bytes)" = 0 ] || change="its -wal holds $(wal_bytes) bytes"
    [ "$(db_sha)" = "$before" ] || change="${change:+$change; }the file's sha256 changed"
    checkpoint
    [ "$(db_sha)" = "$before" ] || change="${change:+$change; }the checkpointed content changed"
    [ ! -e "$DB-journal" ] || change="${change:+$change; }a rollback journal appeared"
    [ -n "$change" ]
}

# The comparison itself: a checkpoint of an untouched database and a
# read-only command change nothing.
snapshot
checkpoint
run "$RUNNER" sweeps --db "$DB"
expect_status 0
db_changed && fail "a read-only 'runner sweeps' counted as a change: $change"

# header KEY: the value of "-- KEY: value" in the case's leading comments.
header() {
    awk -v key="-- $1: " '!/^--/ { exit } index($0, key) == 1 { print substr($0, length(key) + 1); exit }' "$case"
}
# subst TEXT: TEXT with $SCRIPT, $DB, $FIXTURES and $TMP replaced.
subst() {
    printf '%s\n' "$1" | CASE_SCRIPT=$script CASE_DB=$DB CASE_FIXTURES=$RUNNER_FIXTURES \
        CASE_TMP=$TMP awk '
        function replace(s, from, to,    out, i) {
            out = ""
            while ((i = index(s, from)) > 0) {
                out = out substr(s, 1, i - 1) to
                s = substr(s, i + length(from))
            }
            return out s
        }
        {
            s = replace($0, "$SCRIPT", ENVIRON["CASE_SCRIPT"])
            s = replace(s, "$DB", ENVIRON["CASE_DB"])
            s = replace(s, "$FIXTURES", ENVIRON["CASE_FIXTURES"])
            print replace(s, "$TMP", ENVIRON["CASE_TMP"])
        }'
}

TIMEOUT=""
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 120"
cases=0
for case in "$CORPUS"/*.lua; do
    name=$(basename "$case" .lua)
    cases=$((cases + 1))
    script=$case
    [ -n "$(header script)" ] && script="$CORPUS/$(header script)"
    expected=$(subst "$(header expect)")
    if [ -z "$(header expect)" ]; then
        fail "$name: no '-- expect:' line"
        continue
    fi
    command=$(header command)
    set -f  # flags are split into words, never globbed
    if [ -n "$command" ]; then
        set -- $(subst "$command")
    else
        set -- sweep "$script" --db "$DB" $(subst "$(header flags)")
    fi
    set +f
    snapshot
    run $TIMEOUT "$RUNNER" "$@"
    [ "$status" = 2 ] || fail "$name: exit status $status, expected 2"
    actual=$(cat "$TMP/err")
    if [ "$actual" != "$expected" ] || [ "$(wc -l <"$TMP/err" | tr -d ' ')" != 1 ]; then
        fail "$name: stderr is not the one expected line"
        printf '  expected: %s\n' "$expected" >&2
        sed 's/^/  actual:   /' "$TMP/err" >&2
    fi
    [ -s "$TMP/out" ] && fail "$name: printed on stdout: $(head -c 200 "$TMP/out")"
    db_changed && fail "$name: changed the database: $change"
done
[ "$cases" -ge 30 ] || fail "only $cases corpus cases found in $CORPUS"

# The finished sweep is whole, and no case added one.
expect_sql "SELECT count(*), min(status) FROM sweep" "1|ok"
expect_sql "SELECT count(*) FROM speedup WHERE sweep_id = 1" "24"
expect_sql "PRAGMA integrity_check" "ok"

# And the comparison can fail: a valid sweep does change the database.
snapshot
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet --set jitters=1
expect_status 0
db_changed || fail "a valid sweep did not count as a change to the database"
echo "$cases corpus cases"
finish
