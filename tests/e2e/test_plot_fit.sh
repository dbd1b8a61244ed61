# runner plot --fit and --pareto (docs/analysis.md, "Drawn"): a stored fit's
# curves drawn over its section (one per --by group, in the group's colour),
# the front's rows circled with the count runner pareto prints, and each
# refusal's line with exit 2.
. tests/e2e/lib.sh
skip_without gnuplot "no gnuplot (apt-get install gnuplot-nox)"
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
run "$RUNNER" plot last --db "$DB" --fit latest -o "$TMP/none.svg"
expect_status 2
expect_stderr "runner: plot: sweep 1 has no stored fit ('runner fit' stores them)"
run "$RUNNER" fit last --db "$DB" --x workers --y round_s --model walkthrough --by jitter
expect_status 0

# latest: the three fits of the --by run, over round_s against workers.
run "$RUNNER" plot last --db "$DB" --fit latest --logx -o "$TMP/fit.svg"
expect_status 0
for j in "1 (jitter = 2)" "2 (jitter = 1)" "3 (jitter = 0.5)"; do
    grep -qF "walkthrough fit $j" "$TMP/fit.svg" || fail "fit.svg lacks the curve of fit $j"
done
grep -qF "round_s [s]" "$TMP/fit.svg" || fail "fit.svg: not round_s on the y axis"
# Fit 2 by id draws its group too; the curve passes through the exact rows:
# the fitted values of fit_residual are the model's (residuals 0 here).
run "$RUNNER" plot last --db "$DB" --fit 2 -o "$TMP/fit2.png"
expect_status 0
[ -s "$TMP/fit2.png" ] || fail "fit2.png is empty"
expect_sql "SELECT count(*) FROM fit_residual WHERE abs(residual) > 1e-9" "0"

# Refusals: no such fit, other columns, a bad value.
run "$RUNNER" plot last --db "$DB" --fit 9 -o "$TMP/x.svg"
expect_status 2
expect_stderr "runner: plot: sweep 1 has no fit 9 ('runner fit' prints the ids)"
run "$RUNNER" plot last --db "$DB" --fit 1 --y speedup -o "$TMP/x.svg"
expect_status 2
expect_stderr "runner: plot: fit 1 is of sweep 1, section 1, round_s against workers; leave out --section, --x and --y or give those"
run "$RUNNER" plot last --db "$DB" --fit first -o "$TMP/x.svg"
expect_status 2
expect_stderr "runner: plot: --fit first: expected a fit id (runner fit prints it) or latest; see 'runner --help'"
[ ! -e "$TMP/x.svg" ] || fail "a refused plot wrote its file"

# --pareto: the front runner pareto finds, circled.
run "$RUNNER" pareto last --db "$DB" --min workers --max speedup
expect_status 0
expect_stdout_contains "front: 10 of 24 rows"
run "$RUNNER" plot last --db "$DB" --x workers --y speedup --by jitter \
    --pareto min:workers,max:speedup -o "$TMP/front.svg"
expect_status 0
grep -qF "front (min workers, max speedup): 10 of 24 rows" "$TMP/front.svg" ||
    fail "front.svg lacks the front's legend"
run "$RUNNER" plot last --db "$DB" --x workers --y speedup --pareto min:workers,max:karp_flatt \
    -o "$TMP/front2.svg"
expect_status 0
expect_stderr "runner: plot: --pareto: 3 rows with NaN excluded"
run "$RUNNER" plot last --db "$DB" --pareto min:workers -o "$TMP/x.svg"
expect_status 2
expect_stderr "runner: plot: --pareto min:workers: expected min:COL,max:COL,... (two or more objectives, each min: or max:); see 'runner --help'"
run "$RUNNER" plot last --db "$DB" --pareto min:workers,max:nope -o "$TMP/x.svg"
expect_status 2
expect_stderr "runner: plot: --pareto: the section has no column nope"
run "$RUNNER" plot last --db "$DB" --pareto min:workers,min:workers -o "$TMP/x.svg"
expect_status 2
expect_stderr "runner: plot: --pareto min:workers,min:workers: workers is named twice; see 'runner --help'"

# The report shows the stored fits under their section: the curves drawn
# and each fit's quantities (J of fit 2 is 1 s, its interval [1, 1]).
run "$RUNNER" report last --db "$DB" -o "$TMP/report.html"
expect_status 0
grep -qF '<h3 id="section-1-fit-1">Fit: walkthrough of round_s against workers, per jitter</h3>' \
    "$TMP/report.html" || fail "the report lacks the fit's heading"
grep -qF '<caption>walkthrough fit 2 (jitter = 1)</caption>' "$TMP/report.html" ||
    fail "the report lacks fit 2's table"
grep -qF '<tr><td>J</td><td class="num">1</td>' "$TMP/report.html" ||
    fail "the report lacks fit 2's J = 1"
grep -qF "runner plot 1 --fit 1 -o fit.svg" "$TMP/report.html" || fail "the report lacks the redraw line"
# A refit is the newest: the report shows it and not the old group.
run "$RUNNER" fit last --db "$DB" --x workers --y round_s --model walkthrough
expect_status 0
run "$RUNNER" report last --db "$DB" -o "$TMP/report2.html"
expect_status 0
grep -qF 'section-1-fit-4' "$TMP/report2.html" || fail "the report lacks the newest fit"
! grep -qF 'section-1-fit-1"' "$TMP/report2.html" || fail "the report shows the older fit group"
finish
