# Webhook summaries (docs/webhooks.md) against a real HTTP server on
# 127.0.0.1 whose answers are scripted (webhook_server.py): delivered once,
# retried when the receiver may recover, never at the cost of the sweep, and
# the URL's token never stored or printed. Each body is checked against the
# stored rows with SQL.
. tests/e2e/lib.sh

# Short timeouts and backoff keep the retries quick; nothing may go through a proxy.
export RUNNER_WEBHOOK_TIMEOUT_S=1 RUNNER_WEBHOOK_BACKOFF_S=0.05
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
unset RUNNER_WEBHOOK_URL RUNNER_WEBHOOK_SECRET
TOKEN=SECRETTOKEN123
# The interpreter itself, not a version manager's shim: it runs many times.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
PLUGINS="$RUNNER_FIXTURES/good"
servers=""
trap 'for p in $servers; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

# start_server NAME [--secret KEY]: a receiver in $TMP/NAME; its URL is
# then in $url (the path carries the token).
start_server() {
    name=$1
    shift
    mkdir -p "$TMP/$name"
    "$PYTHON" tests/e2e/webhook_server.py --dir "$TMP/$name" "$@" >/dev/null 2>"$TMP/$name/stderr" &
    servers="$servers $!"
    wait_until "the $name receiver's port" '[ -s "$TMP/$name/port" ]'
    url="http://127.0.0.1:$(cat "$TMP/$name/port")/hooks/$TOKEN"
}

# behave NAME JSON: the answers the receiver gives next, in order.
behave() {
    printf '%s\n' "$2" >"$TMP/$1/script.json"
}

# requests NAME: how many requests the receiver got.
requests() {
    if [ -f "$TMP/$1/requests.jsonl" ]; then wc -l <"$TMP/$1/requests.jsonl" | tr -d ' '; else echo 0; fi
}

# request NAME N EXPR: a Python expression on request N (1-based) `r`, e.g.
# r["headers"]["idempotency-key"].
request() {
    "$PYTHON" - "$TMP/$1/requests.jsonl" "$2" "$3" <<'EOF'
import json, sys
log, n, expr = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = [json.loads(line) for line in open(log, encoding="utf-8")][n - 1]
print(eval(expr, {"r": r, "json": json}))
EOF
}

