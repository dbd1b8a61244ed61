/* Unit tests of the memory model and its plugin glue. The paper's figures
 * (Rajbhandari et al. 2020, 7.5e9 parameters on 64 GPUs: 120, 31.4, 16.6,
 * 1.9 GB) are checked against the paper's formulas and as exact integers;
 * a small case with a ragged shard is worked by hand. */
#include "check.h"
#include "model.h"
#include "plugin_harness.h"

#include <stdio.h>
#include <string.h>

/* The paper's mixed-precision Adam: fp16 weights and gradients, K = 12. */
static memory_config paper_config(int64_t model_params, int64_t workers)
{
    memory_config config = {
        .model_params = model_params,
        .workers = workers,
        .weight_bytes = 2,
        .grad_bytes = 2,
        .optimizer_bytes = 12,
        .activation_bytes = 0,
    };
    return config;
}

static memory_usage usage_of(memory_stage stage, memory_config config)
{
    memory_usage usage;
    memset(&usage, 0, sizeof usage);
    CHECK_INT_EQ(memory_usage_of(stage, &config, &usage), 0);
    return usage;
}

static int64_t max_params_of(memory_stage stage, memory_config config, int64_t gpu_memory_bytes)
{
    int64_t max_params = -1;
    CHECK_INT_EQ(memory_max_params(stage, &config, gpu_memory_bytes, &max_params), 0);
    return max_params;
}

/* The figure as the paper prints it: "%.1f" of decimal GB. */
static const char *gb(double bytes, char *buffer, size_t size)
{
    snprintf(buffer, size, "%.1f", bytes / 1e9);
    return buffer;
}

/* Psi = 7.5e9, N_d = 64, K = 12: the paper's formulas, then its figures. */
static void test_paper_figures(void)
{
    const double psi = 7.5e9, n = 64, k = 12;
    const double formula[MEMORY_STAGE_COUNT] = {
        [MEMORY_DDP] = (2 + 2 + k) * psi,
        [MEMORY_ZERO1] = 2 * psi + 2 * psi + k * psi / n,
        [MEMORY_ZERO2] = 2 * psi + (2 + k) * psi / n,
        [MEMORY_ZERO3] = (2 + 2 + k) * psi / n,
    };
    const char *const paper_gb[MEMORY_STAGE_COUNT] = { "120.0", "31.4", "16.6", "1.9" };
    const int64_t exact[MEMORY_STAGE_COUNT] = {
        120000000000LL,
        31406250000LL,
        16640625000LL,
        1875000000LL,
    };
    char buffer[32];

    for (int s = 0; s < MEMORY_STAGE_COUNT; s++) {
        memory_usage u = usage_of((memory_stage)s, paper_config(7500000000LL, 64));
        CHECK_INT_EQ(u.shard_params, 117187500); /* 64 divides 7.5e9: no rounding */
        CHECK_INT_EQ(u.total_bytes, exact[s]);
        CHECK((double)u.total_bytes == formula[s]);
        CHECK_STR_EQ(gb((double)u.total_bytes, buffer, sizeof buffer), paper_gb[s]);
    }
    /* Which state each stage partitions: 2 Psi = 15e9, 2 Psi / N_d = 234375000,
     * K Psi = 90e9, K Psi / N_d = 1406250000. */
    memory_usage ddp = usage_of(MEMORY_DDP, paper_config(7500000000LL, 64));
    memory_usage z1 = usage_of(MEMORY_ZERO1, paper_config(7500000000LL, 64));
    memory_usage z2 = usage_of(MEMORY_ZERO2, paper_config(7500000000LL, 64));
    memory_usage z3 = usage_of(MEMORY_ZERO3, paper_config(7500000000LL, 64));
    CHECK_INT_EQ(ddp.weights_bytes, 15000000000LL);
    CHECK_INT_EQ(ddp.gradients_bytes, 15000000000LL);
    CHECK_INT_EQ(ddp.optimizer_bytes, 90000000000LL);
    CHECK_INT_EQ(z1.weights_bytes, 15000000000LL);
    CHECK_INT_EQ(z1.gradients_bytes, 15000000000LL);
    CHECK_INT_EQ(z1.optimizer_bytes, 1406250000);
    CHECK_INT_EQ(z2.weights_bytes, 15000000000LL);
    CHECK_INT_EQ(z2.gradients_bytes, 234375000);
    CHECK_INT_EQ(z2.optimizer_bytes, 1406250000);
    CHECK_INT_EQ(z3.weights_bytes, 234375000);
    CHECK_INT_EQ(z3.gradients_bytes, 234375000);
    CHECK_INT_EQ(z3.optimizer_bytes, 1406250000);

    /* Communication: the paper's 2 Psi (DDP, ZeRO-1/2) and 3 Psi (ZeRO-3)
     * fp16 elements, times (N_d - 1) / N_d for a ring: 2 * 2 Psi * 63/64. */
    CHECK_INT_EQ(ddp.comm_bytes_per_step, 29531250000LL);
    CHECK((double)ddp.comm_bytes_per_step == 2 * 2 * psi * (n - 1) / n);
    CHECK_INT_EQ(z1.comm_bytes_per_step, ddp.comm_bytes_per_step);
    CHECK_INT_EQ(z2.comm_bytes_per_step, ddp.comm_bytes_per_step);
    CHECK_INT_EQ(2 * z3.comm_bytes_per_step, 3 * ddp.comm_bytes_per_step);

    /* The paper's headline: a trillion parameters on 1024 GPUs with ZeRO-3 is
     * 16 * 1e12 / 1024 bytes = 15.6 GB per GPU, inside a 32 GB V100. */
    memory_usage trillion = usage_of(MEMORY_ZERO3, paper_config(1000000000000LL, 1024));
    CHECK_INT_EQ(trillion.total_bytes, 15625000000LL);
    CHECK_STR_EQ(gb((double)trillion.total_bytes, buffer, sizeof buffer), "15.6");
}

