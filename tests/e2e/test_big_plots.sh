# Big sweeps stay readable: 10^5 rows give a report of a few hundred kB and
# an SVG under 1 MB, with at most 12 lines and about 6000 points drawn, and
# the picture, the caption and stderr say what was left out (docs/plots.md).
. tests/e2e/lib.sh

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "SKIP: gnuplot not installed (sudo apt-get install gnuplot-nox)"
    exit 77
fi

# size_below FILE BYTES: the file exists and is smaller.
size_below() {
    size=$(wc -c <"$1" 2>/dev/null || echo missing)
    case $size in
    missing) fail "$1 was not written" ;;
    *) [ "$size" -lt "$2" ] || fail "$1 is $size bytes, not under $2" ;;
    esac
}

# 100 jitters x 1000 worker counts: 10^5 rows.
big=$(write_script big.lua <<'LUA'
sweep("speedup", { jitter = linspace(0.1, 4, 100), workers = range(1, 1000) },
      { print = false, keep_rows = false })
LUA
)
run "$RUNNER" sweep "$big" --db "$DB" --quiet
expect_status 0
expect_sql "SELECT count(*) FROM speedup" "100000"

# runner plot: 12 of the 100 lines, each cut to the low and high y of 250
# x-columns (6000 / (2 x 12)), said on stderr and on the picture.
run "$RUNNER" plot 1 --x workers --y speedup --by jitter --db "$DB" -o "$TMP/big.svg"
expect_status 0
expect_stderr "runner: plot: 12 of 100 lines drawn (evenly spaced by jitter); 6000 of 12000 points drawn (lowest and highest y in each of 250 x-columns per line)"
size_below "$TMP/big.svg" 1000000
python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$TMP/big.svg" ||
    fail "big.svg is not well-formed XML"
grep -qF "and 88 more" "$TMP/big.svg" || fail "the legend does not say how many lines are left out"
grep -qF "12 of 100 lines drawn" "$TMP/big.svg" || fail "the picture does not say it was reduced"
grep -qF "jitter = 0.1 s" "$TMP/big.svg" || fail "the first line is not drawn"
grep -qF "jitter = 4 s" "$TMP/big.svg" || fail "the last line is not drawn"
# runner report: the default plot is reduced the same way, the rows table
# is capped, and both say so. Its plot is one line of 10^5 points (x
# repeats: drawn as points), 2 per x-column.
run "$RUNNER" report 1 --db "$DB" -o "$TMP/big.html"
expect_status 0
size_below "$TMP/big.html" 3000000
# (log x and y: workers span 1 to 1000, speedup 1 to 200 (two decades or
# more, docs/plots.md); columns are even on the log scale.)
grep -qF "(log x and y); 789 of 100000 points drawn (lowest and highest y in each of 900 x-columns per line)" \
    "$TMP/big.html" || fail "the caption does not say the plot was reduced"
grep -qF "Showing the first 200 of 100000 rows; 99800 rows are left out. <code>runner show 1 --format csv</code>" \
    "$TMP/big.html" || fail "the rows table does not say how to see the rest"
# The report's size is bounded, not proportional: 10x the rows (10^4 ->
# 10^5) adds less than 100 kB, all of it the plot's points until they reach
# their cap (the rows table and the lines are capped already; the rows
# table leaves out what is the same on every row). At 10^6 rows it is the
# same size as at 10^5 (docs/performance.md).
small=$(write_script small.lua <<'LUA'
sweep("speedup", { jitter = linspace(0.1, 4, 100), workers = range(1, 100) },
      { print = false, keep_rows = false })
LUA
)
run "$RUNNER" sweep "$small" --db "$TMP/small.db" --quiet
expect_status 0
run "$RUNNER" report 1 --db "$TMP/small.db" -o "$TMP/small.html"
expect_status 0
small_size=$(wc -c <"$TMP/small.html")
size_below "$TMP/big.html" $((small_size + 100000))

# Lua plot() shares the drawing: 20 lines of 600 points.
lua_plot=$(write_script lua_plot.lua <<'LUA'
local rows = sweep("speedup", { jitter = linspace(0.5, 2, 20), workers = range(1, 600) },
                   { print = false })
plot(rows, { x = "workers", y = "speedup", by = "jitter", output = "lua.svg" })
LUA
)
(cd "$TMP" && "$RUNNER" sweep "$lua_plot" --db "$DB" --quiet) >"$TMP/out" 2>"$TMP/err"
status=$?
expect_status 0
expect_stderr_contains "lua_plot.lua:3: plot: 12 of 20 lines drawn (evenly spaced by jitter); 6000 of 7200 points drawn (lowest and highest y in each of 250 x-columns per line)"
size_below "$TMP/lua.svg" 1000000

# runner plot and report read only the rows they draw (render/plot_load.c)
# and draw the picture Lua's plot() draws from every row in memory, byte
# for byte: lines by text (in the order they come), NaN rows skipped, log
# axes, x that repeats (points), all cut to x-columns.
same=$(write_script same.lua <<'LUA'
local rows = sweep("speedup", { model = { "walkthrough", "combined" },
                                jitter = linspace(0.5, 2, 7), workers = range(1, 600) },
                   { print = false })
local units = { workers = "workers", wait_s = "s", karp_flatt = "fraction", jitter = "s" }
plot(rows, { x = "workers", y = "speedup", by = "model", title = "same", units = units,
             output = "lua_model.svg" })
plot(rows, { x = "workers", y = "karp_flatt", by = "jitter", logx = true, logy = true,
             title = "same", units = units, output = "lua_karp.svg" })
plot(rows, { x = "workers", y = "wait_s", title = "same", units = units, output = "lua_one.svg" })
LUA
)
(cd "$TMP" && "$RUNNER" sweep "$same" --db "$TMP/same.db" --quiet) >"$TMP/out" 2>"$TMP/err"
status=$?
expect_status 0
expect_stderr_contains "same.lua:7: plot: skipped 14 of 8400 rows: 14 where workers or karp_flatt is NaN or infinite"
for args in "model --x workers --y speedup --by model" \
    "karp --x workers --y karp_flatt --by jitter --logx --logy" "one --x workers --y wait_s"; do
    name=${args%% *}
    # shellcheck disable=SC2086 # the options are words
    run "$RUNNER" plot 1 --db "$TMP/same.db" ${args#* } --title same -o "$TMP/cli_$name.svg"
    expect_status 0
    cmp -s "$TMP/lua_$name.svg" "$TMP/cli_$name.svg" ||
        fail "runner plot ${args#* } draws another picture than plot() of the same rows"
done
finish
