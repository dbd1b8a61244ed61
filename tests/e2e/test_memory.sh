# scripts/memory.lua through the real binary: the ZeRO paper's per-GPU
# figures (7.5e9 parameters, 64 GPUs: 120, 31.4, 16.6, 1.9 GB) come out of
# the stored rows as exact integers, and the stored columns agree with the
# model's formulas, recomputed here in SQL.
. tests/e2e/lib.sh

run "$RUNNER" sweep scripts/memory.lua --db "$DB"
expect_status 0
expect_stdout_contains "Per-GPU model states: 7.5 billion parameters on 64 GPUs"
expect_stdout_contains "=> per GPU (80.0 GB each): DDP 120.0 GB (111.8 GiB), does not fit; ZeRO-1 31.4 GB (29.2 GiB); ZeRO-2 16.6 GB (15.5 GiB); ZeRO-3 1.9 GB (1.7 GiB); ZeRO-3 holds 64x less than DDP for 1.5x its traffic"
expect_stdout_contains "ZeRO-3 40.0 billion -> 5.12 trillion parameters"
expect_sql "SELECT count(*), count(DISTINCT section_id) FROM memory" "16|2"
expect_sql "SELECT count(*) FROM point WHERE status = 'ok'" "4"

# The paper's example, section 1: exact bytes, then its decimal-GB figures.
first="section_id = (SELECT min(section_id) FROM memory)"
expect_sql "SELECT group_concat(stage || ':' || total_bytes, ' ') FROM (SELECT stage, total_bytes FROM memory WHERE $first ORDER BY row_id)" \
    "ddp:120000000000 zero1:31406250000 zero2:16640625000 zero3:1875000000"
expect_sql "SELECT group_concat(printf('%.1f', total_gb), ' ') FROM (SELECT total_gb FROM memory WHERE $first ORDER BY row_id)" \
    "120.0 31.4 16.6 1.9"
expect_sql "SELECT group_concat(fits, ' ') FROM (SELECT fits FROM memory WHERE $first ORDER BY row_id)" "0 1 1 1"
expect_sql "SELECT DISTINCT typeof(total_bytes), typeof(max_params_that_fit), typeof(comm_bytes_per_step) FROM memory" "integer|integer|integer"
expect_sql "SELECT printf('%.2f', reduction_vs_ddp), comm_vs_ddp FROM memory WHERE $first AND stage = 'zero3'" "64.00|1.5"

# Every row against the model, in SQL: a shard is ceil(Psi / N_d) parameters;
# each stage partitions one more state; totals add the activations.
shard="((model_params + workers - 1) / workers)"
expect_sql "SELECT count(*) FROM memory WHERE shard_params = $shard
    AND weights_bytes = weight_bytes * CASE stage WHEN 'zero3' THEN $shard ELSE model_params END
    AND gradients_bytes = grad_bytes * CASE WHEN stage IN ('zero2', 'zero3') THEN $shard ELSE model_params END
    AND optimizer_bytes = optimizer_bytes_per_param * CASE stage WHEN 'ddp' THEN model_params ELSE $shard END
    AND total_bytes = weights_bytes + gradients_bytes + optimizer_bytes + activation_bytes
    AND comm_bytes_per_step = (workers - 1) * $shard * CASE stage WHEN 'ddp' THEN 2 * grad_bytes
        WHEN 'zero3' THEN grad_bytes + 2 * weight_bytes ELSE grad_bytes + weight_bytes END" "16"
expect_sql "SELECT count(*) FROM memory WHERE fits = (total_bytes <= gpu_memory_bytes) AND fits = (model_params <= max_params_that_fit) AND abs(total_gib - total_bytes / 1073741824.0) < 1e-9" "16"
# Bytes never grow from one stage to the next; the largest model never shrinks.
expect_sql "SELECT count(*) FROM memory a JOIN memory b USING (sweep_id, point_id)
    WHERE a.stage < b.stage AND (b.weights_bytes > a.weights_bytes OR b.gradients_bytes > a.gradients_bytes
    OR b.optimizer_bytes > a.optimizer_bytes OR b.total_bytes >= a.total_bytes OR b.max_params_that_fit < a.max_params_that_fit)" "0"

# Section 2: the largest model on 80e9-byte GPUs. DDP is 80e9 / 16 at any
# N_d; ZeRO-3 is 80e9 N_d / 16; ZeRO-1 at 64 GPUs fills the card to the byte.
second="section_id = (SELECT max(section_id) FROM memory)"
expect_sql "SELECT group_concat(workers || ':' || max_params_that_fit, ' ') FROM (SELECT workers, max_params_that_fit FROM memory WHERE $second AND stage = 'ddp' ORDER BY workers)" \
    "8:5000000000 64:5000000000 1024:5000000000"
expect_sql "SELECT count(*) FROM memory WHERE $second AND stage = 'zero3' AND max_params_that_fit = 80000000000 * workers / 16" "3"
expect_sql "SELECT max_params_that_fit FROM memory WHERE $second AND stage = 'zero1' AND workers = 64" "19104477611"
# At that size ZeRO-1 needs exactly 80e9 bytes, and one parameter more does not fit.
expect_sql "SELECT 4 * p + 12 * ((p + 63) / 64), 4 * (p + 1) + 12 * ((p + 64) / 64) > 80000000000 FROM (SELECT max_params_that_fit AS p FROM memory WHERE $second AND stage = 'zero1' AND workers = 64)" \
    "80000000000|1"

# A single stage, and a point whose activations fill the GPU: one row each.
script=$(write_script one_stage.lua <<'EOF'
sweep("memory", { stages = "zero3", activation_bytes = { 0, 80000000000 } })
EOF
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
expect_sql "SELECT group_concat(stage || ':' || total_bytes || ':' || fits || ':' || max_params_that_fit, ' ') FROM (SELECT * FROM memory WHERE sweep_id = 2 ORDER BY row_id)" \
    "zero3:1875000000:1:320000000000 zero3:81875000000:0:0"

# Declared choices are enforced before anything runs.
script=$(write_script bad_stage.lua <<'EOF'
sweep("memory", { stages = "zero4" })
EOF
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 2
expect_stderr "runner: $script:1: memory: stages: 'zero4' is not one of 'all', 'ddp', 'zero1', 'zero2', 'zero3'"
expect_sql "SELECT count(*) FROM sweep" "2"
finish
