# The dashboard at scale (issue 27): sorted and filtered pages through the
# sort cache (FILE.runner-cache, forced here on small sections with
# RUNNER_SERVE_CACHE_MIN_ROWS=1) equal the scan's (a server with
# RUNNER_SERVE_CACHE_MIN_ROWS=off), byte for byte, on every column; the
# user's file stays the same bytes; the answers come from the cache (a copy
# changed behind the server's back shows); a resumed sweep's new rows are
# seen (the copy is made again); a cache that cannot be written falls back
# to the scan with one line in the log; a big section's plot is the two
# GROUP BY passes' points; a comparison of two sections of many rows gives
# runner diff's figures.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the server"
FIXTURES_ABS=$(cd "$RUNNER_FIXTURES" && pwd)

# Sweeps 1 and 2: 40 points of 50 rows each (2000 rows), other seeds; the
# testkit's columns hold reals, integers, booleans, text, NaN and +-inf.
echo 'sweep("testkit", { x = range(1, 40), rows = 50 }, { print = false })' >"$TMP/grid.lua"
for seed in 1 2; do
    run "$RUNNER" sweep "$TMP/grid.lua" --db "$DB" --quiet --seed $seed --plugin-dir "$FIXTURES_ABS/good"
    expect_status 0
done
chmod 600 "$DB"
before=$(sha256sum "$DB" | cut -d' ' -f1)
CACHE="$DB.runner-cache"

# serve_pair: a server with the cache forced on (BASE_CACHED) and one without
# (BASE_SCAN).
serve_pair() {
    RUNNER_SERVE_CACHE_MIN_ROWS=off start_serve
    BASE_SCAN=$BASE SCAN_PID=$SERVE_PID
    RUNNER_SERVE_CACHE_MIN_ROWS=1 start_serve
    BASE_CACHED=$BASE
}

# same_pages LABEL QUERY...: each query of section 1's rows answers the
# same bytes from both servers (and a 200).
same_pages() {
    label=$1
    shift
    for query in "$@"; do
        cached=$(curl -s -w ' %{http_code}' "${BASE_CACHED}api/section/1/rows?$query")
        scanned=$(curl -s -w ' %{http_code}' "${BASE_SCAN}api/section/1/rows?$query")
        case $cached in *" 200") ;; *) fail "$label: $query: $cached" ;; esac
        [ "$cached" = "$scanned" ] || fail "$label: $query differs from the scan:
cached:  $(echo "$cached" | cut -c1-400)
scanned: $(echo "$scanned" | cut -c1-400)"
    done
}

serve_pair
# Every column sorted both ways, at the start, in the middle and past the end.
columns=$(curl -s "${BASE_SCAN}api/section/1/rows?limit=1" |
          python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["columns"]))')
expect_equal "the columns" "$columns" "x rows fail label y not_a_number pos_inf neg_inf row_index even tag random"
for c in $columns; do
    same_pages "sorted by $c" "sort=$c" "sort=$c&order=desc" "sort=$c&order=desc&offset=975&limit=50" \
        "sort=$c&offset=1990" "sort=$c&offset=5000"
done
# Filters: every operator on numbers, NaN, infinities, text and booleans, in
# key order both ways and sorted by the filtered column.
same_pages "filtered" "col=x&op=ge&value=30" "col=x&op=ge&value=30&offset=100&limit=20" \
    "col=x&op=lt&value=3&order=desc" "col=x&op=eq&value=7" "col=x&op=ne&value=7&offset=1900" \
    "col=x&op=gt&value=39.5" "col=x&op=le&value=0" "col=random&op=lt&value=0.01" \
    "col=random&op=ge&value=0.5&sort=random&order=desc" "col=random&op=contains&value=12" \
    "col=not_a_number&op=eq&value=NaN" "col=not_a_number&op=ne&value=NaN" \
    "col=not_a_number&op=lt&value=NaN" "col=pos_inf&op=ge&value=inf" "col=neg_inf&op=le&value=-inf" \
    "col=tag&op=eq&value=a3" "col=tag&op=contains&value=1&sort=tag&order=desc" \
    "col=label&op=ne&value=a" "col=even&op=eq&value=1" "col=row_index&op=ge&value=45&sort=row_index"
# A filter and a sort on two columns, and keyset pages, are the scan's.
same_pages "not through the cache" "col=x&op=ge&value=30&sort=random" "col=x&op=ge&value=30&after=35:1"
# One copy per column, made on its first sort or filter; the newest 8 kept.
expect_equal "copies in the cache" "$(sqlite3 "$CACHE" "SELECT count(*) FROM entry")" 8
expect_equal "the cache's application id" "$(sqlite3 "$CACHE" "PRAGMA application_id")" 1380864835
expect_equal "the cache's mode, the database's" "$(stat -c %a "$CACHE")" 600

