# runner serve in a real browser: headless Chromium from Debian, driven over
# the DevTools protocol by serve_browser.py while a sweep runs. It opens the
# sweeps page (an XSS name, tag and script path stay text), sorts and filters
# it, watches the running sweep's progress advance without a reload, sorts a
# section, draws a plot (dygraphs canvas, series toggle; units holding markup
# stay text in the axis labels), compares two sweeps
# with known differences, and fails on any console error or CSP violation.
# SERVE_SCREENSHOTS=DIR keeps the screenshots (docs/serve.md's come from it).
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without chromium "chromium not installed; the dashboard was not rendered"
skip_without python3 "python3 drives the browser"

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

# A sweep that runs while the browser watches: thousands of points of about
# half a second, one at a time; stopped (Ctrl-C) once the checks are done.
start_slow_sweep slow 5

start_serve
SERVE_PAGED_SWEEP=3 SERVE_MARKUP_SECTION=$markup_section \
    python3 tests/e2e/serve_browser.py "$BASE" 1 2 5 ${SERVE_SCREENSHOTS:-} >"$TMP/browser.out" 2>&1
browser_status=$?
cat "$TMP/browser.out"
[ "$browser_status" = 0 ] || fail "the browser checks failed (status $browser_status)"
alive $sweep_pid || fail "the sweep ended before the browser saw it progress; make it longer"
kill -INT $sweep_pid
wait $sweep_pid
stop_serve
expect_status 0
finish