/* Psi = 10 on N_d = 4 by hand: a shard is ceil(10 / 4) = 3 parameters (the
 * busiest GPU's; 10 = 3 + 3 + 2 + 2), never 2.5.
 *   ddp   weights 2*10 = 20  gradients 2*10 = 20  optimizer 12*10 = 120  total 160
 *   zero1         2*10 = 20            2*10 = 20            12*3 =  36         76
 *   zero2         2*10 = 20            2*3  =  6            12*3 =  36         62
 *   zero3         2*3  =  6            2*3  =  6            12*3 =  36         48
 * (zero3 unrounded would be 16 * 10 / 4 = 40.) A ring collective sends
 * N_d - 1 = 3 shards of 3 parameters: 9 parameters per pass, so
 *   ddp 9 * 2 * 2 = 36, zero1/zero2 9 * (2 + 2) = 36, zero3 9 * (2 + 2*2) = 54.
 * With 5 bytes of activations every total grows by exactly 5. */
static void test_small_case_by_hand(void)
{
    const int64_t weights[] = { 20, 20, 20, 6 }, gradients[] = { 20, 20, 6, 6 };
    const int64_t optimizer[] = { 120, 36, 36, 36 }, total[] = { 160, 76, 62, 48 };
    const int64_t comm[] = { 36, 36, 36, 54 };
    memory_config with_activations = paper_config(10, 4);
    with_activations.activation_bytes = 5;

    for (int s = 0; s < MEMORY_STAGE_COUNT; s++) {
        memory_usage u = usage_of((memory_stage)s, paper_config(10, 4));
        CHECK_INT_EQ(u.shard_params, 3);
        CHECK_INT_EQ(u.weights_bytes, weights[s]);
        CHECK_INT_EQ(u.gradients_bytes, gradients[s]);
        CHECK_INT_EQ(u.optimizer_bytes, optimizer[s]);
        CHECK_INT_EQ(u.total_bytes, total[s]);
        CHECK_INT_EQ(u.comm_bytes_per_step, comm[s]);
        memory_usage a = usage_of((memory_stage)s, with_activations);
        CHECK_INT_EQ(a.total_bytes, total[s] + 5);
        CHECK_INT_EQ(a.weights_bytes + a.gradients_bytes + a.optimizer_bytes, total[s]);
    }
    /* fp32 gradients (g = 4), fp16 weights (w = 2): the all-reduce is 9 * 2 * 4
     * = 72, a reduce-scatter plus one all-gather 9 * (4 + 2) = 54, plus a second
     * all-gather 9 * (4 + 2 * 2) = 72: ZeRO-1/2 send less than DDP here. */
    memory_config fp32_grads = paper_config(10, 4);
    fp32_grads.grad_bytes = 4;
    const int64_t comm_fp32_grads[] = { 72, 54, 54, 72 };
    for (int s = 0; s < MEMORY_STAGE_COUNT; s++)
        CHECK_INT_EQ(usage_of((memory_stage)s, fp32_grads).comm_bytes_per_step, comm_fp32_grads[s]);
    /* 8 on 4 divides: zero3 is exactly 16 * 8 / 4. */
    CHECK_INT_EQ(usage_of(MEMORY_ZERO3, paper_config(8, 4)).total_bytes, 32);
    /* One GPU: nothing to partition, nothing to send. */
    for (int s = 0; s < MEMORY_STAGE_COUNT; s++) {
        memory_usage u = usage_of((memory_stage)s, paper_config(10, 1));
        CHECK_INT_EQ(u.total_bytes, 160);
        CHECK_INT_EQ(u.comm_bytes_per_step, 0);
    }
    /* More GPUs than parameters: each still holds one (padded) parameter. */
    CHECK_INT_EQ(usage_of(MEMORY_ZERO3, paper_config(3, 8)).shard_params, 1);
    CHECK_INT_EQ(usage_of(MEMORY_ZERO3, paper_config(3, 8)).total_bytes, 16);
}