# check_body NAME N: request N's body is a generic summary whose every figure
# equals what the database holds ($DB, read with SQL).
check_body() {
    "$PYTHON" - "$DB" "$TMP/$1/requests.jsonl" "$2" <<'EOF' || fail "body of request $2 to $1 differs from the database"
import json, math, sqlite3, sys
db, log, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
request = [json.loads(line) for line in open(log, encoding="utf-8")][n - 1]
body = json.loads(request["body"])
con = sqlite3.connect(db)
problems = []

def same(what, got, expected):
    if got != expected:
        problems.append(f"{what}: body has {got!r}, database {expected!r}")

def as_json(v, type_):
    """A stored cell as the body should carry it."""
    if v == "NaN" and type_ == "real":
        return "NaN"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if type_ == "boolean" and v is not None:
        return bool(v)
    return v

sweep = con.execute(
    "SELECT id, script_path, status, started_at, ended_at,"
    " round((julianday(ended_at) - julianday(started_at)) * 86400.0, 3), host, runner_version,"
    " (SELECT count(*) FROM point WHERE sweep_id = s.id AND status = 'ok'),"
    " (SELECT count(*) FROM point WHERE sweep_id = s.id AND status <> 'ok')"
    " FROM sweep AS s WHERE id = ?", (body["sweep_id"],)).fetchone()
for key, expected in zip(["sweep_id", "script", "status", "started_at", "ended_at",
                          "duration_s", "host", "runner_version", "points_ok", "points_failed"],
                         sweep):
    same(key, body[key], expected)
same("database", body["database"], db)
sections = con.execute("SELECT id, ordinal, plugin, title FROM section WHERE sweep_id = ?"
                       " ORDER BY ordinal", (body["sweep_id"],)).fetchall()
same("sections + sections_omitted", len(body["sections"]) + body["sections_omitted"],
     len(sections))
for sec, (section_id, ordinal, plugin, title) in zip(body["sections"], sections):
    where = f"section {ordinal}"
    same(where + " ordinal", sec["ordinal"], ordinal)
    same(where + " plugin", sec["plugin"], plugin)
    same(where + " title", sec["title"], title)
    ok, failed = con.execute("SELECT sum(status = 'ok'), sum(status <> 'ok') FROM point"
                             " WHERE section_id = ?", (section_id,)).fetchone()
    same(where + " points_ok", sec["points_ok"], ok)
    same(where + " points_failed", sec["points_failed"], failed)
    columns = con.execute("SELECT name, unit, type, role FROM plugin_column WHERE plugin = ?"
                          " ORDER BY role <> 'param', position, name", (plugin,)).fetchall()
    same(where + " columns", [tuple(c.values()) for c in sec["columns"]], columns)
    names = ", ".join('"' + c[0] + '"' for c in columns)
    rows = con.execute(f'SELECT {names} FROM "{plugin}" WHERE section_id = ? ORDER BY row_id',
                       (section_id,)).fetchall()
    types = [c[2] for c in columns]
    same(where + " row_count", sec["row_count"], len(rows))
    same(where + " rows + rows_omitted", len(sec["rows"]) + sec["rows_omitted"], len(rows))
    if len(sec["rows"]) > 100:
        problems.append(f"{where}: {len(sec['rows'])} rows, more than 100")
    for i, row in enumerate(sec["rows"]):
        same(f"{where} row {i}", row, [as_json(v, t) for v, t in zip(rows[i], types)])
    for c, (name, _, type_, _) in enumerate(columns):
        if type_ not in ("integer", "real"):
            if name in sec["figures"]:
                problems.append(f"{where}: figures for {type_} column {name}")
            continue
        numbers = [r[c] for r in rows if isinstance(r[c], (int, float))]
        fig = sec["figures"][name]
        same(f"{where} {name} min", fig["min"], as_json(min(numbers), type_) if numbers else None)
        same(f"{where} {name} max", fig["max"], as_json(max(numbers), type_) if numbers else None)
        same(f"{where} {name} nan", fig["nan"], sum(1 for r in rows if r[c] == "NaN"))
if len(request["body"].encode()) > 256 * 1024:
    problems.append(f"body of {len(request['body'].encode())} bytes, more than 256 KiB")
for p in problems[:20]:
    print("  " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}

# no_token FILE...: the URL's token is in none of them.
no_token() {
    for f in "$@"; do
        if [ -f "$f" ] && grep -aq "$TOKEN" "$f"; then
            fail "the webhook token is in $f"
        fi
    done
}

QUICK=$(write_script quick.lua <<'EOF'
sweep("testkit", { x = {1, 2, 3}, rows = {2}, fail = {false, true} }, { title = "quick" })
EOF
)

# --- 200: delivered once, with the headers a receiver relies on -------------
start_server ok
DB="$TMP/ok.db"
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url"
expect_status 1
expect_stderr_contains "runner: sweep 1 stored in $DB: 3 points ok, 3 failed"
expect_stderr_contains "runner: summary of sweep 1 delivered to http://127.0.0.1/…"
expect_equal "requests to ok" "$(requests ok)" 1
expect_sql "SELECT attempts, last_status, last_error IS NULL, delivered_at IS NOT NULL, format FROM outbox" "1|200|1|1|generic"
expect_sql "SELECT count(*) FROM outbox WHERE idempotency_key LIKE 'runner-1-' || id || '-%'" "1"
expect_sql "SELECT status FROM sweep" "failed"
expect_equal "path" "$(request ok 1 'r["path"]')" "/hooks/$TOKEN"
expect_equal "method" "$(request ok 1 'r["method"]')" "POST"
expect_equal "User-Agent" "$(request ok 1 'r["headers"]["user-agent"]')" "runner/0.1.0"
expect_equal "Content-Type" "$(request ok 1 'r["headers"]["content-type"]')" "application/json"
expect_equal "Idempotency-Key" "$(request ok 1 'r["headers"]["idempotency-key"]')" "$(sql "SELECT idempotency_key FROM outbox")"
expect_equal "no signature without a secret" "$(request ok 1 '"x-runner-signature-256" in r["headers"]')" "False"
expect_equal "stored body is the body sent" "$(request ok 1 'r["body"]')" "$(sql "SELECT body FROM outbox")"
check_body ok 1
# The URL is a secret: not in the database (command line included), not printed.
expect_sql "SELECT command_line LIKE '%--webhook ''http://127.0.0.1/…''%' FROM sweep" "1"
no_token "$DB" "$DB-wal" "$TMP/err" "$TMP/out"
# runner sweeps still reads it; the outbox is part of schema version 2.
expect_sql "PRAGMA user_version" "$(runner_schema)"

# The URL from the environment; the body bounded: at most 100 rows a section.
MANY=$(write_script many.lua <<'EOF'
sweep("testkit", { x = {1, 2}, rows = {150} }, { title = "many rows" })
EOF
)
RUNNER_WEBHOOK_URL="$url" run "$RUNNER" sweep "$MANY" --db "$DB" --plugin-dir "$PLUGINS" --quiet
expect_status 0
expect_equal "requests to ok" "$(requests ok)" 2
expect_equal "rows kept" "$(request ok 2 'len(json.loads(r["body"])["sections"][0]["rows"])')" 100
expect_equal "rows_omitted" "$(request ok 2 'json.loads(r["body"])["sections"][0]["rows_omitted"]')" 200
check_body ok 2
expect_sql "SELECT command_line NOT LIKE '%127.0.0.1%' FROM sweep WHERE id = 2" "1"

# 256 KiB at most: 40 sections of 100 rows do not all fit; rows are left out, and counted.
WIDE=$(write_script wide.lua <<'EOF'
for i = 1, 40 do sweep("testkit", { x = {i}, rows = {100} }, { print = false }) end
EOF
)
run "$RUNNER" sweep "$WIDE" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook="$url"
expect_status 0
expect_equal "requests to ok" "$(requests ok)" 3
expect_equal "sections" "$(request ok 3 'len(json.loads(r["body"])["sections"])')" 40
expect_equal "rows left out" "$(request ok 3 'sum(s["rows_omitted"] for s in json.loads(r["body"])["sections"]) > 0')" "True"
check_body ok 3
no_token "$DB" "$DB-wal" "$TMP/err"

# --- slack: {"text": ...} with the figures in a code block --------------------
DB="$TMP/slack.db"
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet --webhook "$url" --webhook-format slack
expect_status 0
expect_equal "requests to ok" "$(requests ok)" 4
expect_equal "slack keys" "$(request ok 4 'list(json.loads(r["body"]))')" "['text']"
text=$(request ok 4 'json.loads(r["body"])["text"]')
case "$text" in
    "runner sweep 1 ok: scripts/jitter.lua, 24 points ok, 0 failed"*) ;;
    *) fail "slack text starts: $text" ;;
