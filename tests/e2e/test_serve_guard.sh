# runner serve against other web pages and hostile clients (issue 28,
# docs/serve.md "Security model"): the Host header (DNS rebinding), slow
# clients that trickle a request's head (slowloris), paths and queries
# checked on their decoded bytes (NUL included), exact parameter words, and
# the row filter comparing reals as numbers (inf, -inf, NaN).
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the server"
skip_without python3 "python3 plays the slow clients"

# A command sweep whose real column holds 0.5, 2, 3, inf, -inf and NaN
# (stored as reals but NaN, the text 'NaN'), and the testkit's sweep.
cat >"$TMP/reals.sh" <<'SH'
#!/bin/sh
printf '%s\n' '{"v": 0.5}' '{"v": 2}' '{"v": 3}' '{"v": "inf"}' '{"v": "-inf"}' '{"v": "NaN"}'
SH
chmod +x "$TMP/reals.sh"
reals=$(write_script reals.lua <<LUA
command "reals" { argv = { "$TMP/reals.sh" }, columns = { { name = "v", type = "real" } } }
sweep("reals", {}, { print = false })
sweep("testkit", { x = { 1, 2, 3 }, rows = 2 }, { print = false })
LUA
)
run "$RUNNER" sweep "$reals" --db "$DB" --quiet --plugin-dir "$(cd "$RUNNER_FIXTURES/good" && pwd)"
expect_status 0
expect_sql "SELECT group_concat(typeof(v), ' ') FROM reals" "real real real real real text"

# --- refusals before serving ---------------------------------------------------
for bad in "a b" "myhost:8765" "" "<x>" "[zz]"; do
    run "$RUNNER" serve --db "$DB" --allow-host "$bad"
    expect_status 2
    expect_stderr "runner: --allow-host $bad: expected a host name or address without a port, like myhost.lan, 192.168.1.5 or [fe80::1]"
done

start_serve --allow-host Dash.Example --allow-host "[fe80::1]"
port=$(echo "$BASE" | sed 's|.*:\([0-9]*\)/$|\1|')
# The answer's total (grep, not python: many checks, a loaded machine).
total() {
    grep -o '^{"total":[0-9]*' "$TMP/body" | cut -d: -f2
}

# --- the Host header: this server's names only -------------------------------------
misdirected="Host is not this server: runner serve answers only localhost, 127.0.0.1, [::1] and its --listen address, with its port, and names given with --allow-host"
for host in evil.example.com "evil.example.com:$port" "127.0.0.1.evil.example.com:$port" \
    "localhost:$((port + 1))" localhost "127.0.0.1:$port@evil" "[::1" ""; do
    expect_code api/sweeps 421 -H "Host: $host"
    expect_equal "Host: $host" "$(cat "$TMP/body")" "$misdirected"
done
expect_code "" 421 -H "Host: evil.example.com:$port"
for host in "127.0.0.1:$port" "localhost:$port" "LocalHost:$port" "[::1]:$port" \
    "dash.example:$port" "[FE80::1]:$port"; do
    expect_code api/sweeps 200 -H "Host: $host"
done
# HTTP/1.0 without a Host: refused as well.
expect_code api/sweeps 421 -0 -H "Host:"

# --- paths and queries, decoded: a NUL no longer hides the rest ----------------------
expect_code "%00../etc/passwd" 400
expect_equal "NUL in the path" "$(cat "$TMP/body")" "bad path"
expect_code "app.js%00.png" 400
expect_code "api/sweeps%0a" 400
expect_code "api/sweeps?q=a%00b" 400
expect_equal "NUL in the query" "$(cat "$TMP/body")" "bad query: a NUL byte (%00)"
expect_code "app.js?x=%2500" 200 # an escaped %, not a NUL