# The answers come from the copy: reversing random's copy reverses the
# server's sort, while the scan's stays.
same_pages "random's copy" "sort=random"
id=$(sqlite3 "$CACHE" "SELECT id FROM entry WHERE column_name = 'random'")
sqlite3 "$CACHE" "UPDATE rows_$id SET v = -v"
tampered=$(curl -s "${BASE_CACHED}api/section/1/rows?sort=random&limit=5")
scanned=$(curl -s "${BASE_SCAN}api/section/1/rows?sort=random&order=desc&limit=5")
expect_equal "the cache answers" "$tampered" "$scanned"
# A damaged cache file is deleted and made again.
rm -f "$CACHE-wal" "$CACHE-shm"
echo "not a database, though runner's name" >"$CACHE"
same_pages "after the cache was damaged" "sort=random" "col=x&op=ge&value=30"
expect_equal "copies made again" "$(sqlite3 "$CACHE" "SELECT count(*) FROM entry")" 2
[ ! -s "$TMP/serve.err" ] || fail "the server logged: $(cat "$TMP/serve.err")"
# A deleted cache is made again.
rm -f "$CACHE" "$CACHE-wal" "$CACHE-shm"
same_pages "after the cache was deleted" "sort=random&order=desc"
stop_serve
expect_status 0
kill -TERM "$SCAN_PID"
wait_exit "$SCAN_PID"
expect_equal "the user's file, byte for byte" "$(sha256sum "$DB" | cut -d' ' -f1)" "$before"

# --- a resumed sweep's new rows are seen --------------------------------------
# An interrupted sweep of the slow fixture, its rows sorted through a copy;
# resumed, it has all 60 points, and the copy is made again. A machine
# loaded enough that the sweep ends before the Ctrl-C reaches it sets the
# case up again (bounded by WAIT_LIMIT_S).
LIVE_DB=$DB
DB="$TMP/live.db"
CACHE="$DB.runner-cache"
echo 'sweep("slow", { x = range(1, 60), sleep_s = 0.05 }, { print = false })' >"$TMP/slow.lua"
tries=0
until [ "$(db_count "$DB" "SELECT count(*) FROM sweep WHERE status = 'interrupted'")" = 1 ]; do
    [ "$tries" -lt "${WAIT_LIMIT_S:-300}" ] || break
    tries=$((tries + 3))
    rm -f "$DB" "$DB-wal" "$DB-shm"
    "$RUNNER" sweep "$TMP/slow.lua" --db "$DB" --quiet --jobs 1 --plugin-dir "$FIXTURES_ABS/slow" \
        >/dev/null 2>&1 &
    sweep_pid=$!
    wait_until "five points of the slow sweep" \
        '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 5 ] || ! alive $sweep_pid'
    kill -INT $sweep_pid
    wait_exit $sweep_pid
done
expect_sql "SELECT status FROM sweep" "interrupted"
stored=$(sql "SELECT count(*) FROM slow")
serve_pair
same_pages "an interrupted sweep" "sort=y&order=desc"
expect_equal "its total" "$(curl -s "${BASE_CACHED}api/section/1/rows?sort=y" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')" "$stored"
first=$(sqlite3 "$CACHE" "SELECT fingerprint FROM entry")
run "$RUNNER" sweep "$TMP/slow.lua" --db "$DB" --resume --quiet --jobs 2 --plugin-dir "$FIXTURES_ABS/slow"
expect_status 0
same_pages "the resumed sweep" "sort=y&order=desc" "col=y&op=ge&value=20"
expect_equal "its total, resumed" "$(curl -s "${BASE_CACHED}api/section/1/rows?sort=y" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')" 60
[ "$(sqlite3 "$CACHE" "SELECT fingerprint FROM entry")" != "$first" ] ||
    fail "the copy was not made again after the sweep resumed"
stop_serve
kill -TERM "$SCAN_PID"
wait_exit "$SCAN_PID"

# --- a cache that cannot be written: the scan, said once ----------------------
# As root no directory is unwritable: then a directory takes the cache's name.
mkdir "$TMP/ro"
cp "$LIVE_DB" "$TMP/ro/results.db"
DB="$TMP/ro/results.db"
CACHE="$DB.runner-cache"
if [ "$(id -u)" = 0 ]; then
    mkdir "$CACHE"
