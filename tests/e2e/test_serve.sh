# runner serve over HTTP with curl: every endpoint and its status codes, the
# security headers, path traversal, the access token, the request, rate and
# connection limits, read-only access, and a clean stop on SIGINT/SIGTERM.
# The pages themselves run in a real browser in test_serve_browser.sh.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the server"

make_serve_sweeps
# A fit stored before the server starts, for the plot's answers below.
"$RUNNER" fit 2 --db "$DB" --x x --y random --model linear >/dev/null 2>&1 || fail "runner fit failed"
fit_section=$(sql "SELECT section_id FROM fit")
db_sum=$(sha256sum "$DB" | cut -d' ' -f1)

# --- refusals before serving ---------------------------------------------------
run "$RUNNER" serve --db "$TMP/none.db"
expect_status 2
expect_stderr "runner: $TMP/none.db: no such database (run 'runner sweep' first, or pass --db)"
run "$RUNNER" serve --db "$DB" --listen 0.0.0.0:0
expect_status 2
expect_stderr "runner: --listen 0.0.0.0:0: not a loopback address; add --allow-remote to let other machines in (each then needs the access token printed at start)"
run "$RUNNER" serve --db "$DB" --listen nowhere
expect_status 2
expect_stderr "runner: --listen nowhere: expected ADDR:PORT, like 127.0.0.1:8765 (port 0: any free port)"

# --- every endpoint ----------------------------------------------------------------
start_serve
expect_equal "loopback URL has no token" "$URL" "$BASE"
expect_code "" 200
grep -qF '<script src="/app.js" defer></script>' "$TMP/body" || fail "page lacks its script"
if grep -qi '<script>' "$TMP/body"; then fail "the page has an inline script"; fi
# The headers every answer carries (checked on the page and on an error).
for path in "" "api/sweep/999"; do
    http "$path"
    grep -qi "^Content-Security-Policy: default-src 'none'; script-src 'self'; style-src " \
        "$TMP/headers" || fail "/$path: no CSP without inline script"
    grep -qi "frame-ancestors 'none'" "$TMP/headers" || fail "/$path: no frame-ancestors 'none'"
    if grep -qi "script-src[^;]*unsafe\|unsafe-eval" "$TMP/headers"; then fail "/$path: unsafe CSP"; fi
    grep -qi "^X-Content-Type-Options: nosniff" "$TMP/headers" || fail "/$path: no nosniff"
done
expect_code app.js 200
grep -qi "^Content-Type: text/javascript" "$TMP/headers" || fail "app.js content type"
expect_code app.css 200
expect_code dygraph.min.js 200
expect_code api/sweeps 200
grep -qi "^Content-Type: application/json" "$TMP/headers" || fail "API content type"
expect_equal "sweeps total" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["total"], [r["id"] for r in d["rows"]], d["rows"][1]["name"], d["rows"][1]["tags"], d["rows"][0]["points_ok"])' "$TMP/body")" \
    "2 [2, 1] <b onmouseover=alert(2)>evil</b> ['<i>tag</i>'] 3"
expect_code "api/sweeps?sort=id&order=asc&limit=1&offset=1" 200
expect_equal "second page, oldest first" "$(python3 -c 'import json,sys; print([r["id"] for r in json.load(open(sys.argv[1]))["rows"]])' "$TMP/body")" "[2]"
expect_code "api/sweeps?q=baseline" 200
expect_equal "filter by tag" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["total"], d["rows"][0]["id"])' "$TMP/body")" "1 2"
expect_code "api/sweeps?q=%25" 200      # a literal %, not LIKE's wildcard
expect_equal "filter by a literal %" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/body")" "0"
expect_code "api/sweeps?status=failed" 200
expect_code "api/sweeps?sort=points" 400
expect_code api/sweep/1 200
expect_equal "sweep 1 section title" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["sections"][0]; print(s["title"], s["points_done"], [c["unit"] for c in s["columns"]][:2])' "$TMP/body")" \
    "<script>alert(\"x\")</script> 3 ['s', 'rows']"
expect_code api/sweep/999 404
expect_code api/sweep/1/progress 200
expect_equal "progress of a finished sweep" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["status"], d["points_done"], d["points_planned"], d["running"], d["eta_s"])' "$TMP/body")" \
    "ok 3 3 False None"
