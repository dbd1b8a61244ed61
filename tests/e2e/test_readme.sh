# The README's first ten minutes, tour and "Managing sweeps", run as
# written: every ```sh line of those sections, in order, each must exit 0, and what a line says
# it does (its comment, the sweep it names) is checked right after it
# (check_claim below; a line it does not know fails the test). build/runner is this
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

# The sh blocks between "## Your first ten minutes" and the section after
# "## Managing sweeps".
awk '/^## Your first ten minutes/ { on = 1 } /^## Installing/ { on = 0 }
     on && /^```sh/ { block = 1; next } block && /^```/ { block = 0; next }
     on && block' README.md >"$TMP/commands"
[ "$(wc -l <"$TMP/commands")" -ge 20 ] || fail "found only $(wc -l <"$TMP/commands") README commands"
grep -q "runner rm" "$TMP/commands" || fail "the README's managing part was not found"
grep -q "runner sweep scripts/jitter.lua --name first" "$TMP/commands" ||
    fail "the README's first ten minutes were not found"

DB="$TMP/work/results.db"
# sweep_of NAME: a query's sweep id of the sweep named NAME.
sweep_of() {
    echo "(SELECT id FROM sweep WHERE name = '$1')"
}
# check_claim LINE: what the README says LINE does, checked on the database
# and the output ($TMP/out) it left.
check_claim() {
    case "$1" in
    "build/runner sweep scripts/jitter.lua --name first"*)
        # What it prints is kept with the sweep, for the dashboard.
        expect_stdout_contains "jitter 2 s: ceiling T1/J = 15.5x"
        expect_sql "SELECT count(*) FROM sweep_printed WHERE sweep_id = $(sweep_of first)" "4" ;;
    "build/runner fit first --x workers --y speedup --model usl --by jitter"*)
        expect_sql "SELECT count(*), count(DISTINCT by_value) FROM fit WHERE sweep_id = $(sweep_of first) AND model = 'usl'" "3|3"
        expect_stdout_contains "peak_x" ;;
    "build/runner sweep scripts/jitter.lua --set jitters=2,0.25 --name second"*)
        expect_sql "SELECT count(*), group_concat(DISTINCT jitter) FROM speedup WHERE sweep_id = $(sweep_of second)" "16|2.0,0.25" ;;
    "build/runner diff first second --common"*)
        expect_stdout_contains "are equal on the points both hold" ;;
    "build/runner sweep scripts/jitter.lua --name baseline")
        expect_sql "SELECT count(*), group_concat(DISTINCT jitter) FROM speedup WHERE sweep_id = $(sweep_of baseline)" "24|2.0,1.0,0.5" ;;
    "build/runner sweep scripts/jitter.lua --set jitters=2,0.25 --name quarter")
        expect_sql "SELECT count(*), group_concat(DISTINCT jitter) FROM speedup WHERE sweep_id = $(sweep_of quarter)" "16|2.0,0.25" ;;
    "build/runner sweep scripts/jitter.lua --set jitters=500ms,2s --set base=2min"*)
        # The units converted, and the summary compares the ends truly
        # whatever order --set gave.
        expect_sql "SELECT DISTINCT base FROM speedup WHERE sweep_id = (SELECT max(id) FROM sweep)" "120.0"
        expect_stdout_contains "shrinking the worst delay 2 -> 0.5 s raises the ceiling 60.5x -> 240.5x" ;;
    "build/runner sweep scripts/jitter.lua --set jitters=2,0.25,0.1 --reuse --name tenth"*)
        grep -qF ", 16 reused" "$TMP/err" || fail "the --reuse run did not reuse 16 points: $(cat "$TMP/err")" ;;
    "build/runner fit baseline --x workers --y round_s --model walkthrough --by jitter"*)
        # The walk-through's own model on its exact rows: base 30 s and J
        # recovered per jitter, the ceiling T1/J; stored as three fits.
        expect_sql "SELECT group_concat(printf('%g:%g:%g', f.by_value, b.value, j.value), ' ') FROM fit f JOIN fit_param b ON b.fit_id = f.id AND b.name = 'base' JOIN fit_param j ON j.fit_id = f.id AND j.name = 'J' WHERE f.sweep_id = $(sweep_of baseline) AND f.model = 'walkthrough' ORDER BY f.id" "2:30:2 1:30:1 0.5:30:0.5"
        expect_stdout_contains "ceiling    15.5" ;;
    "build/runner fit baseline --x workers --y speedup --model usl --by jitter"*)
        expect_sql "SELECT count(DISTINCT f.id) FROM fit f JOIN fit_param p ON p.fit_id = f.id AND p.name IN ('sigma', 'kappa', 'peak_x') WHERE f.sweep_id = $(sweep_of baseline) AND f.model = 'usl'" "3"
        expect_stdout_contains "peak_x" ;;
    "build/runner answers baseline"*)
        # the two fits' groups, one answer per question, listed
        expect_sql "SELECT count(*), count(DISTINCT question) FROM fit WHERE sweep_id = $(sweep_of baseline)" "6|2"
        expect_stdout_contains "walkthrough: round_s on workers, jitter = 0.5"
        expect_stdout_contains "usl: speedup on workers, jitter = 2.0" ;;
    "build/runner diff baseline tenth"*)
        expect_stdout_contains "are equal on the points both hold" ;;
    "build/runner verify tenth"*)
        expect_stdout_contains "reproduced" ;;
    "build/runner rename quarter jitter-025"*)
        # The --set jitters=2,0.25 run, as the comment says.
        expect_sql "SELECT group_concat(DISTINCT jitter) FROM speedup WHERE sweep_id = $(sweep_of jitter-025)" "2.0,0.25"
        expect_sql "SELECT count(*) FROM sweep WHERE name = 'quarter'" "0" ;;
    "build/runner tag jitter-025 +walkthrough +quarter")
        expect_sql "SELECT group_concat(tag, ' ') FROM (SELECT tag FROM sweep_tag WHERE sweep_id = $(sweep_of jitter-025) ORDER BY tag)" "quarter walkthrough" ;;
    "build/runner sweeps --tag walkthrough"*)
        expect_stdout_contains "ceiling"
        expect_stdout_contains "jitter-025" ;;
    "build/runner rm --tag quarter"*)
        # Exactly the sweep tagged quarter, its rows with it.
        expect_sql "SELECT count(*) FROM sweep WHERE name = 'jitter-025'" "0"
        expect_sql "SELECT count(*) FROM sweep WHERE name IN ('baseline', 'tenth', 'ceiling')" "3"
        expect_sql "SELECT count(*) FROM speedup WHERE sweep_id NOT IN (SELECT id FROM sweep)" "0" ;;
    "build/runner show baseline"*)
        expect_stdout_contains "  base = 30 s · trials = 0 rounds · model = walkthrough"
        grep -q "^jitter \[s\]  workers  speedup" "$TMP/out" || fail "show baseline does not lead with jitter, workers, speedup" ;;
    "build/runner show plugin:straggler --section 1")
        expect_stdout_contains "Stragglers at k = 64" ;;
    "build/runner export ceiling"*)
        [ -s "exported/sweep-$(sql "SELECT id FROM sweep WHERE name = 'ceiling'")-section-1-speedup.csv" ] ||
            fail "export wrote no file" ;;
    "build/runner sweep scripts/jitter.lua --name ceiling"*)
        expect_sql "SELECT name, note FROM sweep WHERE name = 'ceiling'" "ceiling|3 jitters" ;;
    "build/runner plot baseline --fit latest -o usl.svg"*)
        grep -q "usl fit .* (jitter = 0.5)" usl.svg ||
            fail "plot --fit latest did not draw the usl fits over baseline" ;;
    "build/runner plot jitter.lua"*)
        grep -q "Speedup vs workers" speedup.svg ||
            fail "plot jitter.lua did not draw the jitter sweep (its title is missing)" ;;
    "build/runner report last"*)
        grep -q "Stragglers at k = 64" report.html || fail "report last is not the stragglers sweep" ;;
    "build/runner plugins"* | "build/runner sweeps" | "build/runner sweeps "* | \
    "build/runner show last --format csv"* | "build/runner serve"* | "build/runner vacuum"* | \
    "build/runner sweep scripts/stragglers.lua"* | "sqlite3 "*)
        ;; # exit 0 is the claim
    "build/runner sweep scripts/jitter.lua --webhook"*)
        expect_equal "the summary reached the receiver" "$(wc -l <"$TMP/hook/requests.jsonl" | tr -d ' ')" "1" ;;
    *)
        fail "README command without a check in test_readme.sh: $1" ;;
    esac
}

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
        # The sweep page of "first" leads with what its script printed and its fit.
        first=$(sql "SELECT id FROM sweep WHERE name = 'first'")
        curl -sf -o "$TMP/findings.json" "${url%/}/api/sweep/$first/findings" ||
            fail "README command $n: the findings of sweep first did not answer"
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["printed"][0].startswith("jitter 2 s: ceiling T1/J = 15.5x"), d["printed"]
assert sorted(f["by_value"] for f in d["fits"] if f["model"] == "usl") == [0.5, 1.0, 2.0], d["fits"]
' "$TMP/findings.json" || fail "README command $n: sweep first does not lead with its findings"
        kill -INT "$server" 2>/dev/null
        wait_exit "$server"
        status=$?
        ;;
    *)
        sh -c "$line" >"$TMP/out" 2>"$TMP/err" </dev/null
        status=$?
        ;;
    esac
    [ "$status" = 0 ] || fail "README command $n exited $status: $line
$(cat "$TMP/err")"
    check_claim "$line"
done <"$TMP/commands"
cd "$SRC" || exit 1

[ -s "$TMP/work/speedup.svg" ] || fail "the README's plot wrote no speedup.svg"
[ -s "$TMP/work/report.html" ] || fail "the README's report wrote no report.html"

# Every page of docs/ is in the README's documentation table, and every
# page the table links exists.
table=$(sed -n '/^## Documentation/,/^## /p' "$SRC/README.md")
for page in "$SRC"/docs/*.md "$SRC"/docs/plugins/*.md; do
    name=${page#"$SRC"/}
    case "$table" in
    *"]($name)"*) ;;
    *) fail "README's documentation table does not list $name" ;;
    esac
done
for link in $(printf '%s\n' "$table" | grep -o '](docs/[^)]*)' | sed 's/^](//; s/)$//'); do
    [ -f "$SRC/$link" ] || fail "README's documentation table links $link, which does not exist"
done
finish