/* Every component and the total shrink (or stay) from stage to stage, the
 * largest model grows (or stays), over byte widths and ragged shards. */
static void test_monotone_in_stage(void)
{
    static const int64_t psis[] = { 1, 10, 1000, 7500000000LL, 1000000000000000LL };
    static const int64_t workers[] = { 1, 2, 3, 64, 1000, 1000000 };
    int wrong = 0;

    for (size_t i = 0; i < sizeof psis / sizeof psis[0]; i++)
        for (size_t j = 0; j < sizeof workers / sizeof workers[0]; j++)
            for (int64_t w = 1; w <= 4; w++)
                for (int64_t k = 0; k <= 16; k += 4) {
                    memory_config c = paper_config(psis[i], workers[j]);
                    c.weight_bytes = w;
                    c.grad_bytes = w;
                    c.optimizer_bytes = k;
                    c.activation_bytes = 1000;
                    memory_usage prev = usage_of(MEMORY_DDP, c);
                    int64_t prev_max = max_params_of(MEMORY_DDP, c, 80000000000LL);
                    for (int s = MEMORY_ZERO1; s < MEMORY_STAGE_COUNT; s++) {
                        memory_usage u = usage_of((memory_stage)s, c);
                        int64_t max = max_params_of((memory_stage)s, c, 80000000000LL);
                        if (u.weights_bytes > prev.weights_bytes ||
                            u.gradients_bytes > prev.gradients_bytes ||
                            u.optimizer_bytes > prev.optimizer_bytes ||
                            u.total_bytes > prev.total_bytes || max < prev_max)
                            wrong++;
                        /* ...strictly once a shard is smaller than the whole,
                         * unless the stage partitions an empty state (K = 0). */
                        int partitions_something = !(s == MEMORY_ZERO1 && k == 0);
                        if (workers[j] >= 2 && psis[i] >= 2 && partitions_something &&
                            u.total_bytes >= prev.total_bytes)
                            wrong++;
                        prev = u;
                        prev_max = max;
                    }
                }
    CHECK_INT_EQ(wrong, 0);
}

/* The largest model on 80e9-byte GPUs at N_d = 64, worked out by hand:
 *   ddp    16 Psi <= 80e9                              -> 5e9
 *   zero1  4 Psi + 12 ceil(Psi/64) <= 80e9: Psi = 64 q + r, 268 q <= 80e9
 *          gives q = 298507462 and 184 bytes left; 4 r + 12 <= 184, r = 43
 *          -> 19104477611 (total exactly 80e9)
 *   zero2  2 Psi + 14 ceil(Psi/64): 142 q, q = 563380281, 98 left;
 *          2 r + 14 <= 98, r = 42                      -> 36056338026
 *   zero3  16 ceil(Psi/64) <= 80e9: ceil(Psi/64) <= 5e9 -> 320e9 */
