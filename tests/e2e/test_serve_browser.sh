# runner serve in a real browser: headless Chromium from Debian, driven by
# playwright-core (tests/browser/; `make test` installs it into
# BUILD/browser) from serve_browser.js while a sweep runs. It opens the
# sweeps page (an XSS name, tag and script path stay text), sorts and filters
# it, watches the running sweep's progress advance without a reload, sorts
# and pages a section, draws plots (the default plot link, dygraphs canvas,
# series toggle; units holding markup stay text in the axis labels; log axes;
# a text parameter as named places on x), brushes parallel coordinates,
# compares two sweeps with known differences (runner diff's numbers), draws
# a stored fit with its band and a stored front over a plot (the legend's
# figures runner fit's), fits an 800 px window, and fails on any console error or CSP violation.
# SERVE_SCREENSHOTS=DIR keeps the screenshots (docs/serve.md's come from it).
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
need_browser_driver

make_serve_sweeps
# Sweep 3: 60 rows, three pages of 25, to page through by key.
paged=$(write_script paged.lua <<'LUA'
sweep("testkit", { x = range(1, 30), rows = 2 }, { print = false })
LUA
)
run "$RUNNER" sweep "$paged" --db "$DB" --quiet --plugin-dir "$(cd "$RUNNER_FIXTURES/good" && pwd)"
expect_status 0

# Sweep 4: columns whose units are markup, for a plot's axis labels
# (dygraphs writes them as HTML: they must arrive as text).
cat >"$TMP/markup.sh" <<'SH'
#!/bin/sh
printf '%s\n' '{"a": 1, "b": 2}' '{"a": 2, "b": 3}'
SH
chmod +x "$TMP/markup.sh"
markup=$(write_script markup.lua <<LUA
command "markup" { argv = { "$TMP/markup.sh" }, columns = {
  { name = "a", type = "real", unit = "<b>x</b>" },
  { name = "b", type = "real", unit = "<style>body{background:red}</style><img src=x>" } } }
sweep("markup", {}, { print = false })
LUA
)
run "$RUNNER" sweep "$markup" --db "$DB" --quiet
expect_status 0
markup_section=$(sql "SELECT id FROM section WHERE sweep_id = 4")

# Sweep 5: a delay law (text) and a size spanning three decades: log axes.
cat >"$TMP/law.sh" <<'SH'
#!/bin/sh
case $1 in uniform) k=1 ;; exponential) k=2 ;; *) k=5 ;; esac
printf '{"wait_s": %s}\n' "$(($2 * $2 * k))"
SH
chmod +x "$TMP/law.sh"
law_command="command \"law\" { argv = { \"$TMP/law.sh\", \"{law}\", \"{n}\" },
  params = { { name = \"law\", type = \"text\" }, { name = \"n\", type = \"integer\" } }, columns = {
  { name = \"wait_s\", type = \"real\", unit = \"s\" } } }"
logs=$(write_script logs.lua <<LUA
$law_command
sweep("law", { law = { "uniform", "pareto" }, n = { 1, 10, 100, 1000 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$logs" --db "$DB" --quiet
expect_status 0
# Sweep 6: only the law varies: a plot with the laws on x.
laws=$(write_script laws.lua <<LUA
$law_command
sweep("law", { law = { "uniform", "exponential", "pareto" }, n = 3 }, { print = false })
LUA
)
run "$RUNNER" sweep "$laws" --db "$DB" --quiet
expect_status 0
# Sweep 7: three varying parameters (12 rows): parallel coordinates.
cat >"$TMP/abc.sh" <<'SH'
#!/bin/sh
printf '{"y": %s}\n' "$(($1 * $2 + $3))"
SH
chmod +x "$TMP/abc.sh"
abc=$(write_script abc.lua <<LUA
command "abc" { argv = { "$TMP/abc.sh", "{a}", "{b}", "{c}" },
  params = { { name = "a", type = "integer" }, { name = "b", type = "integer" }, { name = "c", type = "integer" } },
  columns = {
  { name = "y", type = "integer" } } }
sweep("abc", { a = { 1, 2, 3 }, b = { 1, 2 }, c = { 10, 20 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$abc" --db "$DB" --quiet
expect_status 0
# Sweep 8: bytes and time trading off, with a stored power-law fit of
# time_s against bytes and the two-objective front (min bytes, min time_s):
# the plot of those columns draws both.
cat >"$TMP/trade.sh" <<'SH'
#!/bin/sh
awk -v n="$1" -v r="$2" 'BEGIN { b = 1000 * n + 150 * r
  t = 200 / n * (1 + 0.08 * ((n * 7 + r * 3) % 5 - 2)) + 0.3 * r
  printf "{\"bytes\": %d, \"time_s\": %.6f}\n", b, t }'
SH
chmod +x "$TMP/trade.sh"
trade=$(write_script trade.lua <<LUA
command "trade" { argv = { "$TMP/trade.sh", "{n}", "{r}" },
  params = { { name = "n", type = "integer" }, { name = "r", type = "integer" } }, columns = {
  { name = "bytes", type = "integer", unit = "bytes" }, { name = "time_s", type = "real", unit = "s" } } }
sweep("trade", { n = range(1, 12), r = { 1, 2, 3 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$trade" --db "$DB" --quiet
expect_status 0
run "$RUNNER" fit 8 --db "$DB" --x bytes --y time_s --model power --format json
expect_status 0
cp "$TMP/out" "$TMP/fit.json"
run "$RUNNER" pareto 8 --db "$DB" --min bytes --min time_s --format json
expect_status 0
trade_section=$(sql "SELECT id FROM section WHERE sweep_id = 8")
front_rows=$(sql "SELECT group_concat(t.bytes || ':' || t.time_s, ' ') FROM (SELECT s.bytes, s.time_s FROM pareto_member m JOIN trade s ON s.row_id = m.row_id ORDER BY s.bytes) t")
[ -n "$front_rows" ] || fail "no front stored"

# What the compare page must agree with.
"$RUNNER" diff 1 2 --db "$DB" --format json >"$TMP/diff.json"

# A sweep that runs while the browser watches: thousands of points of about
# half a second, one at a time; stopped (Ctrl-C) once the checks are done.
start_slow_sweep slow 9

start_serve
SERVE_PAGED_SWEEP=3 SERVE_MARKUP_SECTION=$markup_section SERVE_DIFF_JSON=$TMP/diff.json \
SERVE_LOG_SWEEP=5 SERVE_CATEGORY_SWEEP=6 SERVE_PARALLEL_SWEEP=7 \
SERVE_ANSWERS_SWEEP=8 SERVE_ANSWERS_SECTION=$trade_section SERVE_FIT_JSON=$TMP/fit.json \
SERVE_FRONT_ROWS="$front_rows" \
    node tests/browser/serve_browser.js "$BASE" 1 2 9 ${SERVE_SCREENSHOTS:-} >"$TMP/browser.out" 2>&1
browser_status=$?
cat "$TMP/browser.out"
[ "$browser_status" = 0 ] || fail "the browser checks failed (status $browser_status)"
alive $sweep_pid || fail "the sweep ended before the browser saw it progress; make it longer"
kill -INT $sweep_pid
wait_exit $sweep_pid
stop_serve
expect_status 0
finish
