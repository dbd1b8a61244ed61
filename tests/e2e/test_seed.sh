# The walk-through end to end: scripts/seed.lua stores all five sections and
# the figures docs/science.md fixes come out of the stored rows (checked here from
# the formulas, in SQL, not from pasted output). A second run is
# bit-identical, row for row.
. tests/e2e/lib.sh

run "$RUNNER" sweep scripts/seed.lua --db "$DB"
expect_status 0
# The titles carry no numbers of their own: a section's number is its place
# in the sweep (runner show --section N, the dashboard's "4. Stragglers").
for title in "Equivalence: " "Communication per round: " "A 12e9-parameter model" "Stragglers: " "Sharding: " "Speedup: "; do
    expect_stdout_contains "$title"
done
expect_sql "SELECT count(*) FROM section WHERE title GLOB '[0-9]*'" "0"
# The printout numbers them by place, as the dashboard and report do.
expect_equal "the printed section headings" \
    "$(grep -E '^[0-9]+\. ' "$TMP/out" | cut -d' ' -f1,2 | tr '\n' ' ')" \
    "1. Equivalence: 2. Communication 3. A 4. Stragglers: 5. Sharding: 6. Speedup: "
expect_stdout_contains "=> ceiling T1/J = 15.5x (Amdahl approximation base/J = 15.0x); 512 workers deliver 15.1x at 2.9% efficiency"
expect_stdout_contains "one copy is 44.7 GiB (48.0 GB); a ring round moves 78.2 GiB (84.0 GB) per worker"
expect_sql "SELECT group_concat(plugin, ' ') FROM (SELECT plugin FROM section ORDER BY ordinal)" "equivalence comm comm straggler sharding speedup"

# 1. equivalence: weighted = rounding; plain off on uneven shards only.
expect_sql "SELECT count(*) FROM equivalence WHERE weighting = 'weighted' AND max_abs_diff < 1e-14 * grad_max_abs" "2"
expect_sql "SELECT count(*) FROM equivalence WHERE weighting = 'plain' AND split = 'uneven' AND max_abs_diff > 1e-4 * grad_max_abs" "1"
expect_sql "SELECT count(*) FROM equivalence WHERE weighting = 'plain' AND split = 'even' AND max_abs_diff < 1e-14 * grad_max_abs" "1"

# 2. comm: exact integers, 2Wk and 2(k-1)W/k, and the walk-through's MiB.
expect_sql "SELECT group_concat(bytes_per_round, ' ') FROM (SELECT bytes_per_round FROM comm WHERE model_params = 1000000 ORDER BY workers, scheme)" "64000000 7000000 512000000 7875000"
expect_sql "SELECT count(*) FROM comm WHERE bytes_per_round = CASE scheme WHEN 'ps' THEN 2 * model_params * bytes_per_param * workers ELSE 2 * (workers - 1) * model_params * bytes_per_param / workers END" "6"
expect_sql "SELECT group_concat(printf('%.1f', bytes_per_round / 1048576.0), ' ') FROM (SELECT bytes_per_round FROM comm WHERE model_params = 1000000 ORDER BY workers, scheme)" "61.0 6.7 488.3 7.5"
expect_sql "SELECT typeof(bytes_per_round), printf('%.1f', copy_bytes / 1073741824.0), printf('%.1f', bytes_per_round / 1073741824.0) FROM comm WHERE model_params = 12000000000 AND scheme = 'ring'" "integer|44.7|78.2"

# 3. straggler: every estimate within 4 standard errors of J k/(k+1).
expect_sql "SELECT count(*) FROM straggler WHERE abs(max_delay_exact_s - jitter * workers / (workers + 1.0)) < 1e-12 AND abs(max_delay_s - max_delay_exact_s) < 4 * max_delay_stderr_s" "4"
expect_sql "SELECT count(*) FROM straggler WHERE abs(max_delay_stderr_s - jitter * sqrt(workers * 1.0 / ((workers + 1.0) * (workers + 1.0) * (workers + 2.0))) / sqrt(trials)) < 1e-15" "4"
expect_sql "SELECT group_concat(printf('%.0f', 100 * wait_share), ' ') FROM (SELECT wait_share FROM straggler ORDER BY workers)" "3 32 81 97"

# 4. sharding: mod moves ~N/(N+1), the ring ~1/(N+1).
expect_sql "SELECT abs(moved_mod - nodes / (nodes + 1.0)) < 0.015, moved_ring BETWEEN 0.09 AND 0.135, abs(moved_ideal - 1.0 / (nodes + 1)) < 1e-15, hash_name FROM sharding" "1|1|1|xxh64"

# 5. speedup: the walk-through's speedups within 0.02; exact ceiling 15.5.
expect_sql "SELECT group_concat(printf('%.2f', speedup), ' ') FROM (SELECT speedup FROM speedup ORDER BY workers)" "1.00 1.90 3.41 5.61 8.25 12.72 14.70 15.09"
expect_sql "SELECT count(*) FROM speedup s JOIN (SELECT 2 AS k, 1.90 AS w UNION ALL SELECT 4, 3.40 UNION ALL SELECT 8, 5.60 UNION ALL SELECT 16, 8.25 UNION ALL SELECT 64, 12.71 UNION ALL SELECT 256, 14.69 UNION ALL SELECT 512, 15.08) t ON s.workers = t.k WHERE abs(s.speedup - t.w) <= 0.02" "7"
expect_sql "SELECT DISTINCT ceiling, ceiling_amdahl FROM speedup" "15.5|15.0"
expect_sql "SELECT printf('%.1f', 100 * efficiency) FROM speedup WHERE workers = 512" "2.9"

# Reproducible: the same seed gives bit-identical rows in a second run.
run "$RUNNER" sweep scripts/seed.lua --db "$DB" --quiet
expect_status 0
for t in equivalence comm straggler sharding speedup; do
    cols=$(sql "SELECT group_concat(name, ', ') FROM (SELECT name FROM plugin_column WHERE plugin = '$t' ORDER BY role DESC, position)")
    expect_sql "SELECT count(*) FROM (SELECT $cols FROM $t WHERE sweep_id = 1 EXCEPT SELECT $cols FROM $t WHERE sweep_id = 2)" "0"
    expect_sql "SELECT (SELECT count(*) FROM $t WHERE sweep_id = 1) = (SELECT count(*) FROM $t WHERE sweep_id = 2)" "1"
done
expect_sql "SELECT count(*) FROM point p JOIN point q ON p.identity = q.identity AND p.sweep_id = 1 AND q.sweep_id = 2" "18"
finish