static void test_max_params_paper(void)
{
    const int64_t expected[] = { 5000000000LL, 19104477611LL, 36056338026LL, 320000000000LL };
    for (int s = 0; s < MEMORY_STAGE_COUNT; s++)
        CHECK_INT_EQ(max_params_of((memory_stage)s, paper_config(1, 64), 80000000000LL),
                     expected[s]);
    CHECK_INT_EQ(usage_of(MEMORY_ZERO1, paper_config(19104477611LL, 64)).total_bytes,
                 80000000000LL);
    /* 1024 GPUs: only zero3 keeps growing linearly (80e9 * 1024 / 16). */
    CHECK_INT_EQ(max_params_of(MEMORY_DDP, paper_config(1, 1024), 80000000000LL), 5000000000LL);
    CHECK_INT_EQ(max_params_of(MEMORY_ZERO3, paper_config(1, 1024), 80000000000LL),
                 5120000000000LL);
}

/* fits at max_params_that_fit, not at one more; against a brute-force scan
 * where the numbers are small, and at the boundary where they are not. */
static void test_max_params_consistency(void)
{
    int wrong = 0;
    for (int s = 0; s < MEMORY_STAGE_COUNT; s++)
        for (int64_t n = 1; n <= 6; n++)
            for (int64_t act = 0; act <= 7; act += 7)
                for (int64_t m = 0; m <= 120; m++) {
                    memory_config c = paper_config(1, n);
                    c.activation_bytes = act;
                    int64_t brute = 0;
                    for (int64_t psi = 1; psi <= m * n + 1; psi++) {
                        c.model_params = psi;
                        if (usage_of((memory_stage)s, c).total_bytes <= m)
                            brute = psi;
                    }
                    if (max_params_of((memory_stage)s, c, m) != brute)
                        wrong++;
                }
    CHECK_INT_EQ(wrong, 0);

    static const int64_t workers[] = { 1, 7, 64, 1000, 1000000 };
    static const int64_t memories[] = { 1, 16, 17, 1000003, 80000000000LL, 1000000000000LL };
    wrong = 0;
    for (int s = 0; s < MEMORY_STAGE_COUNT; s++)
        for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++)
            for (size_t j = 0; j < sizeof memories / sizeof memories[0]; j++) {
                memory_config c = paper_config(1, workers[i]);
                c.weight_bytes = 3; /* odd widths: no divisibility luck */
                c.optimizer_bytes = 7;
                c.activation_bytes = memories[j] / 3;
                int64_t max = max_params_of((memory_stage)s, c, memories[j]);
                if (max < 0) {
                    wrong++;
                    continue;
                }
                c.model_params = max + 1;
                if (usage_of((memory_stage)s, c).total_bytes <= memories[j])
                    wrong++; /* one more parameter must not fit */
                c.model_params = max;
                if (max > 0 && usage_of((memory_stage)s, c).total_bytes > memories[j])
                    wrong++;
            }
    CHECK_INT_EQ(wrong, 0);

    /* The top of the search range: one byte per parameter, all of it
     * partitioned, so Psi = M N_d itself fits exactly (ceil(M N_d / N_d) = M). */
    memory_config one_byte = paper_config(1, 64);
    one_byte.weight_bytes = 1;
    one_byte.grad_bytes = 0;
    one_byte.optimizer_bytes = 0;
    CHECK_INT_EQ(max_params_of(MEMORY_ZERO3, one_byte, 80000000000LL), 5120000000000LL);
    CHECK_INT_EQ(max_params_of(MEMORY_ZERO3, one_byte, 1), 64);

    /* Activations alone fill the GPU: no model fits. */
    memory_config full = paper_config(1, 64);
    full.activation_bytes = 80000000000LL;
    CHECK_INT_EQ(max_params_of(MEMORY_ZERO3, full, 80000000000LL), 0);
}