esac
case "$text" in
    *'```'*"1. Speedup vs workers, per jitter (exact expected waits) [speedup]: 24 rows"*'```') ;;
    *) fail "slack text lacks the section in a code block: $text" ;;
esac
max_speedup=$(sql "SELECT printf('%.6g', max(speedup)) FROM speedup")
if ! printf '%s\n' "$text" | grep -Eq "^   speedup +1 +$max_speedup\$"; then
    fail "slack table lacks 'speedup 1 $max_speedup': $text"
fi
expect_sql "SELECT format, attempts FROM outbox" "slack|1"

# --- 500, 500, 200: delivered once, after three attempts, one key ------------
start_server flaky
behave flaky '[{"status": 500}, {"status": 503}, {"status": 200}]'
DB="$TMP/flaky.db"
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url" --webhook-strict
expect_status 1
expect_stderr_contains "runner: summary of sweep 1 delivered to http://127.0.0.1/…"
expect_equal "requests to flaky" "$(requests flaky)" 3
expect_sql "SELECT attempts, last_status, delivered_at IS NOT NULL FROM outbox" "3|200|1"
key=$(sql "SELECT idempotency_key FROM outbox")
for n in 1 2 3; do
    expect_equal "key of attempt $n" "$(request flaky $n 'r["headers"]["idempotency-key"]')" "$key"
