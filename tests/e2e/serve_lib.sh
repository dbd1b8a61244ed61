# Helpers for the runner serve tests (sourced after lib.sh).

# start_serve ARGS...: starts `runner serve --db $DB ARGS` in the background
# (--listen 127.0.0.1:0 unless ARGS say otherwise: a free port each time),
# waits for the line with its URL, and sets SERVE_PID, URL (as printed, with
# ?token=... when one is required) and BASE (scheme, host and port with the
# host replaced by 127.0.0.1, ending in /).
start_serve() {
    # The background shell truncates serve.out only when it gets to run:
    # until then the last server's line is still there, and the wait below
    # could take it (then read the file just emptied: BASE was empty).
    rm -f "$TMP/serve.out" "$TMP/serve.err"
    case " $* " in
        *" --listen "*) "$RUNNER" serve --db "$DB" "$@" >"$TMP/serve.out" 2>"$TMP/serve.err" & ;;
        *) "$RUNNER" serve --db "$DB" --listen 127.0.0.1:0 "$@" \
               >"$TMP/serve.out" 2>"$TMP/serve.err" & ;;
    esac
    SERVE_PID=$!
    wait_until "runner serve's URL" \
        'grep -q "^runner: serving" "$TMP/serve.out" || ! alive $SERVE_PID' || return 1
    URL=$(grep -o 'http://[^ ]*' "$TMP/serve.out" | head -n 1)
    BASE=$(echo "$URL" | sed -e 's|^http://[^:]*:\([0-9]*\)/.*|http://127.0.0.1:\1/|')
}

# stop_serve [SIGNAL]: signals the server (TERM by default), waits for it,
# and sets $status to its exit status.
stop_serve() {
    kill -"${1:-TERM}" "$SERVE_PID"
    wait_exit "$SERVE_PID"
    status=$?
}

# http PATH [CURL ARGS...]: GETs BASE/PATH; the status code in $code, the
# body in $TMP/body, the headers in $TMP/headers.
http() {
    path=$1
    shift
    code=$(curl -s --path-as-is -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' "$@" \
        "$BASE$path")
}

# expect_code PATH CODE [CURL ARGS...]
expect_code() {
    p=$1
    want=$2
    shift 2
    http "$p" "$@"
    expect_equal "status of GET /$p" "$code" "$want"
}

# make_serve_sweeps: sweeps 1 and 2 in $DB, of the testkit fixture: the same
# grid but x = 3 / x = 4 and another seed, so a comparison has known
# differences (section 1: 4 rows matched, 4 differ, 2 rows only in each). The script's
# name, the section title, sweep 1's name and note and a tag carry markup
# that must stay text. Names, notes and tags (sweep.name, sweep.note,
# sweep_tag) are added to a catalog that lacks them.
make_serve_sweeps() {
    FIXTURES_ABS=$(cd "$RUNNER_FIXTURES" && pwd)
    evil_script="$TMP/<img src=x onerror=alert(1)>.lua"
    echo 'sweep("testkit", { x = { 1, 2, 3 }, rows = 2 }, { title = [[<script>alert("x")</script>]], print = false })' \
        >"$evil_script"
    run "$RUNNER" sweep "$evil_script" --db "$DB" --quiet --plugin-dir "$FIXTURES_ABS/good"
    expect_status 0
    other="$TMP/other.lua"
    echo 'sweep("testkit", { x = { 1, 2, 4 }, rows = 2 }, { print = false })' >"$other"
    run "$RUNNER" sweep "$other" --db "$DB" --quiet --seed 7 --plugin-dir "$FIXTURES_ABS/good"
    expect_status 0
    if [ "$(sql "SELECT count(*) FROM pragma_table_info('sweep') WHERE name = 'name'")" = 0 ]; then
        sql "ALTER TABLE sweep ADD COLUMN name TEXT; ALTER TABLE sweep ADD COLUMN note TEXT;
             CREATE TABLE IF NOT EXISTS sweep_tag (sweep_id INTEGER NOT NULL, tag TEXT NOT NULL)"
    fi
    sql "UPDATE sweep SET name = '<b onmouseover=alert(2)>evil</b>', note = '\"><svg onload=alert(3)>' WHERE id = 1;
         INSERT INTO sweep_tag (sweep_id, tag) VALUES (1, '<i>tag</i>'), (2, 'baseline')"
}

# need_browser_driver: the dashboard's browser tests need node, Debian's
# chromium and playwright-core, which `make test` installs from
# tests/browser/package-lock.json into $RUNNER_BUILD/browser (npm ci).
need_browser_driver() {
    skip_without chromium "chromium not installed; the dashboard was not rendered"
    skip_without node "node (Debian package nodejs) drives the browser"
    [ -d "$RUNNER_BUILD/browser/node_modules/playwright-core" ] ||
        skip_missing playwright-core "playwright-core is not in $RUNNER_BUILD/browser (make test installs it: npm ci)"
}

# make_history_sweeps: a git repository of 12 commits in $TMP/repo, each
# changing bench.lua; a sweep of each (tag step), run newest commit first
# so only git's order puts them right, stores ten timings (testkit's y, in
# s: twice the x the script lists, a level with 2 % Gaussian noise drawn
# by awk, seeded), 10 % higher from commit 8 on. Sets HISTORY_SHORT8, the
# short id of commit 8, where `runner history --y y --tag step` finds the
# change.
make_history_sweeps() {
    FIXTURES_ABS=$(cd "$RUNNER_FIXTURES" && pwd)
    repo="$TMP/repo"
    mkdir "$repo" && git -C "$repo" init -q || fail "git init"
    i=1
    while [ "$i" -le 12 ]; do
        awk -v i="$i" 'BEGIN {
            srand(1000 + i); level = i >= 8 ? 1.1 : 1
            printf "sweep(\"testkit\", { x = {"
            for (r = 0; r < 10; r++) {
                z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand())
                printf "%s%.6f", r ? ", " : "", level * (1 + 0.02 * z)
            }
            printf "} }, { print = false })\n" }' >"$repo/bench.lua"
        git -C "$repo" add bench.lua
        git -C "$repo" -c user.name=runner -c user.email=runner@example.com commit -q -m "commit $i"
        eval "history_commit_$i=\$(git -C \"\$repo\" rev-parse HEAD)"
        i=$((i + 1))
    done
    i=12
    while [ "$i" -ge 1 ]; do
        eval "c=\$history_commit_$i"
        git -C "$repo" checkout -q "$c"
        run "$RUNNER" sweep "$repo/bench.lua" --db "$DB" --quiet --tag step \
            --plugin-dir "$FIXTURES_ABS/good"
        expect_status 0
        i=$((i - 1))
    done
    HISTORY_SHORT8=$(echo "$history_commit_8" | cut -c1-7)
}

# noisy_sweeps: two sweeps of a command printing 8 seeded noisy times a
# point (size = 1, 2, 16, 256), the second 50 % slower: repeats for diff
# --stat. $noisy is the script.
noisy_sweeps() {
noisy_awk 8
noisy=$(write_script noisy.lua <<LUA
command { name = "noisy", argv = { "awk", "-v", "seed={seed}", "-v", "size={size}", "-f", "$TMP/noisy.awk" },
  params = { size = { type = "integer", default = 1 } },
  columns = { { name = "time_s", type = "real", unit = "s" } }, output = "keyvalue" }
sweep("noisy", { size = { 1, 2, 16, 256 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed 7
expect_status 0
SLOW=1.5
export SLOW
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed 8
unset SLOW
expect_status 0
}
