# runner serve's live series page (docs/serve.md, series.html) in a real
# browser (headless Chromium through playwright-core, serve_series.js): a
# command prints a loss per step; the page draws it while the sweep runs and
# the rest as it comes, without a reload. The API it reads, checked with
# curl. SERVE_SCREENSHOTS=DIR keeps the screenshots.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
need_browser_driver

# Steps 0-4, then (once the browser has seen them) steps 5-9: the loss
# 1/(step + 1), printed as the program goes.
cat >"$TMP/train.sh" <<'SH'
#!/bin/sh
for step in 0 1 2 3 4 5 6 7 8 9; do
    if [ "$step" = 5 ]; then
        while [ ! -e "$RELEASE" ]; do sleep 0.05; done
    fi
    echo "RUNNER_SERIES {\"step\": $step, \"loss\": $(awk "BEGIN { print 1 / ($step + 1) }")}"
done
echo "done=1"
SH
chmod +x "$TMP/train.sh"
script=$(write_script train.lua <<LUA
command "train" {
  argv = { "$TMP/train.sh" },
  columns = { { name = "done", type = "integer" } },
  output = "keyvalue",
}
sweep("train", {}, { print = false })
LUA
)
export RELEASE="$TMP/release"
"$RUNNER" sweep "$script" --db "$DB" --quiet --sample-interval 0 >"$TMP/sweep.out" 2>"$TMP/sweep.err" &
sweep_pid=$!
wait_until "the first five steps stored" \
    '[ "$(sql "SELECT count(*) FROM series WHERE name = '"'"'loss'"'"'" 2>/dev/null)" = 5 ] || ! alive $sweep_pid'
alive $sweep_pid || fail "the sweep ended before its release: $(cat "$TMP/sweep.err")"

start_serve
expect_code "api/sweep/1/series" 200
expect_equal "series names" "$(cat "$TMP/body")" '{"sweep":1,"names":[{"name":"loss","n_values":5,"n_points":1}]}'
expect_code "api/sweep/1/series?name=loss" 200
expect_equal "the loss so far" "$(cat "$TMP/body")" '{"name":"loss","points":[{"section_id":1,"point":0,"steps":[0.0,1.0,2.0,3.0,4.0],"values":[1.0,0.5,0.33333299999999999,0.25,0.20000000000000001]}]}'
expect_code "api/sweep/1/series?name=nope" 200
expect_equal "an unknown series" "$(cat "$TMP/body")" '{"name":"nope","points":[]}'

node tests/browser/serve_series.js "$BASE" 1 "$RELEASE" ${SERVE_SCREENSHOTS:-} >"$TMP/browser.out" 2>&1
browser_status=$?
cat "$TMP/browser.out"
[ "$browser_status" = 0 ] || fail "the browser checks failed (status $browser_status)"
touch "$RELEASE"
wait_exit $sweep_pid
expect_equal "the sweep's status" "$?" "0"
expect_sql "SELECT count(*) FROM series WHERE name = 'loss'" "10"
stop_serve
expect_status 0
finish