done
expect_equal "same body" "$(request flaky 1 'r["body"]')" "$(request flaky 3 'r["body"]')"
check_body flaky 3

# --- 429 with Retry-After: waited for when short, left for notify when long --
start_server busy
behave busy '[{"status": 429, "retry_after": "1"}, {"status": 200}]'
DB="$TMP/busy.db"
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url"
expect_status 1
expect_equal "requests to busy" "$(requests busy)" 2
expect_equal "waited Retry-After" "$("$PYTHON" -c "import json; t=[json.loads(l)['time'] for l in open('$TMP/busy/requests.jsonl')]; print(t[1] - t[0] >= 0.95)")" "True"
expect_sql "SELECT attempts, last_status, delivered_at IS NOT NULL FROM outbox" "2|200|1"
behave busy '[{"status": 429, "retry_after": "3600"}]'
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url"
expect_status 1
expect_stderr_contains "runner: warning: summary of sweep 2 not delivered to http://127.0.0.1/…: HTTP 429: ok, asking to wait 3600 s (attempt 1); it stays in the outbox of $DB for 'runner notify'"
expect_equal "requests to busy" "$(requests busy)" 3
expect_sql "SELECT attempts, last_status, delivered_at IS NULL, next_attempt_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+3500 seconds') FROM outbox WHERE sweep_id = 2" "1|429|1|1"
run "$RUNNER" notify --db "$DB" --webhook "$url"
expect_status 3
expect_stderr_contains "not delivered to http://127.0.0.1/…: the receiver asked to wait until 20"
expect_equal "notify honours Retry-After" "$(requests busy)" 3

# --- a redirect is reported, in runner's own words whatever the URL's path --
# (the path's segments are scrubbed from what libcurl and the receiver say,
# and once cut "redirect" out of runner's message: "HTTP 307: …s are not ...")
start_server moved
behave moved '[{"status": 307}]'
DB="$TMP/moved.db"
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "${url%/hooks/*}/redirects/$TOKEN"
expect_status 1
expect_equal "requests to moved" "$(requests moved)" 1
expect_equal "redirect warning" "$(grep '^runner: warning: summary' "$TMP/err")" "runner: warning: summary of sweep 1 not delivered to http://127.0.0.1/…: HTTP 307: the receiver redirects to another URL, and runner does not follow redirects; use that URL (not retried); it stays in the outbox of $DB for 'runner notify'"

