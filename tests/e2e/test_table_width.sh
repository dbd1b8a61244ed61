# Every table runner prints for people follows one rule (table_view.h,
# docs/cli.md "Tables at a terminal"): constants folded onto a line above
# it, what varies first, and at the terminal's width no line wraps: the
# columns that do not fit are named on a "(N more columns, --wide ...)"
# line. Each command runs in an 80-column pseudo-terminal (script(1),
# stty; $COLUMNS unset, so the terminal's own width is read) and no line
# of what it prints may be longer.
. tests/e2e/lib.sh
skip_without script "script(1) gives the commands a terminal"
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

# at80 ARGS...: runner ARGS at an 80-column terminal; its screen in
# $TMP/out (CRs dropped), its exit status in $TMP/status.
at80() {
    (unset COLUMNS; script -qec "stty cols 80 rows 50; $RUNNER $* --db $DB; echo \"status=\$?\"" \
        /dev/null) | tr -d '\r' >"$TMP/out"
    sed -n 's/^status=//p' "$TMP/out" >"$TMP/status"
    sed -i '/^status=/d' "$TMP/out"
}
# fits80 WHAT: no line of $TMP/out is wider than 80 characters (UTF-8
# characters, not bytes: the folded line's separator is one).
fits80() {
    wide=$(python3 -c '
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if len(line) > 80:
        print(len(line), line)
' "$TMP/out")
    [ -z "$wide" ] || fail "$1: lines wider than 80 columns at an 80-column terminal:
$wide"
    [ -s "$TMP/out" ] || fail "$1: printed nothing"
}

run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0

at80 show 1
fits80 show

at80 fit 1 --x workers --y round_s --model walkthrough --by jitter
fits80 fit
# A real column to the digits that tell its values apart: J's interval
# of the third fit (0.5 s) is not rounded into its neighbours' (30.25 s).
grep -q ' t1  *30.25 ' "$TMP/out" || fail "fit: t1 = 30.25 not shown as 30.25: $(cat "$TMP/out")"
expect_stdout_contains "stored as fits 1 to 3: fit_param holds these, fit_residual each row's fitted
  value and residual (docs/analysis.md)"

at80 pareto 1 --max efficiency --max speedup
fits80 pareto
expect_stdout_contains "       0.5        2                 0.9864    1.973"

at80 diff 1 2
fits80 diff
expect_stdout_contains "sweeps 1 and 2 are equal"
# what is the same on every row is folded: the one plugin, its counts
expect_stdout_contains "  plugin = speedup"

# sensitivity: Sobol indices of a Saltelli design (the fixtures' ishigami).
ishigami=$(write_script ishigami.lua <<'LUA'
local design = require "design"
local space = { x1 = design.uniform(-math.pi, math.pi), x2 = design.uniform(-math.pi, math.pi),
                x3 = design.uniform(-math.pi, math.pi) }
sweep "ishigami" { design.saltelli(64, space) }
LUA
)
run "$RUNNER" sweep "$ishigami" --db "$DB" --quiet
expect_status 0
at80 sensitivity 3 --y y --bootstrap 20
fits80 sensitivity
expect_equal "sensitivity: status" "$(cat "$TMP/status")" 0

# diff --stat: a command's repeats (ten seeded times a point), 14 columns.
cat >"$TMP/noisy.awk" <<'AWK'
BEGIN { srand(seed % 2147483647); for (i = 0; i < 10; i++) printf "time_s=%.9f\n", 1 + 0.05 * rand() }
AWK
noisy=$(write_script noisy.lua <<LUA
command { name = "noisy", argv = { "awk", "-v", "seed={seed}", "-f", "$TMP/noisy.awk" },
  params = { size = { type = "integer", default = 1 } },
  columns = { { name = "time_s", type = "real", unit = "s" } }, output = "keyvalue" }
sweep("noisy", { size = { 1, 2, 3 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed 1
expect_status 0
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet --seed 2
expect_status 0
at80 diff 4 5 --stat --tolerance 0.5
fits80 "diff --stat"
# MWU, the default, leaves the ratio without an interval: the NaN bounds fold
# into the constants line and every column fits.
expect_stdout_contains "p_value"
expect_stdout_contains "  plugin = noisy"
# --wide: every column, wider than the terminal (a person asked for it)
at80 diff 4 5 --stat --tolerance 0.5 --wide
grep -q 'ratio_high' "$TMP/out" || fail "diff --stat --wide: no ratio_high column: $(cat "$TMP/out")"
# Through a pipe nothing is left out: a script reads every column.
run "$RUNNER" diff 4 5 --stat --tolerance 0.5 --db "$DB"
grep -q 'p_value' "$TMP/out" || fail "diff --stat to a pipe: no p_value column: $(cat "$TMP/out")"
# runner answers: sweep 1's fits (one a --by group), front and the
# comparisons of sweeps 4 and 5, whose questions are the longest cells.
at80 answers 1
fits80 answers
expect_stdout_contains "walkthrough: round_s on workers, jitter = 0.5"
expect_stdout_contains "front: max efficiency, max speedup"
at80 answers 4
fits80 "answers of a comparison"
expect_stdout_contains "sweep 4 against 5: test mwu, tolerance 0.5"
# runner history of the two jitter sweeps (what they share folded above).
at80 history --y round_s --by sweep --script scripts/jitter.lua
fits80 history
expect_equal "history: status" "$(cat "$TMP/status")" 0
expect_stdout_contains "2 sweeps ordered by"
# The sweeps: 11 columns, 161 characters through a pipe.
at80 sweeps
fits80 sweeps
expect_equal "sweeps: status" "$(cat "$TMP/status")" 0
# what every sweep shares folded; what does not fit named
expect_stdout_contains "  name = none · tags = none · status = ok · sections = 1 · points_failed = 0 ·"
expect_stdout_contains "--wide shows it"
# --wide is a switch: a value after it is refused, one line, exit 2.
run "$RUNNER" fit 1 --x workers --y round_s --model walkthrough --wide=yes --db "$DB"
expect_status 2
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "--wide=yes: not one line: $(cat "$TMP/err")"
finish
