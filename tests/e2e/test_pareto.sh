# runner pareto SWEEP --min COL --max COL (docs/analysis.md, "Trade-off
# fronts"): the front of a real sweep equals the rows no other row
# dominates, computed independently in SQL; ties kept, NaN excluded and
# counted; bad input is one line and exit 2.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0

# brute OBJ1 OBJ2: the front in SQL (max both), as "workers,jitter" lines.
brute() {
    sql "SELECT a.workers || ',' || printf('%g', a.jitter) FROM speedup a WHERE a.$1 IS NOT NULL
           AND a.$2 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM speedup b
           WHERE b.$1 >= a.$1 AND b.$2 >= a.$2 AND (b.$1 > a.$1 OR b.$2 > a.$2))" | sort
}
# stored ID: "workers,jitter" lines of the front stored as pareto ID.
stored() {
    sql "SELECT s.workers || ',' || printf('%g', s.jitter) FROM pareto_member m
           JOIN speedup s ON s.row_id = m.row_id AND s.point_id = m.point_id
           WHERE m.pareto_id = $1" | sort
}
# front: "workers,jitter" lines of the JSON front in $TMP/out
front() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["columns"]]
for r in d["rows"]:
    r = dict(zip(names, r))
    print("%d,%g" % (r["workers"], r["jitter"]))
' "$TMP/out" | sort
}
run "$RUNNER" pareto 1 --max efficiency --max speedup --db "$DB" --format json
expect_status 0
expect_equal "front = brute force" "$(front)" "$(brute efficiency speedup)"
# Stored (pareto, pareto_objective, pareto_member): the same rows as printed.
expect_equal "stored front = printed front" "$(stored 1)" "$(front)"
expect_sql "SELECT sweep_id, section_id, rows, excluded, front_size FROM pareto" "1|1|24|0|10"
expect_sql "SELECT position, column_name, unit, direction FROM pareto_objective ORDER BY position" \
"1|efficiency|fraction|max
2|speedup||max"
run "$RUNNER" pareto 1 --min round_s --max efficiency --db "$DB" --format json
expect_status 0
expect_equal "front = brute force (min round_s)" "$(front)" "$(sql "SELECT a.workers || ',' || printf('%g', a.jitter)
    FROM speedup a WHERE NOT EXISTS (SELECT 1 FROM speedup b WHERE b.round_s <= a.round_s
    AND b.efficiency >= a.efficiency AND (b.round_s < a.round_s OR b.efficiency > a.efficiency))" | sort)"
expect_equal "stored front = printed front (min round_s)" "$(stored 2)" "$(front)"
# ties: the three one-worker rows (efficiency 1, speedup 1) are all kept;
# the question of front 1 asked again: front 1 answers it, nothing written
run "$RUNNER" pareto 1 --max efficiency --max speedup --db "$DB"
expect_status 0
expect_equal "the table" "$(cat "$TMP/out")" "pareto front of sweep 1, section 1 (speedup)
  base = 30 s · trials = 0 rounds · model = walkthrough · scaling = strong · model_params = 44500000 params · bytes_per_param = 4 bytes · latency_s = 5e-06 s · bandwidth_bytes_per_s = 3.125e+09 bytes/s · reduce_bytes_per_s = 1e+11 bytes/s
jitter [s]  workers  efficiency [fraction]  speedup
         2        1                      1        1
         1        1                      1        1
       0.5        1                      1        1
       0.5        2                 0.9864    1.973
       0.5        4                 0.9573    3.829
       0.5        8                 0.9015    7.212
       0.5       16                  0.806     12.9
       0.5       64                 0.4918    31.48
       0.5      256                 0.1921    49.17
       0.5      512                  0.106    54.25
front: 10 of 24 rows
as stored in pareto 1, which read the same rows (--again finds the front anew and replaces it)"
expect_sql "SELECT group_concat(id) FROM pareto" "1,2"
# NaN (karp_flatt of one worker) excluded and counted; a parameter as an
# objective (workers: the cost); JSON
run "$RUNNER" pareto 1 --min karp_flatt --min round_s --db "$DB"
expect_status 0
expect_equal "NaN" "$(tail -n 2 "$TMP/out" | head -n 1)" "front: 7 of 24 rows; 3 rows with NaN excluded"
expect_sql "SELECT rows, excluded, front_size FROM pareto WHERE id = 3" "24|3|7"
run "$RUNNER" pareto 1 --min workers --max speedup --db "$DB" --format json
expect_status 0
expect_equal "json rows" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["rows"]), [c["name"] for c in d["columns"]][-2:])' "$TMP/out")" "10 ['workers', 'speedup']"
run "$RUNNER" pareto 1 --min karp_flatt --max speedup --db "$DB" --format csv
expect_status 0
expect_stderr "runner: pareto: 3 rows with NaN excluded"

# Refusals: one line, exit 2, nothing stored.
counts="SELECT (SELECT count(*) FROM pareto), (SELECT count(*) FROM pareto_objective),
    (SELECT count(*) FROM pareto_member)"
before=$(sql "$counts")
run "$RUNNER" pareto 1 --min round_s --db "$DB"
expect_status 2
expect_stderr "runner: pareto: two or more objectives are needed (--min COL, --max COL; each repeatable)"
run "$RUNNER" pareto 1 --min nope --max speedup --db "$DB"
expect_status 2
expect_stderr "runner: pareto: no section of sweep 1 has the columns nope, speedup ('runner show' names them)"
run "$RUNNER" pareto 1 --min round_s --max speedup --section 2 --db "$DB"
expect_status 2
expect_stderr "runner: pareto: sweep 1 has 1 section, not 2"
run "$RUNNER" pareto 1 --min model --max speedup --db "$DB"
expect_status 2
expect_stderr "runner: pareto: column 'model' of section 1 of sweep 1: not numeric"
run "$RUNNER" pareto 1 --min speedup --max speedup --db "$DB"
expect_status 2
expect_stderr "runner: pareto: column 'speedup' is named twice"
expect_equal "refusals store nothing" "$(sql "$counts")" "$before"

# runner rm removes a sweep's fronts with it.
run "$RUNNER" rm 1 --db "$DB"
expect_status 0
expect_sql "$counts" "0|0|0"
finish