# --- a receiver that never answers: the row waits, notify delivers it later ---
start_server hang
behave hang '[{"delay": 30}]'
DB="$TMP/hang.db"
RUNNER_WEBHOOK_TIMEOUT_S=0.5 run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url" --webhook-strict
expect_status 1
expect_stderr_contains "runner: warning: summary of sweep 1 not delivered to http://127.0.0.1/…: no answer within 0.5 s"
expect_stderr_contains "(attempt 4 of 4); it stays in the outbox of $DB for 'runner notify'"
expect_equal "requests to hang" "$(requests hang)" 4
expect_sql "SELECT status FROM sweep" "failed"
expect_sql "SELECT count(*) FROM point" "6"
expect_sql "SELECT attempts, last_status IS NULL, last_error LIKE 'no answer within 0.5 s%', delivered_at IS NULL FROM outbox" "4|1|1|1"
# --webhook-strict turns an otherwise clean sweep into status 3.
OKSWEEP=$(write_script ok.lua <<'EOF'
sweep("testkit", { x = {1, 2} }, { print = false })
EOF
)
RUNNER_WEBHOOK_TIMEOUT_S=0.5 run "$RUNNER" sweep "$OKSWEEP" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url" --webhook-strict
expect_status 3
expect_sql "SELECT status FROM sweep WHERE id = 2" "ok"
expect_sql "SELECT count(*) FROM testkit WHERE sweep_id = 2" "2"
# The receiver recovers: notify delivers both, with the keys of the first tries.
behave hang '[{"status": 200}]'
before=$(requests hang)
run "$RUNNER" notify --db "$DB" --webhook "$url"
expect_status 0
expect_stderr_contains "runner: summary of sweep 1 delivered to http://127.0.0.1/…"
expect_stderr_contains "runner: summary of sweep 2 delivered to http://127.0.0.1/…"
expect_equal "requests to hang" "$(requests hang)" $((before + 2))
expect_equal "notify keeps the key" "$(request hang $((before + 1)) 'r["headers"]["idempotency-key"]')" "$(sql "SELECT idempotency_key FROM outbox WHERE sweep_id = 1")"
expect_equal "notify keeps the key" "$(request hang 1 'r["headers"]["idempotency-key"]')" "$(sql "SELECT idempotency_key FROM outbox WHERE sweep_id = 1")"
check_body hang $((before + 1))
expect_sql "SELECT attempts, last_status, delivered_at IS NOT NULL FROM outbox WHERE sweep_id = 1" "5|200|1"
# Nothing left: notify sends nothing more.
run "$RUNNER" notify --db "$DB" --webhook "$url"
expect_status 0
expect_stderr "runner: $DB: no webhook summary waits for delivery"
expect_equal "requests to hang" "$(requests hang)" $((before + 2))

# --- connection refused: retried, kept, delivered by notify elsewhere ---------
dead_port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DB="$TMP/refused.db"
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "http://127.0.0.1:$dead_port/hooks/$TOKEN"
expect_status 1
expect_stderr_contains "runner: warning: summary of sweep 1 not delivered to http://127.0.0.1/…: Failed to connect to 127.0.0.1 port $dead_port"
expect_stderr_contains "(attempt 4 of 4)"
expect_sql "SELECT attempts, last_status IS NULL, delivered_at IS NULL FROM outbox" "4|1|1"
expect_sql "SELECT count(*) FROM testkit" "6"
no_token "$DB" "$DB-wal" "$TMP/err"
start_server later
RUNNER_WEBHOOK_URL="$url" run "$RUNNER" notify --db "$DB"
expect_status 0
expect_equal "requests to later" "$(requests later)" 1
check_body later 1

# --- 400: not retried; an answer echoing the path does not leak the token ----
start_server reject
behave reject '[{"status": 400, "body": "no such hook: {path}"}]'
DB="$TMP/reject.db"
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url" --webhook-strict
expect_status 1
expect_stderr_contains "runner: warning: summary of sweep 1 not delivered to http://127.0.0.1/…: HTTP 400: no such hook: … (not retried)"
expect_equal "requests to reject" "$(requests reject)" 1
expect_sql "SELECT attempts, last_status, last_error, delivered_at IS NULL FROM outbox" "1|400|HTTP 400: no such hook: …|1"
no_token "$DB" "$DB-wal" "$TMP/err"
run "$RUNNER" notify --db "$DB" --webhook "$url"
expect_status 3
expect_equal "requests to reject" "$(requests reject)" 2
no_token "$DB" "$DB-wal" "$TMP/err"