# Rows: paged, sorted, filtered by the server; NaN and inf spelled out.
expect_code "api/section/1/rows?limit=2&sort=x&order=desc" 200
expect_equal "rows page" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=[c["name"] for c in d["columns"]]; print(d["total"], len(d["rows"]), [r[1+n.index("x")] for r in d["rows"]], d["rows"][0][1+n.index("not_a_number")], d["rows"][0][1+n.index("pos_inf")])' "$TMP/body")" \
    "6 2 [3.0, 3.0] NaN inf"
expect_code "api/section/1/rows?col=x&op=ge&value=2" 200
expect_equal "filtered rows" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/body")" "4"
expect_code "api/section/1/rows?col=tag&op=contains&value=a1" 200
expect_equal "text filter" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/body")" "3"
expect_code "api/section/1/rows?col=not_a_number&op=eq&value=NaN" 200
expect_equal "NaN filter" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/body")" "6"
expect_code "api/section/1/rows?limit=100000" 200
expect_equal "page size capped" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["limit"])' "$TMP/body")" "500"
expect_code "api/section/1/rows?sort=nope" 400
expect_code "api/section/1/rows?col=nope&value=1" 400
expect_code "api/section/1/rows?col=x&op=like&value=1" 400
expect_code "api/section/999/rows" 404
# What is drawn over a plot: nothing stored for sweep 1; sweep 2's fit
# listed, its curve with a band; x alone is refused.
expect_code "api/section/1/answers" 200
expect_equal "no answers for sweep 1" "$(cat "$TMP/body")" '{"fits":[],"fronts":[]}'
expect_code "api/section/1/answers?x=x" 400
expect_equal "answers with x alone" "$(cat "$TMP/body")" '{"error":"x and y: give both, or neither for the list"}'
expect_code "api/section/999/answers" 404
expect_code "api/section/$fit_section/answers" 200
expect_equal "the fit listed" "$(cat "$TMP/body")" '{"fits":[{"id":1,"model":"linear","x":"x","y":"random","by":null}],"fronts":[]}'
expect_code "api/section/$fit_section/answers?x=x&y=random" 200
python3 - "$TMP/body" >"$TMP/answers.out" <<'PY' || fail "the fit's curve: $(cat "$TMP/answers.out")"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["fits"][0]
assert [p["name"] for p in f["params"]] == ["a", "b"], f["params"]
pts = f["points"]
assert len(pts) == 400 and all(lo <= v <= hi for _, v, lo, hi in pts), pts[:3]
a, b = (p["value"] for p in f["params"])
assert all(abs(v - (a + b * x)) <= 1e-9 * (1 + abs(v)) for x, v, _, _ in pts)
assert d["fronts"] == [] and d["notes"] == []
PY
# Keyset paging in the default order: each page's next starts the following
# one; the pages walked by after= are the pages walked by offset=, both ways.
python3 - "$BASE" >"$TMP/keyset.out" <<'PY' || fail "keyset paging: $(cat "$TMP/keyset.out")"
import json, sys, urllib.request
get = lambda q: json.load(urllib.request.urlopen(sys.argv[1] + "api/section/1/rows?limit=2" + q))
for order in ("", "&order=desc"):
    by_offset = [r for k in range(3) for r in get(order + "&offset=%d" % (2 * k))["rows"]]
    by_key, after = [], ""
    for _ in range(3):
        page = get(order + after)
        by_key += page["rows"]
        after = "&after=" + page["next"]
    end = get(order + after)
    if by_key != by_offset or len(by_key) != 6 or end["rows"] or end["next"] is not None:
        print(order, "after=", by_key, "offset=", by_offset, "end", end); sys.exit(1)
if get("&sort=x")["next"] is not None:
    print("a sorted page has a next cursor"); sys.exit(1)
PY
expect_code "api/section/1/rows?after=1:1&sort=x" 400
expect_equal "after with a sort" "$(cat "$TMP/body")" '{"error":"after: only in the default order (no sort)"}'
for bad in "1" "1:" ":1" "1:2x" "1;DROP%20TABLE%20sweep:1" "1:1%20OR%201=1"; do
    expect_code "api/section/1/rows?after=$bad" 400
    expect_equal "after=$bad" "$(cat "$TMP/body")" '{"error":"after: expected POINT:ROW, a page'"'"'s next"}'