static void test_overflow(void)
{
    memory_usage u;
    int64_t max_params = 42;
    /* The largest legal point computes: 192 bytes x 1e15 parameters. */
    memory_config big = paper_config(1000000000000000LL, 1);
    big.weight_bytes = big.grad_bytes = big.optimizer_bytes = 64;
    big.activation_bytes = 1000000000000LL;
    CHECK_INT_EQ(memory_usage_of(MEMORY_DDP, &big, &u), 0);
    CHECK_INT_EQ(u.total_bytes, 192000000000000000LL + 1000000000000LL);
    CHECK_INT_EQ(memory_max_params(MEMORY_ZERO3, &big, 1000000000000LL, &max_params), 0);
    /* Beyond int64: an error, never a wrapped count. */
    memory_config huge = paper_config(INT64_MAX / 8, 1);
    CHECK_INT_EQ(memory_usage_of(MEMORY_DDP, &huge, &u), -1);
    CHECK_INT_EQ(memory_usage_of(MEMORY_ZERO1, &huge, &u), -1);
    huge.workers = 1000; /* sharded, the same model fits, unsharded it does not */
    CHECK_INT_EQ(memory_usage_of(MEMORY_ZERO3, &huge, &u), 0);
    CHECK_INT_EQ(memory_usage_of(MEMORY_DDP, &huge, &u), -1);
    /* The search range gpu_memory_bytes * N_d must fit too. */
    max_params = 42;
    CHECK_INT_EQ(memory_max_params(MEMORY_ZERO3, &huge, INT64_MAX / 999, &max_params), -1);
    CHECK_INT_EQ(max_params, 42);
}

/* The glue, through the real host: the descriptor validates, the defaults are
 * the paper's example, every column of every row is set. */