# --- a receiver that checks the signature ------------------------------------
start_server signed --secret s3cret
DB="$TMP/signed.db"
RUNNER_WEBHOOK_SECRET=s3cret run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url"
expect_status 1
expect_equal "signature checked" "$(request signed 1 'r["signature_valid"]')" "True"
expect_equal "signature layout" "$(request signed 1 'r["headers"]["x-runner-signature-256"][:7]')" "sha256="
expect_sql "SELECT delivered_at IS NOT NULL FROM outbox" "1"
# A wrong secret is refused (401, not retried); notify signs with the right one.
RUNNER_WEBHOOK_SECRET=wrong run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook "$url"
expect_status 1
expect_stderr_contains "HTTP 401: bad signature (not retried)"
expect_equal "requests to signed" "$(requests signed)" 2
expect_sql "SELECT attempts, last_status, delivered_at IS NULL FROM outbox WHERE sweep_id = 2" "1|401|1"
RUNNER_WEBHOOK_SECRET=s3cret run "$RUNNER" notify --db "$DB" --webhook "$url"
expect_status 0
expect_equal "signature checked" "$(request signed 3 'r["signature_valid"]')" "True"
check_body signed 3
no_token "$DB" "$DB-wal" "$TMP/err"
if grep -aq s3cret "$DB" "$DB-wal" "$TMP/err" 2>/dev/null; then fail "the secret is stored or printed"; fi

# --- a version 1 database gains the outbox, and keeps its rows ---------------
DB="$TMP/v1.db"
cp "$TMP/ok.db" "$DB"
if [ -f "$TMP/ok.db-wal" ]; then cp "$TMP/ok.db-wal" "$DB-wal"; fi
# Version 1's catalog: no outbox, points in a table (runner checks the
# catalog of the version a file claims, not user_version alone).
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); DROP TABLE outbox;
    CREATE TABLE point_v1 AS SELECT * FROM point; DROP VIEW point; DROP TABLE point_block;
    ALTER TABLE point_v1 RENAME TO point; PRAGMA user_version = 1"
run "$RUNNER" notify --db "$DB" --webhook "$url"
expect_status 0
expect_stderr "runner: $DB: no webhook summary waits for delivery"
expect_sql "PRAGMA user_version" "$(runner_schema)"
expect_sql "SELECT count(*) FROM outbox" "0"
expect_sql "SELECT count(*) FROM sweep" "3"

# --- usage -------------------------------------------------------------------
run "$RUNNER" sweep "$QUICK" --db "$TMP/usage.db" --webhook "ftp://127.0.0.1/$TOKEN"
expect_status 2
expect_stderr "runner: the webhook URL must be http:// or https:// with a host (it is not repeated here: it may hold a token)"
run "$RUNNER" sweep "$QUICK" --db "$TMP/usage.db" --webhook-format teams --webhook "$url"
expect_status 2
expect_stderr "runner: --webhook-format teams: expected generic or slack; see 'runner --help'"
run "$RUNNER" sweep "$QUICK" --db "$TMP/usage.db" --webhook-strict
expect_status 2
expect_stderr "runner: --webhook-strict needs a webhook URL (--webhook URL or RUNNER_WEBHOOK_URL); see 'runner --help'"
run "$RUNNER" notify --db "$TMP/ok.db"
expect_status 2
expect_stderr "runner: notify needs the webhook URL (--webhook URL or RUNNER_WEBHOOK_URL): it is never stored; see 'runner --help'"
RUNNER_WEBHOOK_TIMEOUT_S=0 run "$RUNNER" notify --db "$TMP/ok.db" --webhook "$url"
expect_status 2
expect_stderr "runner: RUNNER_WEBHOOK_TIMEOUT_S=0: expected a number of seconds above 0, at most 3600"
[ ! -e "$TMP/usage.db" ] || fail "a usage error created the database"
finish