done
expect_code "api/section/1/plot?x=x&y=y" 200
expect_equal "plot" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["labels"], d["rows"], d["points_total"])' "$TMP/body")" \
    "['x', 'y'] [[1.0, 2.0], [1.0, 2.0], [2.0, 4.0], [2.0, 4.0], [3.0, 6.0], [3.0, 6.0]] 6"
expect_code "api/section/1/plot?x=x&y=random&by=row_index" 200
expect_equal "plot by" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["labels"])' "$TMP/body")" \
    "['x', 'row_index=0', 'row_index=1']"
expect_code "api/section/1/plot?x=tag&y=y" 400
expect_code "api/compare?a=1&b=2" 200
expect_equal "compare counts" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["counts"]; print(c["rows"], c["differing"], c["only_a"], c["only_b"], len(d["rows"]))' "$TMP/body")" \
    "4 4 2 2 8"
expect_code "api/compare?a=1&b=1&only=diff" 200
expect_equal "a sweep against itself" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["counts"]["differing"], len(d["rows"]))' "$TMP/body")" "0 0"
expect_code "api/compare?a=1" 400
expect_code "api/compare?a=1&b=3" 404
expect_code api/nothing 404
expect_code nothing 404

# --- no SQL from the client; nothing written ---------------------------------------
expect_code "api/sweeps?sort=id;DROP%20TABLE%20sweep" 400
expect_code "api/sweeps?q=x'%20OR%201=1;%20DROP%20TABLE%20sweep;--" 200
expect_equal "injected filter matches nothing" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/body")" "0"
expect_code "api/section/1/rows?sort=x%22;%20DROP%20TABLE%20sweep;--" 400
expect_code "api/section/1/rows?col=tag&op=eq&value=1')%20OR%20(1=1" 200
expect_equal "injected value matches nothing" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$TMP/body")" "0"
expect_code "api/section/1/rows?col=x&op=eq&value=1)%20OR%20(1=1" 400 # not a number
expect_sql "SELECT count(*) FROM sweep" "2"

# --- methods, sizes, paths ---------------------------------------------------------
expect_code api/sweeps 405 -X POST --data "x=1"
grep -qi "^Allow: GET, HEAD" "$TMP/headers" || fail "405 without Allow"
expect_code api/sweeps 405 -X DELETE
long=$(python3 -c 'print("a" * 3000)')
expect_code "api/sweeps?q=$long" 414
big=$(python3 -c 'print("x" * 40000)')
http api/sweeps -H "X-Big: $big"
case "$code" in 2??) fail "a 40 kB header was served ($code)" ;; esac
expect_code "../../../../etc/passwd" 400
expect_code "%2e%2e/%2e%2e/etc/passwd" 400
expect_code "app.js/../../../etc/passwd" 400
expect_code "/etc/passwd" 400
expect_code "..%5c..%5cetc%5cpasswd" 400
grep -q "root:" "$TMP/body" && fail "traversal reached /etc/passwd"
stop_serve INT
expect_status 0
grep -qx "runner: stopped serving (SIGINT)" "$TMP/serve.out" || fail "no clean SIGINT stop"

# --- dygraphs missing: the plot says so ----------------------------------------------
RUNNER_DYGRAPHS_DIR="$TMP/none" start_serve
expect_code dygraph.min.js 404
grep -qF "libjs-dygraphs" "$TMP/body" || fail "404 does not name libjs-dygraphs"
stop_serve TERM
expect_status 0
grep -qx "runner: stopped serving (SIGTERM)" "$TMP/serve.out" || fail "no clean SIGTERM stop"

# --- rate limit: 1 request/s, bursts of 2 ----------------------------------------
start_serve --rate 1
python3 - "$BASE" >"$TMP/rate.out" <<'PY' || fail "rate limit: $(cat "$TMP/rate.out")"
import sys, urllib.error, urllib.request
codes = []
for _ in range(20):
    try:
        codes.append(urllib.request.urlopen(sys.argv[1] + "api/sweeps").status)
    except urllib.error.HTTPError as e:
        codes.append((e.code, e.headers.get("Retry-After")))
refused = [c for c in codes if c != 200]
if not refused or refused[0] != (429, "1"):
    print("20 quick requests at --rate 1:", codes); sys.exit(1)
PY
stop_serve
expect_status 0

