# The dashboard's history page (docs/serve.md), in headless Chromium
# (serve_history_browser.js): twelve commits' sweeps with a 10 % step at
# commit 8 (make_history_sweeps); the page, opened from the sweeps list's
# header, shows `runner history`'s verdict line first, the medians with
# their interval band and the change marked at commit 8, and the table;
# a bad column shows the server's one line; no console error.
# SERVE_SCREENSHOTS=DIR keeps the screenshot (docs/images/serve-history.png).
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
need_browser_driver
make_history_sweeps

run "$RUNNER" history --y y --tag step --tolerance 0.03 --db "$DB"
expect_status 1
sentence=$(grep "^y rose .* at $HISTORY_SHORT8 " "$TMP/out")
[ -n "$sentence" ] || fail "runner history names no change at $HISTORY_SHORT8: $(cat "$TMP/out")"

start_serve
HISTORY_SENTENCE=$sentence node tests/browser/serve_history_browser.js "$BASE" "$HISTORY_SHORT8" \
    ${SERVE_SCREENSHOTS:-} >"$TMP/browser.out" 2>&1
browser_status=$?
cat "$TMP/browser.out"
[ "$browser_status" = 0 ] || fail "the browser checks failed (status $browser_status)"
stop_serve
expect_status 0
finish
