# The dashboard's answers first (issue 38), in headless Chromium
# (serve_findings_browser.js): the sweep page leads with the lines its
# script printed and its stored fit (named, with intervals and a small plot
# on log x, each curve in its data line's colour, dashed), the fit's plot
# view draws the same axes and colours, the compare page orders workers as
# numbers with the constants folded, and its stat mode shows runner diff
# --stat's verdicts and intervals; no console error anywhere.
# SERVE_SCREENSHOTS=DIR keeps the screenshots (docs/serve.md's come from it).
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
need_browser_driver

run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --name first
expect_status 0
sql "SELECT line FROM sweep_printed WHERE sweep_id = 1 ORDER BY position" >"$TMP/printed"
[ "$(wc -l <"$TMP/printed")" = 4 ] || fail "sweep 1 kept $(wc -l <"$TMP/printed") printed lines, not 4"
run "$RUNNER" fit first --db "$DB" --x workers --y speedup --model usl --by jitter
expect_status 0
run "$RUNNER" pareto first --db "$DB" --min round_s --max speedup
expect_status 0
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --name second --set jitters=2,0.25
expect_status 0

# Repeats for diff --stat: a command printing seeded noisy times, then
# the same 50 % slower.
noisy_sweeps
run "$RUNNER" diff 3 4 --stat --test welch --db "$DB" --format json
expect_status 1
cp "$TMP/out" "$TMP/stat.json"

start_serve
SERVE_PRINTED=$TMP/printed SERVE_STAT_JSON=$TMP/stat.json \
    node tests/browser/serve_findings_browser.js "$BASE" 1 2 3 4 ${SERVE_SCREENSHOTS:-} >"$TMP/browser.out" 2>&1
browser_status=$?
cat "$TMP/browser.out"
[ "$browser_status" = 0 ] || fail "the browser checks failed (status $browser_status)"
stop_serve
expect_status 0
finish