# --- exact words: asc and desc, diff -------------------------------------------------
for order in ASC Desc up "asc%20" "desc;"; do
    expect_code "api/sweeps?order=$order" 400
    expect_equal "sweeps order=$order" "$(cat "$TMP/body")" '{"error":"order: expected asc or desc"}'
    expect_code "api/section/1/rows?sort=v&order=$order" 400
done
expect_code "api/sweeps?order=asc" 200
expect_code "api/section/1/rows?sort=v&order=desc" 200
expect_code "api/compare?a=1&b=1&section=1&only=DIFF" 400
expect_equal "compare only=DIFF" "$(cat "$TMP/body")" '{"error":"only: expected diff (or nothing: every row)"}'

# --- the row filter on reals: numbers, inf, -inf and NaN -----------------------------
# v: 0.5, 2, 3, inf, -inf, NaN. NaN is unordered (no lt/le/gt/ge), equal
# only to NaN, unequal to every number.
for case in "eq inf 1" "eq Infinity 1" "eq -inf 1" "lt -inf 0" "le -inf 1" "gt inf 0" \
    "ge -inf 5" "le inf 5" "gt 1 3" "lt 1 2" "ge 2 3" "ne 2 5" "eq 2.0 1" "eq 0.5 1" \
    "eq nan 1" "eq NaN 1" "ne NaN 5" "lt NaN 0" "ge nan 0" "gt 1e999 0"; do
    set -- $case
    expect_code "api/section/1/rows?col=v&op=$1&value=$2" 200
    expect_equal "v $1 $2" "$(total)" "$3"
done
for value in abc "2%20" "%202" "0x" "1)%20OR%20(1=1"; do
    expect_code "api/section/1/rows?col=v&op=lt&value=$value" 400
    expect_equal "v lt '$value'" "$(cat "$TMP/body")" \
        '{"error":"value: v is a numeric column; expected a number (inf, -inf and NaN too)"}'
done
expect_code "api/section/1/rows?col=v&op=contains&value=in" 200 # contains: text, as before
expect_equal "v contains 'in'" "$(total)" "0"
# The testkit's constant columns: all 6 rows, or none.
for case in "pos_inf eq inf 6" "pos_inf gt 1e308 6" "neg_inf lt -1e308 6" "neg_inf eq -inf 6" \
    "y lt -inf 0" "y gt 1 6" "not_a_number gt 1 0" "not_a_number lt 1 0" \
    "not_a_number eq NaN 6" "x lt inf 6" "x ge 2 4" "x eq 9007199254740993 0"; do
    set -- $case
    expect_code "api/section/2/rows?col=$1&op=$2&value=$3" 200
    expect_equal "$1 $2 $3" "$(total)" "$4"
done
expect_code "api/section/2/rows?col=x&op=lt&value=inf&sort=x&order=desc&limit=1" 200
expect_equal "a filtered page" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["rows"]), d["rows"][0][1])' "$TMP/body")" "1 3.0"
stop_serve
expect_status 0

# --- --allow-remote: the token on every request, from any address -------------------
start_serve --listen 0.0.0.0:0 --allow-remote
token=$(echo "$URL" | sed -n 's|.*?token=\([0-9a-f]*\)$|\1|p')
port=$(echo "$BASE" | sed 's|.*:\([0-9]*\)/$|\1|')
expect_code api/sweeps 401 -H "Host: 127.0.0.1:$port"
expect_code api/sweeps 401 -H "Host: localhost:$port"
expect_code api/sweeps 200 -H "Host: 0.0.0.0:$port" -H "Authorization: Bearer $token"
expect_code api/sweeps 421 -H "Host: evil.example.com:$port" -H "Authorization: Bearer $token"
stop_serve
expect_status 0

