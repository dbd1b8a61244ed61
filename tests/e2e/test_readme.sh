# The README's tour and "Managing sweeps", run as written: every ```sh line
# of those two sections, in order, each must exit 0. build/runner is this
# build's runner, results.db the test's database, $SLACK_URL a local
# receiver (webhook_server.py); the commands run in a scratch directory
# holding the scripts, as in a checkout.
. tests/e2e/lib.sh
PYTHON=$(command -v python3) || skip_missing python3 "python3 runs the webhook receiver"
SRC=$(pwd)
receiver=""
trap '[ -n "$receiver" ] && kill "$receiver" 2>/dev/null; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/hook" "$TMP/work/build"
"$PYTHON" tests/e2e/webhook_server.py --dir "$TMP/hook" >/dev/null 2>"$TMP/hook/stderr" &
receiver=$!
wait_until "the receiver's port" '[ -s "$TMP/hook/port" ]'
SLACK_URL="http://127.0.0.1:$(cat "$TMP/hook/port")/hooks/token"
export SLACK_URL
cp -r scripts "$TMP/work/scripts"
ln -s "$(cd "$(dirname "$RUNNER")" && pwd)/$(basename "$RUNNER")" "$TMP/work/build/runner"

# The sh blocks between "## A short tour" and the section after "## Managing sweeps".
awk '/^## A short tour/ { on = 1 } /^## Installing/ { on = 0 }
     on && /^```sh/ { block = 1; next } block && /^```/ { block = 0; next }
     on && block' README.md >"$TMP/commands"
[ "$(wc -l <"$TMP/commands")" -ge 20 ] || fail "found only $(wc -l <"$TMP/commands") README commands"
grep -q "runner rm" "$TMP/commands" || fail "the README's managing part was not found"

cd "$TMP/work" || exit 1
n=0
while IFS= read -r line; do
    n=$((n + 1))
    case "$line" in
    "build/runner serve"*)
        # The dashboard runs until stopped: run it on a free port, wait for
        # the line with its URL, fetch the page, then stop it with Ctrl-C.
        command="${line%%#*}"
        sh -c "exec $command --listen 127.0.0.1:0" >"$TMP/out" 2>"$TMP/err" </dev/null &
        server=$!
        wait_until "the README's runner serve" \
            'grep -q "^runner: serving" "$TMP/out" || ! alive $server'
        url=$(grep -o 'http://[^ ]*' "$TMP/out" | head -n 1)
        curl -sf -o /dev/null "$url" || fail "README command $n: $url did not answer"
        kill -INT "$server" 2>/dev/null
        wait "$server"
        status=$?
        ;;
    *)
        sh -c "$line" >"$TMP/out" 2>"$TMP/err" </dev/null
        status=$?
        ;;
    esac
    [ "$status" = 0 ] || fail "README command $n exited $status: $line
$(cat "$TMP/err")"
done <"$TMP/commands"
cd "$SRC" || exit 1

DB="$TMP/work/results.db"
[ -s "$TMP/work/speedup.svg" ] || fail "the README's plot wrote no speedup.svg"
[ -s "$TMP/work/report.html" ] || fail "the README's report wrote no report.html"
grep -q "Speedup vs workers" "$TMP/work/speedup.svg" ||
    fail "plot jitter.lua did not draw the jitter sweep (its title is missing)"
expect_sql "SELECT count(*) FROM sweep WHERE name = 'jitter-025'" "0"
expect_sql "SELECT name, note FROM sweep WHERE name = 'ceiling'" "ceiling|3 jitters"
[ -s "$TMP/work/exported/sweep-$(sql "SELECT id FROM sweep WHERE name = 'ceiling'")-section-1-speedup.csv" ] ||
    fail "export wrote no file"
expect_equal "the summary reached the receiver" "$(wc -l <"$TMP/hook/requests.jsonl" | tr -d ' ')" "1"
finish
