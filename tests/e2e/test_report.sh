# runner report through the real binary: one self-contained HTML page with
# the sweep's provenance, every section's table (units in the headers, text
# escaped, long tables bounded), failed points and inline SVG plots; then the
# page rendered by headless Chromium: not blank, and no console messages (the
# page's Content-Security-Policy turns any external fetch or script into one).
# Without Chromium the checks before it run, then the test skips (77; a
# failure under make test: lib.sh skip_without).
. tests/e2e/lib.sh

RUNNER_ABS=$(cd "$(dirname "$RUNNER")" && pwd)/$(basename "$RUNNER")
FIXTURES_ABS=$(cd "$RUNNER_FIXTURES" && pwd)
HTML="$TMP/report.html"

# expect_html TEXT: the page contains TEXT (fixed string).
expect_html() {
    grep -qF -- "$1" "$HTML" || fail "report lacks: $1"
}
expect_no_html() {
    if grep -qF -- "$1" "$HTML"; then fail "report should not contain: $1"; fi
}

# Sweep 1: scripts/jitter.lua (24 rows, NaN in karp_flatt at one worker).
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
# Sweep 2: testkit, with markup in a title and in text cells, a failed point,
# and a section longer than the page shows (250 rows).
script=$(write_script escaping.lua <<'EOF'
sweep("testkit", { x = { 1, 2 }, fail = { false, true }, label = { "a", "b" } },
      { title = [[<script>alert("x")</script> & 'quotes']], print = false })
sweep("testkit", { x = range(1, 250) }, { title = "long", print = false })
EOF
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --plugin-dir "$FIXTURES_ABS/good"
expect_status 1

run "$RUNNER" report 1 --db "$DB" -o "$HTML"
expect_status 0
if command -v gnuplot >/dev/null 2>&1; then
    expect_stderr ""
fi
# Provenance, each value as stored.
expect_html "<title>runner report: sweep 1 (scripts/jitter.lua)</title>"
expect_html "$(sql "SELECT script_sha256 FROM sweep WHERE id = 1")"
expect_html "$(sql "SELECT runner_version FROM sweep WHERE id = 1")"
expect_html "$(sql "SELECT host FROM sweep WHERE id = 1")"
expect_html "$(sql "SELECT started_at FROM sweep WHERE id = 1")"
expect_html "$(sql "SELECT ended_at FROM sweep WHERE id = 1")"
expect_html "$(sql "SELECT so_sha256 FROM sweep_plugin WHERE sweep_id = 1")"
expect_html "$(sql "SELECT so_path FROM sweep_plugin WHERE sweep_id = 1")"
expect_html "<th>seed</th><td class=\"mono\">0</td>"
expect_html "<span class=\"status status-ok\">ok</span>"
expect_html '{&quot;base&quot;:30,&quot;jitters&quot;:[2.0,1.0,0.5]}'
expect_html "$(sql "SELECT command_line FROM sweep WHERE id = 1")"
git_commit=$(sql "SELECT coalesce(git_commit, '(none: the script is not in a git work tree)') FROM sweep WHERE id = 1")
expect_html "$git_commit"
expect_html "local report = require &quot;report&quot;"   # the script text, escaped
# The section: title, units in the headers, every row, NaN spelled out.
expect_html "<h2>Speedup vs workers, per jitter (exact expected waits)</h2>"
expect_html "wait_s<br><span class=\"unit\">[s]</span></th>"
expect_html ">workers</th>"   # the unit is the name: not repeated
expect_html "<h3>Rows (24)</h3>"
rows=$(grep -c "^<tr><td class=\"n\">" "$HTML")
[ "$rows" = 24 ] || fail "expected 24 table rows, found $rows"
# What is the same on every row is one line above the table, not columns
# (docs/plots.md, "What a section shows first"); the varying parameters
# lead, then the results, the plugin's own (speedup) first.
expect_html "<p class=\"constants\">Same on every row: base = 30 s · trials = 0 rounds · model = walkthrough"
expect_no_html ">base<br>"
grep -q '<tr><th[^>]*>jitter<br><span class="unit">\[s\]</span></th><th[^>]*>workers</th><th[^>]*>speedup</th>' "$HTML" ||
    fail "the rows table does not start with jitter, workers, speedup"
expect_html "<td class=\"n\">NaN</td>"
expect_html "<td class=\"n\">15.0874</td>"   # speedup at jitter 2, 512 workers
# Headline figures and the default plot (x workers, y speedup, by jitter, log x).
expect_html "<h3>Headline figures</h3>"
expect_html "<td>jitter = 0.5 s, workers = 512</td>"
if command -v gnuplot >/dev/null 2>&1; then
    expect_html "runner plot 1 --section 1 --x workers --y speedup --by jitter --logx -o plot.svg"
    expect_html "<text>jitter = 0.5 s</text>"
    svgs=$(grep -c "<svg" "$HTML")
    [ "$svgs" = 1 ] || fail "expected 1 inline SVG, found $svgs"
fi
# Self-contained: no external references, no scripts.
expect_no_html "<script"
expect_no_html "src=\"http"
expect_no_html "href=\"http"
expect_no_html "<?xml"
expect_html "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""

# Escaping, failed points, bounded tables.
run "$RUNNER" report last --db "$DB" -o "$HTML"
expect_status 0
expect_html "<h2>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</h2>"
expect_no_html "<script>alert"
expect_html "<h3>Failed points (4)</h3>"
expect_html "asked to fail at x = 1"
expect_html "<span class=\"status status-failed\">failed</span>"
expect_html "<h3>Rows (250)</h3>"
expect_html "Showing the first 200 of 250 rows; 50 rows are left out."
long_rows=$(sed -n '/<h2>long<\/h2>/,/<\/section>/p' "$HTML" | grep -c '^<tr><td class="n">')
[ "$long_rows" = 200 ] || fail "the long section shows $long_rows rows, expected 200"

# Errors.
run "$RUNNER" report 1 --db "$DB"
expect_status 2
expect_stderr "runner: report needs -o FILE.html; see 'runner --help'"
run "$RUNNER" report 7 --db "$DB" -o "$TMP/x.html"
expect_status 2
expect_stderr "runner: $DB: no sweep 7 with stored sections; 'runner sweeps' lists them"
run "$RUNNER" report 1 --db "$DB" -o "$TMP/no/such/dir/x.html"
expect_status 2
expect_stderr "runner: $TMP/no/such/dir/x.html: cannot write: No such file or directory"
# Without gnuplot: the page still comes, without plots, and stderr says why.
run env PATH=/nonexistent "$RUNNER_ABS" report 1 --db "$DB" -o "$TMP/noplots.html"
expect_status 0
expect_stderr "runner: gnuplot not found; install it with: sudo apt-get install gnuplot-nox; $TMP/noplots.html has no plots"
grep -qF "No plot: gnuplot is not installed" "$TMP/noplots.html" || fail "noplots.html does not say why"

skip_without gnuplot "gnuplot not installed (sudo apt-get install gnuplot-nox); the plots were not checked"

# ---- headless Chromium ----
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip_missing chromium "chromium not installed; the page was not rendered"
# render PAGE NAME: screenshot and console log of file://PAGE in $TMP/NAME.*
render() {
    profile=$(mktemp -d "$TMP/chromium.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0 \
        --screenshot="$TMP/$2.png" --window-size=1200,2000 "file://$1" \
        >"$TMP/$2.out" 2>"$TMP/$2.log"
    render_status=$?
}
# The checks must be able to fail: a blank page and a page whose script
# fails and which fetches from the network under the same policy.
echo "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>blank</title></head><body></body></html>" >"$TMP/blank.html"
render "$TMP/blank.html" blank
python3 tests/e2e/render_check.py "$TMP/blank.png" >/dev/null
[ $? = 1 ] || fail "render_check does not notice a blank page"
cat >"$TMP/bad.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>bad</title></head><body><p>fetches</p><img src="https://example.invalid/x.png"></body></html>
EOF
render "$TMP/bad.html" bad
grep -q ":CONSOLE" "$TMP/bad.log" || fail "a blocked fetch leaves no console message; the check below proves nothing"

run "$RUNNER" report 1 --db "$DB" -o "$HTML"
render "$HTML" report
[ "$render_status" = 0 ] || fail "chromium exited with $render_status: $(tail -3 "$TMP/report.log")"
if grep ":CONSOLE" "$TMP/report.log" >&2; then
    fail "the report logs console messages (above)"
fi
python3 tests/e2e/render_check.py "$TMP/report.png" || fail "the report renders blank"
# The DOM Chromium built holds the provenance and the plot.
profile=$(mktemp -d "$TMP/chromium.XXXXXX")
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --dump-dom "file://$HTML" >"$TMP/dom.html" 2>/dev/null
grep -qF "<h2>Provenance</h2>" "$TMP/dom.html" || fail "the rendered DOM lacks the provenance"
grep -qF "<text>jitter = 2 s</text>" "$TMP/dom.html" || fail "the rendered DOM lacks the plot's legend"
finish
