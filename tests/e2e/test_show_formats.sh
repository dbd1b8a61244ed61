# runner show's writers on the walk-through (scripts/seed.lua, every
# section): --format csv is, byte for byte, what the CSV writer has always
# written (integers exactly, reals as "%.17g", NaN and infinities spelled
# out, text quoted when it holds a comma, a quote or a newline), rebuilt
# here from the stored rows in SQL order; --format json holds the same
# values, each real written with the fewest of 15, 16 or 17 digits that
# read back (0.1, not 0.10000000000000001). (The table's bytes: test_output.)
. tests/e2e/lib.sh

run "$RUNNER" sweep scripts/seed.lua --db "$DB" --quiet
expect_status 0
sections=$(sqlite3 "$DB" "SELECT count(*) FROM section WHERE sweep_id = 1")
[ "$sections" -ge 6 ] || fail "seed.lua stored $sections sections"
n=1
while [ "$n" -le "$sections" ]; do
    "$RUNNER" show 1 --db "$DB" --section "$n" --format csv >"$TMP/s$n.csv" 2>"$TMP/err" ||
        fail "show --section $n --format csv: $(cat "$TMP/err")"
    "$RUNNER" show 1 --db "$DB" --section "$n" --format json >"$TMP/s$n.json" 2>"$TMP/err" ||
        fail "show --section $n --format json: $(cat "$TMP/err")"
    n=$((n + 1))
done
python3 - "$DB" "$TMP" "$sections" <<'PY' || fail "the writers' bytes (above)"
import json, math, re, sqlite3, sys
db, tmp, sections = sys.argv[1], sys.argv[2], int(sys.argv[3])
con = sqlite3.connect(db)
plugins = [r[0] for r in con.execute(
    "SELECT plugin FROM section WHERE sweep_id = 1 ORDER BY ordinal")]
ids = [r[0] for r in con.execute("SELECT id FROM section WHERE sweep_id = 1 ORDER BY ordinal")]
bad = 0

def cell(v, kind):
    if kind == "boolean" and v is not None:
        return "true" if v else "false"
    if v is None:
        return ""
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return ("-inf" if v < 0 else "inf") if math.isinf(v) else "%.17g" % v
    if any(c in v for c in ',"\n\r'):
        return '"' + v.replace('"', '""') + '"'
    return v

for n in range(1, sections + 1):
    text = open(f"{tmp}/s{n}.csv", encoding="utf-8", newline="").read()
    header = text.split("\n", 1)[0].split(",")
    sql = ("SELECT " + ", ".join('"%s"' % h for h in header) + f' FROM "{plugins[n - 1]}"'
           f" WHERE section_id = {ids[n - 1]} ORDER BY point_id, row_id")
    rows = con.execute(sql).fetchall()
    raw = open(f"{tmp}/s{n}.json", encoding="utf-8").read()
    doc = json.loads(raw)[0]
    kinds = [c["type"] for c in doc["columns"]]
    want = ",".join(header) + "\n" + "".join(
        ",".join(cell(v, k) for v, k in zip(r, kinds)) + "\n" for r in rows)
    if text != want:
        bad += 1
        print(f"section {n}: CSV differs from the stored rows as %.17g", file=sys.stderr)
    if len(doc["rows"]) != len(rows):
        bad += 1
        print(f"section {n}: JSON has {len(doc['rows'])} rows, not {len(rows)}", file=sys.stderr)
    for jr, r in zip(doc["rows"], rows):
        for j, v, k in zip(jr, r, kinds):
            if k == "boolean" and v is not None:
                same = j is bool(v)
            elif isinstance(v, float) and math.isinf(v):
                same = j == ("inf" if v > 0 else "-inf")
            elif v == "NaN":
                same = j == "NaN"
            else:
                same = j == v and type(j) is type(v)
            if not same:
                bad += 1
                print(f"section {n}: JSON {j!r} for stored {v!r}", file=sys.stderr)
    # Every real's digits are Python's shortest (repr) where the writer
    # decides them (1e-11 <= |x| < 1e15).
    for token in re.findall(r"(?m)^ +(-?[0-9][0-9.e+-]*),?$", raw):
        x = float(token)
        if "." not in token and "e" not in token or not (1e-11 <= abs(x) < 1e15):
            continue
        digits = lambda s: re.sub(r"^0+", "", s.split("e")[0].replace("-", "").replace(".", "")).rstrip("0")
        if digits(token) != digits(repr(x)):
            bad += 1
            print(f"section {n}: JSON real {token} is not the shortest ({repr(x)})", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
exit $failures
