# runner fit (docs/analysis.md): the walk-through's round fitted to real
# sweeps, the rows it stores (fit, fit_param, fit_residual) checked in SQL,
# the stored result rows left as they were, and each refusal's exact line
# with nothing stored.
. tests/e2e/lib.sh

# scripts/jitter.lua: exact rounds base/k + J k/(k+1), base 30 s, J = 2, 1,
# 0.5 s. One fit per jitter gives back base and J, and the ceilings of
# docs/science.md (T1/J = 15.5, 30.5, 60.5).
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
ROWS="SELECT * FROM speedup ORDER BY row_id"
sql "$ROWS" >"$TMP/rows_before.txt"
run "$RUNNER" fit last --db "$DB" --x workers --y round_s --model walkthrough --by jitter
expect_status 0
expect_stdout_contains "walkthrough fit of round_s = base/x + J*x/(x+1), x = workers (sweep 1, section 1: Speedup vs workers, per jitter (exact expected waits))"
expect_stdout_contains "stored as fits 1 to 3: fit_param holds these"
expect_sql "SELECT id, sweep_id, section_id, model, x_column, y_column, x_unit, y_unit, by_column,
    by_value, weight_column IS NULL, n, excluded, dof, confidence FROM fit ORDER BY id" \
"1|1|1|walkthrough|workers|round_s|workers|s|jitter|2.0|1|8|0|6|0.95
2|1|1|walkthrough|workers|round_s|workers|s|jitter|1.0|1|8|0|6|0.95
3|1|1|walkthrough|workers|round_s|workers|s|jitter|0.5|1|8|0|6|0.95"
expect_sql "SELECT f.by_value, p.name, p.kind, printf('%.9f', p.value), p.unit
    FROM fit_param p JOIN fit f ON f.id = p.fit_id ORDER BY f.id, p.position" \
"2.0|base|param|30.000000000|s
2.0|J|param|2.000000000|s
2.0|t1|derived|31.000000000|s
2.0|ceiling|derived|15.500000000|
1.0|base|param|30.000000000|s
1.0|J|param|1.000000000|s
1.0|t1|derived|30.500000000|s
1.0|ceiling|derived|30.500000000|
0.5|base|param|30.000000000|s
0.5|J|param|0.500000000|s
0.5|t1|derived|30.250000000|s
0.5|ceiling|derived|60.500000000|"
# Each interval says how it was made: the positive derived quantities on
# log, so they never cross 0 (docs/analysis.md, "Honest intervals").
expect_sql "SELECT name, interval FROM fit_param WHERE fit_id = 1 ORDER BY position" "base|wald
J|wald
t1|log
ceiling|log"
# Every row fitted, once, with its own key: the residual is y - fitted and
# its x and y are the stored row's.
expect_sql "SELECT count(*), count(DISTINCT r.row_id), max(abs(r.residual)) < 1e-9,
    sum(r.x = s.workers AND r.y = s.round_s AND r.point_id = s.point_id),
    max(abs(r.y - r.fitted - r.residual)) < 1e-12
    FROM fit_residual r JOIN speedup s ON s.row_id = r.row_id" "24|24|1|24|1"
expect_equal "the stored rows after fitting" "$(sql "$ROWS")" "$(cat "$TMP/rows_before.txt")"