# --- slow clients --------------------------------------------------------------------
# --max-connections 8: one address may hold 2 (a quarter). Slow clients
# send a request line, then a header line each second, and never finish.
# (1) Eight from 127.0.0.2: two are kept, the rest closed at once, and a
#     client from 127.0.0.1 is answered while they trickle.
# (2) Two from each of 127.0.0.3-6 fill all 8: a client waits, and is
#     answered once the head deadline (10 s) has closed them.
start_serve --max-connections 8
python3 - "$BASE" >"$TMP/slow.out" 2>&1 <<'PY' || fail "slow clients: $(cat "$TMP/slow.out")"
import select, socket, sys, threading, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
host = "Host: 127.0.0.1:%d\r\n" % u.port
# Every wait below is on the server's state (a socket closed, an answer
# read), never on the clock; the head deadline itself ends what the server
# would otherwise hold. The only timeout bounds a broken server's test.
GIVE_UP_S = 120

def slow(address):
    s = socket.socket()
    s.bind((address, 0))
    s.connect((u.hostname, u.port))
    s.sendall(b"GET /api/sweeps HTTP/1.1\r\n" + host.encode())
    s.setblocking(False)
    return s

def closed(s):
    """True once the server has closed s (it never answers a head)."""
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True

def trickle(clients, line):
    """One header line to each slow client still open; the open ones."""
    still = []
    for s in clients:
        try:
            s.sendall(line)
        except OSError:
            pass
        if not closed(s):
            still.append(s)
    return still

def answer(result, done):
    c = socket.create_connection((u.hostname, u.port))
    c.sendall(b"GET /api/sweeps HTTP/1.1\r\n" + host.encode() + b"Connection: close\r\n\r\n")
    c.settimeout(GIVE_UP_S)
    try:
        result["answer"] = c.recv(12)
    except socket.timeout:
        result["answer"] = b"(nothing in %d s)" % GIVE_UP_S
    done.set()

def wait_answer(clients):
    """Asks from 127.0.0.1 while clients trickle a header line a second
    (their rhythm, not a wait); returns the answer and which clients the
    server had closed by the time it came."""
    result, done = {}, threading.Event()
    threading.Thread(target=answer, args=(result, done), daemon=True).start()
    n = 0
    while not done.wait(1.0):
        n += 1
        trickle(clients, b"X-Slow-%d: x\r\n" % n)
    result["closed"] = [s for s in clients if closed(s)]
    return result

# (1) one address, eight slow clients: wait until the server has closed all
# it will close at once (readable = closed, as nothing is ever answered).
clients = [slow("127.0.0.2") for _ in range(8)]
open_now = list(clients)
while len(open_now) > 2:
    ready, _, _ = select.select(open_now, [], [], GIVE_UP_S)
    if not ready:
        break
    open_now = [s for s in open_now if s not in ready or not closed(s)]
if len(open_now) != 2:
    print("one address kept %d connections, expected 2" % len(open_now)); sys.exit(1)
r = wait_answer(open_now)
# Answered while the two were still held: not after their deadline.
if r["answer"] != b"HTTP/1.1 200" or r["closed"]:
    print("(1) 127.0.0.1 was not answered while 127.0.0.2 trickled:", r["answer"],
          "%d of its 2 closed first" % len(r["closed"])); sys.exit(1)
for s in clients:
    s.close()
print("(1) 2 of 8 kept from 127.0.0.2; 127.0.0.1 answered while they were held")

# (2) four addresses fill the limit: the waiting client is answered only
# once the head deadline has closed slow clients.
clients = [slow("127.0.0.%d" % (3 + i // 2)) for i in range(8)]  # not (1)'s address
r = wait_answer(clients)
print("(2) answered once %d of 8 slow clients were closed" % len(r["closed"]))
if r["answer"] != b"HTTP/1.1 200":
    print("(2) no answer while slow clients held every connection:", r["answer"]); sys.exit(1)
if not r["closed"]:
    print("(2) answered while every slow client was held: the limit was not full"); sys.exit(1)
PY
cat "$TMP/slow.out"
# The server is still well: a plain request.
expect_code api/sweeps 200
stop_serve
expect_status 0
finish