static void test_plugin(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    static const char *const names[] = { "ddp", "zero1", "zero2", "zero3" };
    harness h;
    char buffer[32];

    CHECK_INT_EQ(harness_validate(plugin), 0);
    CHECK_STR_EQ(plugin->name, "memory");
    CHECK_INT_EQ(plugin->param_count, 8);
    CHECK_STR_EQ(plugin->params[0].name, "model_params");
    CHECK(plugin->params[0].default_number == 7.5e9);
    CHECK_STR_EQ(plugin->params[1].name, "workers");
    CHECK(plugin->params[1].default_number == 64);
    CHECK_STR_EQ(plugin->params[2].name, "stages");
    CHECK_STR_EQ(plugin->params[2].default_text, "all");
    CHECK_STR_EQ(plugin->params[5].name, "optimizer_bytes_per_param");
    CHECK(plugin->params[5].default_number == 12);
    CHECK_STR_EQ(plugin->params[6].name, "gpu_memory_bytes");
    CHECK(plugin->params[6].default_number == 80e9);

    harness_init(&h, plugin);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK(h.point.error == NULL);
    CHECK_INT_EQ(h.point.row_count, 4);
    for (size_t r = 0; r < 4 && r < h.point.row_count; r++) {
        CHECK_STR_EQ(harness_text(&h, r, "stage"), names[r]);
        CHECK_INT_EQ(harness_row_problems(&h, r), 0);
        CHECK_INT_EQ(harness_integer(&h, r, "shard_params"), 117187500);
        CHECK(harness_real(&h, r, "total_gb") ==
              (double)harness_integer(&h, r, "total_bytes") / 1e9);
        CHECK(harness_real(&h, r, "total_gib") ==
              (double)harness_integer(&h, r, "total_bytes") / 1073741824.0);
    }
    CHECK_INT_EQ(harness_integer(&h, 0, "total_bytes"), 120000000000LL);
    CHECK_INT_EQ(harness_integer(&h, 1, "total_bytes"), 31406250000LL);
    CHECK_INT_EQ(harness_integer(&h, 2, "total_bytes"), 16640625000LL);
    CHECK_INT_EQ(harness_integer(&h, 3, "total_bytes"), 1875000000LL);
    CHECK_STR_EQ(gb(harness_real(&h, 1, "total_gb") * 1e9, buffer, sizeof buffer), "31.4");
    CHECK_INT_EQ(harness_integer(&h, 2, "gradients_bytes"), 234375000);
    CHECK_INT_EQ(harness_integer(&h, 3, "weights_bytes"), 234375000);
    CHECK_INT_EQ(harness_integer(&h, 1, "optimizer_bytes"), 1406250000);
    /* 120 GB does not fit an 80 GB card; every ZeRO stage does. */
    CHECK_INT_EQ(harness_boolean(&h, 0, "fits"), 0);
    CHECK_INT_EQ(harness_boolean(&h, 1, "fits"), 1);
    CHECK_INT_EQ(harness_boolean(&h, 3, "fits"), 1);
    CHECK(harness_real(&h, 0, "reduction_vs_ddp") == 1.0);
    CHECK(harness_real(&h, 3, "reduction_vs_ddp") == 64.0);
    CHECK_NEAR(harness_real(&h, 1, "reduction_vs_ddp"), 120.0 / 31.40625, 1e-15);
    CHECK_INT_EQ(harness_integer(&h, 0, "max_params_that_fit"), 5000000000LL);
    CHECK_INT_EQ(harness_integer(&h, 1, "max_params_that_fit"), 19104477611LL);
    CHECK_INT_EQ(harness_integer(&h, 3, "max_params_that_fit"), 320000000000LL);
    CHECK_INT_EQ(harness_integer(&h, 0, "comm_bytes_per_step"), 29531250000LL);
    CHECK(harness_real(&h, 1, "comm_vs_ddp") == 1.0);
    CHECK(harness_real(&h, 2, "comm_vs_ddp") == 1.0);
    CHECK(harness_real(&h, 3, "comm_vs_ddp") == 1.5);

    /* The fits boundary: zero1 needs exactly 31406250000 bytes. */
    CHECK_INT_EQ(harness_set(&h, "stages", value_text("zero1")), 0);
    CHECK_INT_EQ(harness_set(&h, "gpu_memory_bytes", value_integer(31406250000LL)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK_INT_EQ(h.point.row_count, 1);
    CHECK_STR_EQ(harness_text(&h, 0, "stage"), "zero1");
    CHECK_INT_EQ(harness_boolean(&h, 0, "fits"), 1);
    CHECK(harness_integer(&h, 0, "max_params_that_fit") >= 7500000000LL);
    CHECK(harness_real(&h, 0, "reduction_vs_ddp") == 120.0 / 31.40625);
    CHECK_INT_EQ(harness_set(&h, "gpu_memory_bytes", value_integer(31406249999LL)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK_INT_EQ(harness_boolean(&h, 0, "fits"), 0);
    CHECK(harness_integer(&h, 0, "max_params_that_fit") < 7500000000LL);

    /* Activations count against the GPU in every stage, unpartitioned. */
    CHECK_INT_EQ(harness_set(&h, "stages", value_text("zero3")), 0);
    CHECK_INT_EQ(harness_set(&h, "gpu_memory_bytes", value_integer(80000000000LL)), 0);
    CHECK_INT_EQ(harness_set(&h, "activation_bytes", value_integer(78125000000LL)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK_INT_EQ(harness_integer(&h, 0, "total_bytes"), 80000000000LL);
    CHECK_INT_EQ(harness_boolean(&h, 0, "fits"), 1);
    CHECK_INT_EQ(harness_integer(&h, 0, "max_params_that_fit"), 7500000000LL);

    /* One GPU: every stage is DDP, nothing is sent, the ratio is undefined. */
    CHECK_INT_EQ(harness_set(&h, "stages", value_text("all")), 0);
    CHECK_INT_EQ(harness_set(&h, "activation_bytes", value_integer(0)), 0);
    CHECK_INT_EQ(harness_set(&h, "workers", value_integer(1)), 0);
    CHECK_INT_EQ(harness_set(&h, "model_params", value_integer(10)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK_INT_EQ(h.point.row_count, 4);
    for (size_t r = 0; r < 4 && r < h.point.row_count; r++) {
        CHECK_INT_EQ(harness_integer(&h, r, "total_bytes"), 160);
        CHECK_INT_EQ(harness_integer(&h, r, "comm_bytes_per_step"), 0);
        CHECK(isnan(harness_real(&h, r, "comm_vs_ddp")));
        CHECK(harness_real(&h, r, "reduction_vs_ddp") == 1.0);
        CHECK_INT_EQ(harness_integer(&h, r, "max_params_that_fit"), 5000000000LL);
    }

    /* Declared bounds and choices never reach run(). */
    CHECK_INT_EQ(harness_set(&h, "stages", value_text("zero4")), -1);
    CHECK_INT_EQ(harness_set(&h, "weight_bytes", value_integer(0)), -1);
    CHECK_INT_EQ(harness_set(&h, "workers", value_integer(1000001)), -1);
    CHECK_INT_EQ(harness_set(&h, "gpu_memory_bytes", value_integer(1000000000001LL)), -1);
    harness_free(&h);
}

int main(void)
{
    test_paper_figures();
    test_small_case_by_hand();
    test_monotone_in_stage();
    test_max_params_paper();
    test_max_params_consistency();
    test_overflow();
    test_plugin();
    return check_done("test_memory");
}
