# The three 30-second experiments do what they claim.
. tests/e2e/lib.sh

# jitter 2.0 -> 0.5: the ceiling goes from about 15 to about 60.
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet
expect_status 0
expect_stdout_contains "shrinking the worst delay 2 -> 0.5 s raises the ceiling 15.5x -> 60.5x"
expect_sql "SELECT group_concat(ceiling, ' ') FROM (SELECT DISTINCT jitter, ceiling FROM speedup ORDER BY jitter DESC)" "15.5 30.5 60.5"

# virtual nodes 120 -> 1: the busiest/idlest ratio jumps.
run "$RUNNER" sweep scripts/vnodes.lua --db "$DB" --quiet
expect_status 0
expect_sql "SELECT (SELECT load_ratio FROM sharding WHERE vnodes = 1) > 4 * (SELECT load_ratio FROM sharding WHERE vnodes = 120)" "1"
expect_sql "SELECT (SELECT load_cv FROM sharding WHERE vnodes = 1) > 3 * (SELECT load_cv FROM sharding WHERE vnodes = 120)" "1"
expect_stdout_contains "virtual nodes are load balancing"

# 1e6 -> 1e9 parameters: hundreds of GiB at the server, the ring grows 1000x.
run "$RUNNER" sweep scripts/params.lua --db "$DB" --quiet
expect_status 0
expect_sql "SELECT bytes_per_round / 1073741824.0 > 100 FROM comm WHERE scheme = 'ps' AND workers = 64 AND model_params = 1000000000" "1"
expect_sql "SELECT count(*) FROM comm a JOIN comm b ON a.workers = b.workers AND a.scheme = b.scheme WHERE a.model_params = 1000000 AND b.model_params = 1000000000 AND b.bytes_per_round = 1000 * a.bytes_per_round" "4"
expect_stdout_contains "64 workers, 1e+09 parameters: the server moves 476.8 GiB per round; each ring worker 7.3 GiB (7.5 MiB at 1e+06 parameters, 1000x)"
finish
