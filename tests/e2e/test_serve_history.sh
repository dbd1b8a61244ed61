# GET /api/history (docs/serve.md): `runner history` for the dashboard's
# history page. Twelve commits' sweeps with a 10 % step at commit 8
# (make_history_sweeps): the endpoint's columns and rows are those of
# `runner history --format json` for the same query (by commit, by sweep,
# with filters), its changes are the command's sentences, its regression
# flag the command's exit status. Bad input: a 400 with one line of JSON,
# the exact message.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the API"
skip_without python3 "python3 compares the JSON"
make_history_sweeps
expect_sql "SELECT count(DISTINCT git_commit), count(*) FROM sweep" "12|12"

start_serve

# same QUERY ARGS...: /api/history?QUERY against `runner history ARGS
# --format json`: the columns and rows equal, the regression flag the exit
# status (1), the changes the sentences the command prints.
same() {
    query=$1
    shift
    expect_code "api/history?$query" 200
    cp "$TMP/body" "$TMP/api.json"
    run "$RUNNER" history --db "$DB" "$@" --format json
    cli_status=$status
    [ "$cli_status" = 0 ] || [ "$cli_status" = 1 ] || fail "runner history $*: exit $cli_status"
    cp "$TMP/out" "$TMP/cli.json"
    run "$RUNNER" history --db "$DB" "$@"
    grep -E '^[a-z_]+ (rose|fell) ' "$TMP/out" >"$TMP/sentences"
    run python3 -c '
import json, sys
api, cli = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sentences = open(sys.argv[3]).read().splitlines()
for key in cli:
    assert api[key] == cli[key], (key, api[key], cli[key])
assert api["regression"] == (sys.argv[4] == "1"), (api["regression"], sys.argv[4])
assert [c["sentence"] for c in api["changes"]] == sentences, (api["changes"], sentences)
for c in api["changes"]:
    assert cli["rows"][c["row"]][0] == c["at"] and cli["rows"][c["row"]][6], c
print(len(api["rows"]), api["sweeps"], api["order"], " ".join(c["at"] for c in api["changes"]))
' "$TMP/api.json" "$TMP/cli.json" "$TMP/sentences" "$cli_status"
    expect_status 0
}

same "y=y&tag=step&tolerance=0.03" --y y --tag step --tolerance 0.03
expect_equal "by commit" "$(cat "$TMP/out")" "12 12 git $HISTORY_SHORT8"
expect_equal "regression" "$cli_status" 1
grep -q "^y rose [0-9.]* % \[[0-9.]*, [0-9.]*\] at $HISTORY_SHORT8 (p < 0.001): a regression past --tolerance$" \
    "$TMP/sentences" || fail "no 'y rose ... at $HISTORY_SHORT8' sentence: $(cat "$TMP/sentences")"
same "y=y&tag=step&tolerance=0.5" --y y --tag step --tolerance 0.5
expect_equal "past no tolerance" "$cli_status" 0
sweep8=$(sql "SELECT id FROM sweep WHERE git_commit = '$history_commit_8'")
same "y=y&tag=step&by=sweep&section=1" --y y --tag step --by sweep --section 1
expect_equal "by sweep" "$(cat "$TMP/out")" "12 12 git sweep $sweep8"
same "y=y&script=bench.lua&status=ok&plugin=testkit&since=2000-01-01&until=2999-01-01T00:00" \
    --y y --script bench.lua --status ok --plugin testkit --since 2000-01-01 --until 2999-01-01T00:00
expect_equal "filters" "$(cat "$TMP/out")" "12 12 git $HISTORY_SHORT8"

# Bad input: 400, {"error": one line}, exact.
bad() {
    expect_code "api/history?$1" 400
    expect_equal "error of $1" "$(cat "$TMP/body")" "{\"error\":\"$2\"}"
}
bad "tag=step" "history needs y=COLUMN"
bad "y=nope&tag=step" "history: sweep 1, section 1 has no column nope"
bad "y=y&tag=nosuch" "history: 0 sweeps match; a history needs at least 2"
bad "y=y&name=nosuch" "history: 0 sweeps match; a history needs at least 2"
bad "y=y&tag=step&section=2" "history: sweep 1 has no section 2"
bad "y=y&section=0" "section: expected a section number (1, 2, ...)"
bad "y=y&section=1x" "section: expected a section number (1, 2, ...)"
bad "y=y&by=commit" "by: expected git_commit or sweep"
bad "y=y&tolerance=-1" "tolerance: expected a positive relative tolerance (0.05)"
bad "y=y&tolerance=abc" "tolerance: expected a positive relative tolerance (0.05)"
bad "y=y&status=done" "status: expected running, ok, failed, interrupted or error"
bad "y=y&since=2026-13-01" "since: no such date or time; expected a UTC date (2026-12-01), date and time (2026-12-01T14:30) or an age (90m, 2h, 7d)"
bad "y=y&until=yesterday" "until: expected a UTC date (2026-12-01), date and time (2026-12-01T14:30) or an age (90m, 2h, 7d)"

stop_serve
expect_status 0
expect_sql "SELECT count(*) FROM sweep" 12
finish
