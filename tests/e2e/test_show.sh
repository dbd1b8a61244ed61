# runner show's aligned table by the rule report, plot and serve follow
# (docs/cli.md, docs/plots.md "What a section shows first"): what varies
# first, parameters then results (the plugin's own first), everything the
# same on every row on one line above; fitted to a terminal (a pseudo
# terminal from script(1), its width from COLUMNS), every column to a pipe
# or with --wide.
. tests/e2e/lib.sh
skip_without script "script (util-linux) gives show a terminal"

run "$RUNNER" sweep scripts/jitter.lua --set jitters=2,0.5 --db "$DB" --quiet
expect_status 0

# To a pipe: every column, the constants folded.
run "$RUNNER" show 1 --db "$DB"
expect_status 0
expect_stdout_contains "  base = 30 s · trials = 0 rounds · model = walkthrough · scaling = strong"
expect_stdout_contains "comm_s = 0 s · comm_share = 0 fraction"   # results too
head -n 3 "$TMP/out" | tail -n 1 | grep -q "^jitter \[s\]  workers  speedup  wait_s \[s\]  round_s \[s\]  efficiency \[fraction\]" ||
    fail "the header does not lead with jitter, workers, speedup: $(sed -n 3p "$TMP/out")"
grep -q "karp_flatt" "$TMP/out" || fail "a pipe lost columns"
grep -q "more columns" "$TMP/out" && fail "a pipe was fitted to a width"
lines=$(wc -l <"$TMP/out")
[ "$lines" = 19 ] || fail "expected title, folded line, header and 16 rows, got $lines lines"

# On a terminal of 60 columns: no line wider, the rest named.
COLUMNS=60 script -qec "$RUNNER show 1 --db $DB" /dev/null | tr -d '\r' >"$TMP/tty"
widest=$(while IFS= read -r line; do printf '%s' "$line" | wc -m; done <"$TMP/tty" | sort -n | tail -n 1)
[ "$widest" -le 60 ] || fail "a line of $widest characters on a 60-column terminal: $(cat "$TMP/tty")"
grep -q "more columns, --wide shows them: " "$TMP/tty" || fail "the terminal table does not say what it left out"
grep -q "^jitter \[s\]  workers  speedup" "$TMP/tty" || fail "the fitted table lost its first columns"
[ "$(grep -c '^ *[0-9]' "$TMP/tty")" = 16 ] || fail "the fitted table does not have 16 rows"

# --wide: the terminal gets what a pipe gets.
COLUMNS=60 script -qec "$RUNNER show 1 --db $DB --wide" /dev/null | tr -d '\r' >"$TMP/wide"
cmp -s "$TMP/wide" "$TMP/out" || fail "show --wide on a terminal differs from show to a pipe"

# One row: nothing to compare, every column shown.
one=$(write_script one.lua <<'LUA'
sweep("speedup", { workers = 8 }, { title = "one row", print = false })
LUA
)
run "$RUNNER" sweep "$one" --db "$DB" --quiet
expect_status 0
run "$RUNNER" show last --db "$DB"
expect_status 0
sed -n 2p "$TMP/out" | grep -q "^  base" && fail "a one-row section was folded"
sed -n 2p "$TMP/out" | grep -q "^base \[s\]  jitter \[s\]  workers" || fail "one row: the parameters do not lead: $(sed -n 2p "$TMP/out")"
finish