# Noisy rounds: straggler's Monte Carlo waits (50 rounds per point). The
# fitted J's interval holds the injected 2 s; weighted by each row's
# standard error, the interval is narrower and still holds it.
noisy=$(write_script noisy.lua <<'LUA'
sweep("straggler", { base = 30, jitter = 2, trials = 50,
                     workers = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$noisy" --db "$DB" --quiet
expect_status 0
run "$RUNNER" fit last --db "$DB" --x workers --y round_s --model walkthrough
expect_status 0
expect_stdout_contains "fit = 4 · n = 10 rows · excluded = 0 rows · r2 = "
run "$RUNNER" fit last --db "$DB" --x workers --y round_s --model walkthrough \
    --weights max_delay_sample_stderr_s --format csv
expect_status 0
expect_equal "the CSV header" "$(head -n 1 "$TMP/out")" \
    "fit,n,excluded,r2,quantity,value,stderr,ci95_low,ci95_high,unit,interval"
expect_sql "SELECT f.id, f.weight_column, p.ci_low < 2 AND 2 < p.ci_high, p.stderr > 0
    FROM fit f JOIN fit_param p ON p.fit_id = f.id AND p.name = 'J' WHERE f.id >= 4" \
"4||1|1
5|max_delay_sample_stderr_s|1|1"
expect_sql "SELECT (SELECT stderr FROM fit_param WHERE fit_id = 5 AND name = 'J')
    < (SELECT stderr FROM fit_param WHERE fit_id = 4 AND name = 'J')" "1"

# USL on the speedups: k* and its interval; JSON for programs.
run "$RUNNER" fit 1 --db "$DB" --x workers --y speedup --model usl --by jitter --format json
expect_status 0
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["rows"][0][5] == "sigma", d' \
    "$TMP/out" || fail "fit --format json: not the expected document"
expect_sql "SELECT group_concat(name, ' ') FROM (SELECT name FROM fit_param WHERE fit_id = 6
    ORDER BY position)" "sigma kappa peak_x peak_speedup"

# Rows with NaN are left out and counted: karp_flatt is NaN at one worker.
run "$RUNNER" fit 1 --db "$DB" --x workers --y karp_flatt --model linear
expect_status 0
expect_stderr "runner: fit: 3 rows excluded (NaN, inf or empty in workers or karp_flatt)"
expect_sql "SELECT n, excluded FROM fit WHERE id = (SELECT max(id) FROM fit)" "21|3"

# Refusals: one line, exit 2, nothing stored.
fits_before=$(sql "SELECT count(*) || ' ' || (SELECT count(*) FROM fit_param) || ' ' ||
    (SELECT count(*) FROM fit_residual) FROM fit")
run "$RUNNER" fit 1 --db "$DB" --x workers --y nope --model usl
expect_status 2
expect_stderr "runner: fit: sweep 1, section 1: --y nope: the section has no such column; its columns: base, jitter, workers, trials, model, scaling, model_params, bytes_per_param, latency_s, bandwidth_bytes_per_s, reduce_bytes_per_s, wait_s, round_s, speedup, efficiency, ceiling, ceiling_amdahl, karp_flatt, t1_s, compute_s, gustafson, comm_s, comm_share"
run "$RUNNER" fit 1 --db "$DB" --x model --y speedup --model usl
expect_status 2
expect_stderr "runner: fit: sweep 1, section 1: --x model: not a numeric column (it holds text)"
run "$RUNNER" fit 1 --db "$DB" --x workers --y speedup --model cubic
expect_status 2
expect_stderr "runner: --model cubic: expected amdahl, amdahl-time, gustafson, gustafson-time, usl, usl-time, walkthrough, alpha-beta, power or linear; see 'runner --help'"
run "$RUNNER" fit 1 --db "$DB" --x workers --y speedup
expect_status 2
expect_stderr "runner: fit needs --x COLUMN, --y COLUMN and --model MODEL; see 'runner --help'"
run "$RUNNER" fit 1 --db "$DB" --x workers --y speedup --model usl --section 2
expect_status 2
expect_stderr "runner: fit: sweep 1 has 1 section; --section 2 is out of range"
run "$RUNNER" fit 1 --db "$DB" --x workers --y speedup --model usl --section 0
expect_status 2
expect_stderr "runner: fit: --section 0: expected a section number (1, 2, ...); see 'runner --help'"
# Too few rows for the parameters, in one group: the whole fit is refused,
# the groups that could be fitted are not stored either.
few=$(write_script few.lua <<'LUA'
sweep("speedup", { jitter = { 2, 1 }, workers = { 1, 2, 4 } }, { print = false })
sweep("speedup", { jitter = 2, workers = { 1, 2 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$few" --db "$DB" --quiet --name few
expect_status 0
run "$RUNNER" fit few --db "$DB" --x workers --y speedup --model usl --section 2
expect_status 2
expect_stderr "runner: fit: sweep 3, section 2: usl has 2 parameters and needs at least 3 rows to estimate their errors; 2 usable"
run "$RUNNER" fit few --db "$DB" --x workers --y speedup --model usl --by jitter
expect_status 0
run "$RUNNER" fit few --db "$DB" --x workers --y round_s --model walkthrough --by workers
expect_status 2
expect_stderr "runner: fit: sweep 3, section 1, workers = 1: walkthrough has 2 parameters and needs at least 3 rows to estimate their errors; 2 usable"
expect_sql "SELECT count(*) FROM fit WHERE sweep_id = 3" "2"
expect_sql "SELECT count(*) FROM fit WHERE sweep_id <> 3" "${fits_before%% *}"
run "$RUNNER" fit 9 --db "$DB" --x workers --y speedup --model usl
expect_status 2
expect_stderr "runner: $DB: no sweep 9 with stored sections; 'runner sweeps' lists them"
run "$RUNNER" fit 1 --db "$TMP/missing.db" --x workers --y speedup --model usl
expect_status 2
expect_stderr "runner: $TMP/missing.db: no such database (run 'runner sweep' first, or pass --db)"

# runner rm takes a sweep's fits with it.
run "$RUNNER" rm 1 --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM fit WHERE sweep_id = 1" "0"
expect_sql "SELECT count(*) FROM fit_param WHERE fit_id NOT IN (SELECT id FROM fit)" "0"
expect_sql "SELECT count(*) FROM fit_residual WHERE fit_id NOT IN (SELECT id FROM fit)" "0"
# A new fit never takes a removed fit's id: sweep 3 held the highest.
highest=$(sql "SELECT max(id) FROM fit")
run "$RUNNER" rm few --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM fit WHERE id = $highest" "0"
run "$RUNNER" fit last --db "$DB" --x workers --y round_s --model walkthrough --again
expect_status 0
expect_sql "SELECT max(id) FROM fit" "$((highest + 1))"

# Answers are kept, not piled up: the same fit asked again on the same rows
# is the stored one (nothing written), --again replaces it with new ids,
# and the fit tables never hold two answers to one request.
run "$RUNNER" sweep scripts/jitter.lua --db "$TMP/kept.db" --quiet
expect_status 0
fit_again() {
    run "$RUNNER" fit 1 --db "$TMP/kept.db" --x workers --y round_s --model walkthrough --by jitter "$@"
}
fit_again
expect_status 0
expect_stdout_contains "stored as fits 1 to 3: "
before=$(sqlite3 "$TMP/kept.db" "SELECT group_concat(id || ':' || created_at) FROM fit")
fit_again
expect_status 0
expect_stdout_contains "as stored in fits 1 to 3, which fitted the same rows (--again fits anew and replaces them)"
expect_stdout_contains "ceiling"
expect_equal "the stored fits after asking again" \
    "$(sqlite3 "$TMP/kept.db" "SELECT group_concat(id || ':' || created_at) FROM fit")" "$before"
fit_again --again
expect_status 0
expect_stdout_contains "stored as fits 4 to 6: "
expect_equal "fits, params, residuals after --again" "$(sqlite3 "$TMP/kept.db" \
    "SELECT (SELECT group_concat(id) FROM fit), (SELECT count(DISTINCT fit_id) || '/' || count(*) FROM fit_param),
            (SELECT count(DISTINCT fit_id) || '/' || count(*) FROM fit_residual)")" "4,5,6|3/12|3/24"
# Another request (another model) is another answer, kept beside it.
run "$RUNNER" fit 1 --db "$TMP/kept.db" --x workers --y speedup --model usl
expect_status 0
expect_stdout_contains "stored as fit 7: "
run "$RUNNER" fit 1 --db "$TMP/kept.db" --x workers --y speedup --model usl
expect_stdout_contains "as stored in fit 7, which"
expect_equal "fits" "$(sqlite3 "$TMP/kept.db" "SELECT count(*) FROM fit")" 4
# --again is a switch: a value is refused, one line, nothing stored.
fit_again --again=yes
expect_status 2
expect_stderr "runner: fit: option '--again' takes no value; see 'runner --help'"
expect_equal "fits after a refusal" "$(sqlite3 "$TMP/kept.db" "SELECT count(*) FROM fit")" 4
finish
