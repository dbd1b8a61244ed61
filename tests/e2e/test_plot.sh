# runner plot and the Lua plot() through the real binary and real gnuplot:
# SVG (well-formed XML with axis labels, units and legend) and PNG (magic
# bytes), the section picked by its columns, and every error's exact message.
# Without gnuplot only the checks that need none run, then the test skips (77;
# a failure under make test: lib.sh skip_without).
. tests/e2e/lib.sh

REPO=$(pwd)
RUNNER_ABS=$(cd "$(dirname "$RUNNER")" && pwd)/$(basename "$RUNNER")
FIXTURES_ABS=$(cd "$RUNNER_FIXTURES" && pwd)
NO_GNUPLOT_PATH=/nonexistent  # a PATH on which no gnuplot can be found
GNUPLOT_MISSING="runner: gnuplot not found; install it with: sudo apt-get install gnuplot-nox"

# run_in DIR CMD...: run, from another working directory (Lua plot paths are
# relative to it).
run_in() {
    dir=$1
    shift
    (cd "$dir" && "$@") >"$TMP/out" 2>"$TMP/err"
    status=$?
}

# Sweep 1: scripts/jitter.lua, speedup for 3 jitters x 8 worker counts.
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
# Sweep 2: two testkit sections, the second with a failed point.
script=$(write_script grid.lua <<'EOF'
sweep("testkit", { x = { 1, 2, 3 }, rows = 2, label = { "a", "b" } }, { title = "testkit grid", print = false })
sweep("testkit", { x = { 1, 2 }, fail = { false, true } }, { title = "second section", print = false })
EOF
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --plugin-dir "$FIXTURES_ABS/good"
expect_status 1

# ---- usage errors: exact messages, before any database or gnuplot ----
run "$RUNNER" plot 1 --x workers --y speedup --db "$DB" -o "$TMP/speedup.jpg"
expect_status 2
expect_stderr "runner: plot: -o $TMP/speedup.jpg: expected a file name ending in .svg or .png; see 'runner --help'"
run "$RUNNER" plot 1 --x workers --y speedup --db "$DB"
expect_status 2
expect_stderr "runner: plot needs -o FILE.svg or -o FILE.png; see 'runner --help'"
run "$RUNNER" plot --x workers --y speedup --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: plot needs a SWEEP: an id, last, a name, a script or tag:T (see 'runner sweeps'); see 'runner --help'"
run "$RUNNER" plot 1 --x workers --y speedup --colour red --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: plot: unknown option '--colour'; see 'runner --help'"
run "$RUNNER" plot 1 --x workers --y speedup --logx=yes --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: plot: option '--logx' takes no value; see 'runner --help'"
run "$RUNNER" plot 1 --x workers --y speedup --section 0 --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: plot: --section 0: expected a section number (1, 2, ...); see 'runner --help'"
run "$RUNNER" plot one~two --x workers --y speedup --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: plot: 'one~two' is not a sweep selector: give an id, last, last~N, a name, a script (FILE.lua or a path), tag:T or plugin:P (docs/cli.md, \"Selecting sweeps\"); see 'runner --help'"

# ---- errors from the stored sweep ----
run "$RUNNER" plot 9 --x workers --y speedup --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: $DB: no sweep 9 with stored sections; 'runner sweeps' lists them"
run "$RUNNER" plot 1 --x workers --y speedup --db "$TMP/none.db" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: $TMP/none.db: no such database (run 'runner sweep' first, or pass --db)"
# An unknown column: named, with a suggestion and every column of the sweep,
# in the order runner show prints them.
speedup_columns=$(sql "SELECT group_concat(name, ', ') FROM (SELECT name FROM plugin_column WHERE plugin = 'speedup' ORDER BY role <> 'param', position, name)")
run "$RUNNER" plot 1 --x workers --y speedupp --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: sweep 1 has no column 'speedupp' (did you mean 'speedup'?); its columns: $speedup_columns"
testkit_columns=$(sql "SELECT group_concat(name, ', ') FROM (SELECT name FROM plugin_column WHERE plugin = 'testkit' ORDER BY role <> 'param', position, name)")
run "$RUNNER" plot 2 --x x --y y --by colour --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: sweep 2 has no column 'colour'; its columns: $testkit_columns"
run "$RUNNER" plot 2 --x tag --y y --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: sweep 2, section 1 (testkit grid): column 'tag' is text; x and y need numbers (a text column can be the 'by' column)"
run "$RUNNER" plot 2 --x x --y y --section 3 --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: plot: sweep 2 has 2 sections; --section 3 is out of range"
run "$RUNNER" plot 2 --x x --y speedup --section 1 --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "runner: sweep 2, section 1 (testkit grid): no column 'speedup'; its columns: $testkit_columns"
[ ! -e "$TMP/a.svg" ] || fail "a failed plot left $TMP/a.svg behind"

# gnuplot missing: the exact message and the install command, exit 2.
run env PATH=$NO_GNUPLOT_PATH "$RUNNER_ABS" plot 1 --x workers --y speedup --db "$DB" -o "$TMP/a.svg"
expect_status 2
expect_stderr "$GNUPLOT_MISSING"
[ ! -e "$TMP/a.svg" ] || fail "plot without gnuplot wrote $TMP/a.svg"

# Without --x and --y: the section's default plot (docs/plots.md), x the
# varying parameter with the most values, y the result named after the
# plugin (else the first varying result), by the other varying parameter.
if command -v gnuplot >/dev/null 2>&1; then
    run "$RUNNER" plot 1 --db "$DB" -o "$TMP/default.svg"
    expect_status 0
    for label in "<text>workers</text>" "<text>speedup</text>" "<text>jitter = 0.5 s</text>"; do
        grep -qF "$label" "$TMP/default.svg" || fail "the default plot lacks $label"
    done
    # One axis given: the other from the rule.
    run "$RUNNER" plot 1 --x jitter --db "$DB" -o "$TMP/jitter.svg"
    expect_status 0
    grep -qF "<text>jitter [s]</text>" "$TMP/jitter.svg" || fail "--x jitter is not the x axis"
    grep -qF "<text>speedup</text>" "$TMP/jitter.svg" || fail "the default y is not speedup"
    # Nothing numeric varies: one line saying why, and no file.
    labels=$(write_script labels.lua <<'EOF'
sweep("testkit", { label = { "a", "b" } }, { title = "labels", print = false })
EOF
)
    run "$RUNNER" sweep "$labels" --db "$TMP/labels.db" --quiet --plugin-dir "$FIXTURES_ABS/good"
    expect_status 0
    run "$RUNNER" plot last --db "$TMP/labels.db" -o "$TMP/none.svg"
    expect_status 2
    expect_stderr "runner: plot: sweep 1, section 1 (labels): no numeric parameter varies (label: not numbers); nothing to draw by default: choose --x and --y"
    [ ! -e "$TMP/none.svg" ] || fail "a plot with nothing to draw wrote $TMP/none.svg"
fi

# Lua: bad output paths are script errors (exit 2) naming the script line.
for bad in ../up.svg /tmp/abs.svg plots//x.svg ./x.svg plots/x.jpg plots/; do
    script=$(write_script badpath.lua <<EOF
local rows = sweep("testkit", { x = { 1, 2 } }, { print = false })
plot(rows, { x = "x", y = "y", output = "$bad" })
EOF
)
    run "$RUNNER" sweep "$script" --db "$TMP/lua.db" --quiet --plugin-dir "$FIXTURES_ABS/good"
    expect_status 2
    case $bad in
        ../*|*//*|./*) why="must not contain empty, '.' or '..' components" ;;
        /*) why="must be a relative path under the current directory" ;;
        *) why="must end in .svg or .png" ;;
    esac
    expect_stderr_contains "runner: $script:2: plot: output '$bad' $why"
done
script=$(write_script badcol.lua <<'EOF'
local rows = sweep("testkit", { x = { 1, 2 } }, { print = false })
plot(rows, { x = "x", y = "yy", output = "y.svg" })
EOF
)
run "$RUNNER" sweep "$script" --db "$TMP/lua.db" --quiet --plugin-dir "$FIXTURES_ABS/good"
expect_status 2
expect_stderr_contains "runner: $script:2: plot: rows[1] has no field 'yy'; its fields: "
script=$(write_script badopt.lua <<'EOF'
local rows = sweep("testkit", { x = { 1, 2 } }, { print = false })
plot(rows, { x = "x", y = "y", output = "y.svg", colour = "red" })
EOF
)
run "$RUNNER" sweep "$script" --db "$TMP/lua.db" --quiet --plugin-dir "$FIXTURES_ABS/good"
expect_status 2
expect_stderr_contains "runner: $script:2: plot: unknown option 'colour' (expected x, y, by, logx, logy, title, xlabel, ylabel, units, output)"
# Without gnuplot, plot() returns nil and the message; the script goes on.
script=$(write_script nognuplot.lua <<'EOF'
local rows = sweep("testkit", { x = { 1, 2 } }, { print = false })
local path, err = plot(rows, { x = "x", y = "y", output = "y.svg" })
printf("%s|%s\n", tostring(path), err)
EOF
)
run_in "$TMP" env PATH=$NO_GNUPLOT_PATH "$RUNNER_ABS" sweep "$script" --db "$TMP/lua.db" --quiet --plugin-dir "$FIXTURES_ABS/good"
expect_status 0
expect_stdout_contains "nil|plot: gnuplot not found; install it with: sudo apt-get install gnuplot-nox"

skip_without gnuplot "gnuplot not installed (sudo apt-get install gnuplot-nox); the rest needs it"

# ---- SVG: well-formed XML, axis labels with units, legend, title ----
# is_xml FILE: parses with Python's XML parser; prints the error if any.
is_xml() {
    python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$1" ||
        fail "$1 is not well-formed XML"
}
# svg_has FILE TEXT: the SVG draws TEXT as one text element.
svg_has() {
    grep -qF -- "<text>$2</text>" "$1" || fail "$1 lacks the text '$2'"
}

run "$RUNNER" plot 1 --x workers --y speedup --by jitter --logx --db "$DB" -o "$TMP/speedup.svg"
expect_status 0
expect_stderr ""
is_xml "$TMP/speedup.svg"
head -c 200 "$TMP/speedup.svg" | grep -q "<svg" || fail "speedup.svg does not start an <svg> element"
svg_has "$TMP/speedup.svg" "workers"          # the unit is the name: no [workers]
svg_has "$TMP/speedup.svg" "speedup"
svg_has "$TMP/speedup.svg" "jitter = 0.5 s"   # one legend entry per jitter, in order
svg_has "$TMP/speedup.svg" "jitter = 1 s"
svg_has "$TMP/speedup.svg" "jitter = 2 s"
svg_has "$TMP/speedup.svg" "Speedup vs workers, per jitter (exact expected waits)"
svg_has "$TMP/speedup.svg" "(sweep 1, section 1)"
svg_has "$TMP/speedup.svg" " 512"             # base-2 log axis: a tic per power of two
legend=$(grep -c "<text>jitter = " "$TMP/speedup.svg")
[ "$legend" = 3 ] || fail "expected 3 legend entries, got $legend"

# Units in brackets; 'last' is the newest sweep (2, testkit), so name sweep 1.
run "$RUNNER" plot 1 --x workers --y wait_s --db "$DB" --title 'Waits & <stragglers>' -o "$TMP/wait.svg"
expect_status 0
is_xml "$TMP/wait.svg"
svg_has "$TMP/wait.svg" "wait_s [s]"
svg_has "$TMP/wait.svg" "Waits &amp; &lt;stragglers>"
# The section is found by its columns; text 'by' groups keep their order.
run "$RUNNER" plot last --x x --y y --by label --db "$DB" -o "$TMP/testkit.svg"
expect_status 0
is_xml "$TMP/testkit.svg"
svg_has "$TMP/testkit.svg" "x [s]"
svg_has "$TMP/testkit.svg" "y [s]"
svg_has "$TMP/testkit.svg" "label = a"
svg_has "$TMP/testkit.svg" "label = b"
svg_has "$TMP/testkit.svg" "testkit grid"
svg_has "$TMP/testkit.svg" "(sweep 2, section 1)"
run "$RUNNER" plot 2 --section 2 --x x --y y --db "$DB" -o "$TMP/second.svg"
expect_status 0
svg_has "$TMP/second.svg" "(sweep 2, section 2)"

# NaN and infinities are left out and counted on stderr.
run "$RUNNER" plot 1 --x workers --y karp_flatt --by jitter --db "$DB" -o "$TMP/kf.svg"
expect_status 0
expect_stderr "runner: plot: skipped 3 of 24 rows: 3 where workers or karp_flatt is NaN or infinite"
is_xml "$TMP/kf.svg"
run "$RUNNER" plot 2 --x x --y not_a_number --db "$DB" -o "$TMP/nan.svg"
expect_status 2
expect_stderr "runner: nothing to plot: none of the 12 rows has a finite x and not_a_number"
run "$RUNNER" plot 2 --x x --y y --logy --section 2 --db "$DB" -o "$TMP/ok.svg"
expect_status 0

# ---- PNG: the magic bytes, and big enough to hold a picture ----
run "$RUNNER" plot 1 --x workers --y speedup --by jitter --logx --db "$DB" -o "$TMP/speedup.png"
expect_status 0
magic=$(od -An -tx1 -N8 "$TMP/speedup.png" | tr -d ' \n')
[ "$magic" = "89504e470d0a1a0a" ] || fail "speedup.png magic bytes: $magic"
size=$(wc -c <"$TMP/speedup.png")
[ "$size" -gt 5000 ] || fail "speedup.png is only $size bytes"

# ---- Lua plot(): files under the current directory, directories created ----
script=$(write_script lua_plot.lua <<'EOF'
local rows = sweep("testkit", { x = { 1, 2, 4 }, label = { "a", "b" } }, { print = false })
print(plot(rows, { x = "x", y = "y", by = "label", logx = true, units = { x = "s", y = "s" },
                   title = "y against x", output = "plots/sub/y.svg" }))
print(plot(rows, { x = "x", y = "y", output = "y.png" }))
print(plot(rows, { x = "x", y = "y", output = "escape/y.svg" }))
EOF
)
mkdir -p "$TMP/work" "$TMP/outside"
ln -s "$TMP/outside" "$TMP/work/escape"
run_in "$TMP/work" "$RUNNER_ABS" sweep "$script" --db "$TMP/lua.db" --quiet --plugin-dir "$FIXTURES_ABS/good"
expect_status 0
expect_stdout_contains "plots/sub/y.svg"
expect_stdout_contains "y.png"
expect_stdout_contains "nil	plot: escape: is a symbolic link; plots are written only below the current directory"
is_xml "$TMP/work/plots/sub/y.svg"
svg_has "$TMP/work/plots/sub/y.svg" "x [s]"
svg_has "$TMP/work/plots/sub/y.svg" "label = a"
svg_has "$TMP/work/plots/sub/y.svg" "y against x"
magic=$(od -An -tx1 -N8 "$TMP/work/y.png" | tr -d ' \n')
[ "$magic" = "89504e470d0a1a0a" ] || fail "Lua y.png magic bytes: $magic"
[ ! -e "$TMP/outside/y.svg" ] || fail "plot() wrote through a symbolic link"

# scripts/pictures.lua draws the walk-through's three pictures.
run_in "$TMP/work" "$RUNNER_ABS" sweep "$REPO/scripts/pictures.lua" --db "$TMP/pictures.db" --quiet
expect_status 0
for name in speedup wait_share bytes_per_round; do
    is_xml "$TMP/work/plots/$name.svg"
done
svg_has "$TMP/work/plots/wait_share.svg" "wait_share [fraction]"
svg_has "$TMP/work/plots/bytes_per_round.svg" "scheme = ring"
finish
