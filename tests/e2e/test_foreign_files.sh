# Files that are not runner's (issue 20, items 1, 14 and 15). Every command,
# reading or writing, refuses them with one line and exit 2, and leaves them
# byte-for-byte as they were, with no -wal, -shm or -journal beside them:
# - another program's SQLite database, whatever its user_version (1, 3, or
#   this runner's own): a file is runner's only when it holds the catalog of
#   its version (docs/schema.md, "Which files are runner's");
# - runner's own catalog with a clashing `point` table where the view is;
# - anything that exists and is not a regular file: a FIFO (which used to
#   hang sweeps, show and resume), /dev/null and /dev/full (which left
#   /dev/null-journal behind as root), a directory.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
script=$(write_script one.lua <<'LUA'
sweep("testkit", {x = {1, 2}}, {print = false})
LUA
)
# Every command that takes --db, with what it needs besides.
COMMANDS="sweeps
show 1
plot 1 --x x --y y -o $TMP/p.svg
report 1 -o $TMP/r.html
resume 1
notify --webhook http://127.0.0.1:9/
migrate
sweep $script"
# bounded CMD...: run, but a command that hangs (a FIFO opened for reading
# waits for a writer forever) fails the test instead of hanging it.
bounded() {
    run timeout 60 "$@"
}

# refused_unchanged FILE MESSAGE: every command refuses FILE with MESSAGE and
# leaves it as it was.
refused_unchanged() {
    file=$1
    message=$2
    before=$(sha256sum <"$file")
    mode=$(sqlite3 -batch "$file" "PRAGMA journal_mode")
    echo "$COMMANDS" | while read -r command; do
        bounded "$RUNNER" $command --db "$file"
        expect_status 2
        expect_stderr "runner: $file: $message"
        expect_equal "$command: the bytes of $(basename "$file")" "$(sha256sum <"$file")" "$before"
        for f in "$file-wal" "$file-shm" "$file-journal"; do
            [ -e "$f" ] && fail "$command left $f beside $(basename "$file")"
        done
        [ "$failures" -eq 0 ] || exit 1
    done || failures=$((failures + 1))
    expect_equal "journal mode of $(basename "$file")" \
        "$(sqlite3 -batch "$file" "PRAGMA journal_mode")" "$mode"
}

# ---- another program's database -------------------------------------------
app="$TMP/app.db"
sqlite3 -batch "$app" "CREATE TABLE users(id INTEGER PRIMARY KEY); PRAGMA user_version = 1"
refused_unchanged "$app" "not a runner database (its user_version is 1, but it has no \"sweep\" table)"

sqlite3 -batch "$app" "PRAGMA user_version = 3"
refused_unchanged "$app" "not a runner database (its user_version is 3, but it has no \"sweep\" table)"

# A table named like one of runner's, with other columns.
sqlite3 -batch "$app" "CREATE TABLE sweep(id INTEGER PRIMARY KEY, owner TEXT); PRAGMA user_version = 4"
refused_unchanged "$app" "not a runner database (its user_version is 4, but its table \"sweep\" lacks columns runner's has: id,script_path,script_text,seed,started_at,ended_at,status)"

# No user_version: as before, refused by the check for a new, empty file.
sqlite3 -batch "$app" "PRAGMA user_version = 0"
refused_unchanged "$app" "not a runner database (it holds other tables and no runner schema version)"

# ---- runner's catalog with a clashing point table -------------------------
clash="$TMP/clash.db"
run "$RUNNER" sweep "$script" --db "$clash"
expect_status 0
sqlite3 -batch "$clash" "PRAGMA journal_mode = DELETE; DROP VIEW point;
    CREATE TABLE point(id INTEGER PRIMARY KEY, label TEXT);" >/dev/null
refused_unchanged "$clash" "not a runner database (its user_version is $(runner_schema), but its \"point\" is a table where runner's is a view)"
sqlite3 -batch "$clash" "PRAGMA user_version = 3"
refused_unchanged "$clash" "not a runner database (its user_version is 3, but its \"point\" is a table where runner's is a view)"

# ---- not a regular file ------------------------------------------------------
# special FILE KIND: every command refuses FILE before opening it.
special() {
    echo "$COMMANDS" | while read -r command; do
        bounded "$RUNNER" $command --db "$1"
        expect_status 2
        expect_stderr "runner: $1: not a database file (it is $2); --db needs a regular file"
        [ "$failures" -eq 0 ] || exit 1
    done || failures=$((failures + 1))
}
mkfifo "$TMP/fifo"
special "$TMP/fifo" "a FIFO"
mkdir "$TMP/dir.db"
special "$TMP/dir.db" "a directory"
[ -e /dev/null-journal ] && fail "/dev/null-journal exists before the test; remove it"
special /dev/null "a character device"
special /dev/full "a character device"
for f in /dev/null-journal /dev/null-wal /dev/full-journal /dev/full-wal; do
    [ -e "$f" ] && fail "$f left behind" && rm -f "$f"
done
# A symbolic link to a regular file is that file.
ln -s "$clash" "$TMP/link.db"
bounded "$RUNNER" sweeps --db "$TMP/link.db"
expect_status 2
expect_stderr "runner: $TMP/link.db: not a runner database (its user_version is 3, but its \"point\" is a table where runner's is a view)"

# ---- an empty file: writing commands make it a database, readers do not ---
: >"$TMP/empty.db"
bounded "$RUNNER" sweeps --db "$TMP/empty.db"
expect_status 2
expect_stderr "runner: $TMP/empty.db: not a runner database (it is empty)"
[ -s "$TMP/empty.db" ] && fail "sweeps wrote to an empty file"
bounded "$RUNNER" sweep "$script" --db "$TMP/empty.db"
expect_status 0
DB="$TMP/empty.db"
expect_sql "PRAGMA user_version" "$(runner_schema)"
finish