else
    chmod a-w "$DB" "$TMP/ro"
fi
serve_pair
same_pages "no cache" "sort=random" "sort=x&order=desc" "col=x&op=ge&value=30"
stop_serve
expect_status 0
kill -TERM "$SCAN_PID"
wait_exit "$SCAN_PID"
chmod u+w "$TMP/ro" "$DB"
expect_equal "the log" "$(sed 's/(.*: cannot [a-z ]*: .*)/(WHY)/' "$TMP/serve.err")" \
    "runner: serve: no sort cache (WHY); sorts and filters scan the section"
grep -qF "no sort cache ($CACHE: cannot " "$TMP/serve.err" || fail "the log names $CACHE: $(cat "$TMP/serve.err")"

# --- a big section's plot, and a comparison of many rows ----------------------
DB=$LIVE_DB
echo 'sweep("testkit", { x = range(1, 100), rows = 100 }, { print = false })' >"$TMP/big.lua"
for seed in 3 4; do
    run "$RUNNER" sweep "$TMP/big.lua" --db "$DB" --quiet --seed $seed --plugin-dir "$FIXTURES_ABS/good"
    expect_status 0
done
start_serve
# 10^4 points, cut to the lowest and highest y of each of 1000 x-columns per
# line, 12 lines of 100: the points of the two GROUP BY passes (SQL here).
section=$(sql "SELECT id FROM section WHERE sweep_id = 3")
for query in "x=x&y=random&by=row_index" "x=random&y=x" "x=row_index&y=random&by=x"; do
    expect_code "api/section/$section/plot?$query" 200
    python3 - "$DB" "$section" "$query" "$TMP/body" <<'PY' || fail "plot $query"
import json, sqlite3, sys
db, section, query, body = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
args = dict(kv.split("=") for kv in query.split("&"))
x, y, by = args["x"], args["y"], args.get("by")
con = sqlite3.connect(db)
where = (f"FROM testkit WHERE section_id = {section} AND typeof({x}) IN ('integer', 'real')"
         f" AND typeof({y}) IN ('integer', 'real')")
group = f"CAST({by} AS TEXT)" if by else "''"
labels = [r[0] for r in con.execute(
    f"SELECT {group} {where}" + (f" GROUP BY {by} ORDER BY {by}" if by else " LIMIT 1"))]
keep = min(len(labels), 12)
lines = [labels[k * (len(labels) - 1) // (keep - 1) if keep > 1 else 0] for k in range(keep)]
lo, hi = con.execute(f"SELECT min({x}), max({x}) {where}").fetchone()
scale = 1000 / (hi - lo) if hi > lo else 0
want = []
for agg in ("min", "max"):
    for label, px, py in con.execute(
            f"SELECT {group}, {x}, {agg}({y}) {where} GROUP BY 1, CAST(({x} - ?) * ? AS INTEGER)",
            (lo, scale)):
        if label in lines:
            want.append((lines.index(label), float(px), float(py)))
d = json.load(open(body))
got = [(k - 1, row[0], v) for row in d["rows"] for k, v in enumerate(row) if k and v is not None]
assert sorted(got) == sorted(want), (len(got), len(want))
assert d["points_total"] == 10000 and d["points_drawn"] == len(want), d["note"]
PY
done
# Sweeps 3 and 4 (10^4 rows each, other seeds): runner diff's figures.
run "$RUNNER" diff 3 4 --db "$DB" --format json
expect_code "api/compare?a=3&b=4&only=diff&limit=3" 200
python3 - "$TMP/out" "$TMP/body" <<'PY' || fail "the comparison's figures are not runner diff's"
import json, sys
want, page = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = [c["name"] for c in want["columns"]]
rows = [dict(zip(names, r)) for r in want["rows"]]
got = [(c["name"], c["rows"], c["changed"], c["max_abs_change"], c["max_rel_change"])
       for c in page["changes"]]
expected = [(r["column"], r["rows"], r["changed"], r["max_abs_change"], r["max_rel_change"])
            for r in rows]
assert got == expected, (got, expected)
p = page["points"]
assert (p["both"], p["only_a"], p["only_b"]) == (rows[0]["points_in_both"], rows[0]["only_in_a"],
                                                 rows[0]["only_in_b"]), p
assert page["counts"]["rows"] == 10000 and rows[0]["rows"] == 10000, page["counts"]
assert page["counts"]["differing"] > 0 and len(page["rows"]) == 3, page["counts"]
PY
stop_serve
expect_status 0
finish