# --- connection limit: two idle connections fill --max-connections 2; a third
# waits unanswered until one of them closes, then is served. (Each from its
# own address: one address may hold a quarter of the limit, here 1;
# test_serve_guard.sh tests that share and the deadline for a head.)
start_serve --max-connections 2
python3 - "$BASE" >"$TMP/limit.out" <<'PY' || fail "connection limit: $(cat "$TMP/limit.out")"
import socket, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
host = b"Host: 127.0.0.1:%d\r\n" % u.port
held = [socket.create_connection((u.hostname, u.port), source_address=("127.0.0.%d" % (2 + i), 0))
        for i in range(2)]
for s in held:
    s.sendall(b"GET /api/sweeps HTTP/1.1\r\n" + host)   # unfinished: kept open
third = socket.create_connection((u.hostname, u.port))
third.sendall(b"GET /api/sweeps HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n")
third.settimeout(2)
try:
    print("a third connection was served while two were open:", third.recv(40)); sys.exit(1)
except socket.timeout:
    pass
for s in held:
    s.close()
third.settimeout(60)
answer = third.recv(12)
if answer != b"HTTP/1.1 200":
    print("the third connection, once one closed:", answer); sys.exit(1)
PY
# A stop with both connections still held open is prompt all the same.
python3 - "$BASE" "$TMP/held" <<'PY' &
import socket, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
held = [socket.create_connection((u.hostname, u.port), source_address=("127.0.0.%d" % (2 + i), 0))
        for i in range(2)]
for s in held:
    s.sendall(b"GET /api/sweeps HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % u.port)
open(sys.argv[2], "w").close()
time.sleep(120)
PY
holder=$!
wait_until "two held connections" '[ -e "$TMP/held" ]'
stop_serve
expect_status 0
kill "$holder"

# --- another address: an access token on every request -----------------------------
start_serve --listen 0.0.0.0:0 --allow-remote
token=$(echo "$URL" | sed -n 's|.*?token=\([0-9a-f]*\)$|\1|p')
expect_equal "token length" "${#token}" 64
grep -qF "(the token is shown only now)" "$TMP/serve.out" || fail "the token line"
expect_code api/sweeps 401
expect_code "" 401
expect_code api/sweeps 401 -H "Authorization: Bearer 0000"
expect_code api/sweeps 401 -H "Authorization: Bearer ${token}x"
expect_code api/sweeps 401 -b "runner_token=$(echo "$token" | cut -c1-63)"
expect_code api/sweeps 200 -H "Authorization: Bearer $token"
expect_code "?token=wrong" 401
expect_code "?token=$token" 303
grep -qi "^Set-Cookie: runner_token=$token; Path=/; HttpOnly; SameSite=Strict" "$TMP/headers" \
    || fail "the token URL sets no cookie"
grep -qi "^Location: /" "$TMP/headers" || fail "the token URL does not go to /"
expect_code api/sweeps 200 -b "runner_token=$token"
expect_code "" 200 -b "runner_token=$token"
stop_serve
expect_status 0
[ "$(grep -c "$token" "$TMP/serve.out")" = 1 ] || fail "the token was printed more than once"

# The server wrote nothing: the file is byte for byte what it was.
expect_equal "database unchanged" "$(sha256sum "$DB" | cut -d' ' -f1)" "$db_sum"

# --- a live sweep: the total the server keeps for a section still grows ---------
# (the count is cached per section and filter, checked against the section's
# point blocks, which each commit of its rows changes; docs/serve.md).
start_slow_sweep live 3
live_section=$(sql "SELECT id FROM section WHERE sweep_id = 3")
start_serve
live_total() {
    curl -s "${BASE}api/section/$live_section/rows?$1" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])'
}
first=$(live_total "")
first_filtered=$(live_total "col=workers&op=eq&value=500")
wait_until "the live section's total grows" '[ "$(live_total "")" -gt "$first" ]'
wait_until "its filtered total grows" \
    '[ "$(live_total "col=workers&op=eq&value=500")" -gt "$first_filtered" ]'
alive $sweep_pid || fail "the live sweep ended before its total grew; make it longer"
kill -INT $sweep_pid
wait_exit $sweep_pid
expect_equal "the total once stopped" "$(live_total "")" \
    "$(sql "SELECT count(*) FROM straggler WHERE section_id = $live_section")"
stop_serve
expect_status 0
finish
