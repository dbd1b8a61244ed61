# The dashboard's comparison matches rows as `runner diff` does (one
# comparison, render/diff.c): on a real sweep pair whose grids overlap in
# two points, the page's figures are runner diff's. Before, serve matched on
# its own and counted every row of the full join as matched and every
# unmatched row as differing ("32 rows matched: 24 differ" where 8 rows
# matched and none differed).
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the server"

FIXTURES_ABS=$(cd "$RUNNER_FIXTURES" && pwd)
# x = 4 and 5 in both (the same seed: equal outputs), 3 points only in each;
# 4 rows per point.
echo 'sweep("testkit", { x = { 1, 2, 3, 4, 5 }, rows = 4 }, { print = false })' >"$TMP/a.lua"
echo 'sweep("testkit", { x = { 4, 5, 6, 7, 8 }, rows = 4 }, { print = false })' >"$TMP/b.lua"
for script in a b; do
    run "$RUNNER" sweep "$TMP/$script.lua" --db "$DB" --quiet --seed 1 --plugin-dir "$FIXTURES_ABS/good"
    expect_status 0
done

# runner diff: 2 points in both, 3 only in each, 8 rows compared per column,
# none changed.
run "$RUNNER" diff 1 2 --db "$DB" --format csv
expect_status 1
diff_figures=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[0]["points_in_both"], rows[0]["only_in_a"], rows[0]["only_in_b"],
      sorted({r["rows"] for r in rows}), sum(int(r["changed"]) for r in rows))' "$TMP/out")
expect_equal "runner diff's figures" "$diff_figures" "2 3 3 ['8'] 0"

start_serve
expect_code "api/compare?a=1&b=2&section=1" 200
page_figures=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); c = d["counts"]
print(c["rows"], c["differing"], c["only_a"], c["only_b"], d["total"], len(d["rows"]),
      sum(r["in_a"] and r["in_b"] for r in d["rows"]), sum(r["differs"] for r in d["rows"]))' "$TMP/body")
# 8 rows matched (runner diff's rows), 0 differ (its changed), 12 rows only
# in each (its 3 unmatched points of 4 rows); 32 rows listed.
expect_equal "the page's figures" "$page_figures" "8 0 12 12 32 32 8 24"
# Only differing rows: the unmatched ones alone.
expect_code "api/compare?a=1&b=2&only=diff&limit=500" 200
expect_equal "only differing rows" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["total"], len(d["rows"]), any(r["in_a"] and r["in_b"] for r in d["rows"]))' "$TMP/body")" "24 24 False"
# A page in the middle: offset and limit over the listed rows, sorted by
# their parameters' values (numbers as numbers).
expect_code "api/compare?a=1&b=2&offset=8&limit=8" 200
expect_equal "a page of the comparison" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["total"], [r["params"][0] for r in d["rows"]])' "$TMP/body")" "32 [3.0, 3.0, 3.0, 3.0, 4.0, 4.0, 4.0, 4.0]"
stop_serve
expect_status 0
finish
