/* Unit tests for the speedup model (docs/science.md section 5) and its plugin
 * glue, run through the real host (plugin_harness.h). The walk-through's
 * speedups were printed from Monte Carlo waits; they are asserted to within
 * 0.02, and the exact values to the digit. The combined round is checked
 * against the ring all-reduce worked by hand, and its limits against rows
 * at very many workers. */
#include <stdarg.h>
#include <stdint.h>

#include "check.h"
#include "model.h"
#include "plugin_harness.h"

static speedup_row exact_row(double base, double jitter, int64_t workers)
{
    speedup_row row;
    speedup_row_fill(&row, base, jitter, workers, straggler_max_delay_exact(jitter, 1),
                     straggler_max_delay_exact(jitter, workers));
    return row;
}

/* snprintf, checked by the compiler at each call (-Wformat=2). */
__attribute__((format(printf, 3, 4))) static void format(char *out, size_t size, const char *fmt,
                                                         ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(out, size, fmt, args);
    va_end(args);
}

static void test_walk_through_speedups(void)
{
    /* base 30, J 2: k = 2 ... 512 -> 1.90, 3.40, 5.60, 8.25, 12.71, 14.69,
     * 15.08 as printed; exact waits give 1.90, 3.41, 5.61, 8.25, 12.72,
     * 14.70, 15.09. */
    static const int64_t workers[] = { 2, 4, 8, 16, 64, 256, 512 };
    static const double printed[] = { 1.90, 3.40, 5.60, 8.25, 12.71, 14.69, 15.08 };
    static const char *const exact[] = {
        "1.90", "3.41", "5.61", "8.25", "12.72", "14.70", "15.09"
    };
    char text[32];
    CHECK(exact_row(30, 2, 1).speedup == 1.0);
    for (int i = 0; i < 7; i++) {
        speedup_row row = exact_row(30, 2, workers[i]);
        CHECK_NEAR(row.speedup, printed[i], 0.02);
        format(text, sizeof text, "%.2f", row.speedup);
        CHECK_STR_EQ(text, exact[i]);
        /* T1 = 31 s; T_k = 30/k + 2k/(k+1). */
        double k = (double)workers[i];
        CHECK_NEAR(row.speedup, 31.0 / (30.0 / k + 2.0 * k / (k + 1.0)), 1e-13);
        CHECK(row.t1_s == 31.0);
        CHECK(row.compute_s == 30.0 / k);
        CHECK(row.round_s == row.compute_s + row.wait_s);
        CHECK(row.efficiency == row.speedup / k);
    }
    /* The printed figures are exactly what the walk-through's own Monte
     * Carlo W(1) = 0.98 s (section 3's table) gives with exact W(k). */
    for (int i = 0; i < 7; i++) {
        speedup_row row;
        speedup_row_fill(&row, 30, 2, workers[i], 0.98, straggler_max_delay_exact(2, workers[i]));
        char as_printed[32];
        format(text, sizeof text, "%.2f", row.speedup);
        format(as_printed, sizeof as_printed, "%.2f", printed[i]);
        CHECK_STR_EQ(text, as_printed);
    }
    /* "efficiency at 512: 2.9%" - under 3%. */
    format(text, sizeof text, "%.1f", 100.0 * exact_row(30, 2, 512).efficiency);
    CHECK_STR_EQ(text, "2.9");
    /* More workers never break the ceiling: 1e7 workers get within 0.01. */
    speedup_row many = exact_row(30, 2, 10000000);
    CHECK(many.speedup < many.ceiling && many.speedup > many.ceiling - 0.01);
}

static void test_ceilings(void)
{
    /* Exact limit (base + J/2) / J vs the walk-through's Amdahl base / J. */
    CHECK(speedup_ceiling(30, 2) == 15.5);
    CHECK(speedup_ceiling_amdahl(30, 2) == 15.0);
    /* "With J = 0.5 the ceiling rises to 60.5 (~ 60)." */
    CHECK(speedup_ceiling(30, 0.5) == 60.5);
    CHECK(speedup_ceiling_amdahl(30, 0.5) == 60.0);
    /* No jitter, no ceiling. */
    CHECK(isinf(speedup_ceiling(30, 0)) && speedup_ceiling(30, 0) > 0);
    CHECK(isinf(speedup_ceiling_amdahl(30, 0)) && speedup_ceiling_amdahl(30, 0) > 0);
    CHECK(isinf(speedup_ceiling(0, 0)) && isinf(speedup_ceiling_amdahl(0, 0)));
    /* Every row carries the same ceilings. */
    CHECK(exact_row(30, 2, 8).ceiling == 15.5 && exact_row(30, 2, 8).ceiling_amdahl == 15.0);
}

static void test_karp_flatt(void)
{
    static const int64_t workers[] = { 2, 4, 8, 16, 64, 256, 512, 10000000 };
    CHECK(isnan(exact_row(30, 2, 1).karp_flatt));
    CHECK(isnan(speedup_karp_flatt(1.0, 1)));
    CHECK(isnan(speedup_karp_flatt(0.99, 1))); /* not -inf from a noisy S */
    for (int i = 0; i < 8; i++) {
        /* Closed form with exact waits: e = (k W(k) - W(1)) / ((k - 1) T1)
         * = J (k^2/(k+1) - 1/2) / ((k - 1)(base + J/2)). */
        double k = (double)workers[i];
        double closed = 2.0 * (k * k / (k + 1.0) - 0.5) / ((k - 1.0) * 31.0);
        double e = exact_row(30, 2, workers[i]).karp_flatt;
        CHECK_NEAR(e, closed, 1e-12 * closed);
    }
    /* It grows toward J / T1 = 2/31 = 6.45%: the wait is the serial part. */
    CHECK_NEAR(exact_row(30, 2, 512).karp_flatt, 0.0644532, 1e-7);
    /* No jitter: perfectly parallel, S = k, e = 0 (to rounding). */
    speedup_row ideal = exact_row(30, 0, 64);
    CHECK_NEAR(ideal.speedup, 64.0, 1e-12);
    CHECK_NEAR(ideal.karp_flatt, 0.0, 1e-15);
}

static void test_gustafson(void)
{
    /* k - (k - 1) s with s = W(k) / T_k. */
    CHECK(exact_row(30, 2, 1).gustafson == 1.0);
    speedup_row row = exact_row(30, 2, 512);
    double serial = row.wait_s / row.round_s;
    CHECK_NEAR(row.gustafson, 512.0 - 511.0 * serial, 1e-12);
    CHECK_NEAR(serial, 0.971483, 1e-6);
    CHECK(exact_row(30, 0, 64).gustafson == 64.0);
}

static void test_degenerate(void)
{
    /* base = J = 0: no round, so no speedup - NaN, not 0 or inf. */
    speedup_row row = exact_row(0, 0, 8);
    CHECK(isnan(row.speedup) && isnan(row.efficiency) && isnan(row.karp_flatt) &&
          isnan(row.gustafson));
    /* base = 0: only waiting. One worker waits J/2, k workers J k/(k+1). */
    row = exact_row(0, 2, 8);
    CHECK_NEAR(row.speedup, 9.0 / 16.0, 1e-15);
    CHECK(row.ceiling == 0.5 && row.ceiling_amdahl == 0.0);
}

/* The combined model's setup: ResNet-101-like gradient, 25 Gb/s. */
static speedup_setup combined(speedup_scaling scaling, double base, double jitter, int64_t workers)
{
    speedup_setup setup = {
        .model = SPEEDUP_MODEL_COMBINED,
        .scaling = scaling,
        .base = base,
        .jitter = jitter,
        .workers = workers,
        .copy_bytes = 178e6, /* 44.5e6 float32 */
        .net = { 5e-6, 3.125e9, 1e11, 1 },
    };
    return setup;
}

static speedup_row exact_setup_row(const speedup_setup *setup)
{
    speedup_row row;
    speedup_row_fill_setup(&row, setup, straggler_max_delay_exact(setup->jitter, 1),
                           straggler_max_delay_exact(setup->jitter, setup->workers));
    return row;
}

#define CHECK_REL(a, b) CHECK_NEAR((a), (b), 1e-13 * fabs(b))

static void test_combined_round(void)
{
    /* k = 8, n = 178e6 B, by hand: ring 14 alpha = 7e-5 s,
     * 2 n 7/8 / 3.125e9 = 0.09968 s, n 7/8 / 1e11 = 0.0015575 s. */
    speedup_setup setup = combined(SPEEDUP_SCALING_STRONG, 30, 2, 8);
    speedup_row row = exact_setup_row(&setup);
    double comm = 7e-5 + 0.09968 + 0.0015575;
    double round = 3.75 + comm + 16.0 / 9.0;
    CHECK_REL(speedup_comm_s(&setup.net, 178e6, 8), comm);
    CHECK_REL(row.comm_s, comm);
    CHECK(row.compute_s == 3.75);
    CHECK_REL(row.round_s, round);
    CHECK(row.t1_s == 31.0); /* one worker sends nothing */
    CHECK_REL(row.speedup, 31.0 / round);
    CHECK_REL(row.efficiency, 31.0 / round / 8.0);
    CHECK_REL(row.comm_share, comm / round);
    CHECK_REL(row.gustafson, 8.0 - 7.0 * (16.0 / 9.0 + comm) / round);
    CHECK_REL(row.karp_flatt, (round / 31.0 - 0.125) / 0.875);
    CHECK(isnan(row.ceiling_amdahl));
    /* Communication only costs: below the walk-through's speedup. */
    CHECK(row.speedup < exact_row(30, 2, 8).speedup);
    /* One worker: no exchange, the walk-through's row. */
    setup.workers = 1;
    row = exact_setup_row(&setup);
    CHECK(row.comm_s == 0.0 && row.speedup == 1.0 && row.comm_share == 0.0);

    /* A free network (no latency, infinite bandwidths) is the walk-through. */
    static const int64_t workers[] = { 1, 2, 8, 512 };
    for (int i = 0; i < 4; i++) {
        setup = combined(SPEEDUP_SCALING_STRONG, 30, 2, workers[i]);
        setup.net = (comm_net){ 0.0, HUGE_VAL, HUGE_VAL, 1 };
        speedup_row free_net = exact_setup_row(&setup), walk = exact_row(30, 2, workers[i]);
        CHECK(free_net.comm_s == 0.0);
        CHECK(free_net.speedup == walk.speedup && free_net.round_s == walk.round_s);
        CHECK(free_net.gustafson == walk.gustafson);
        CHECK(free_net.ceiling == walk.ceiling);
    }

    /* Weak scaling, walk-through: each worker keeps base = 30 s, so
     * S = k T1 / T_k = 8 x 31 / (30 + 16/9) and the efficiency T1 / T_k. */
    setup = (speedup_setup){ .model = SPEEDUP_MODEL_WALKTHROUGH,
                             .scaling = SPEEDUP_SCALING_WEAK,
                             .base = 30,
                             .jitter = 2,
                             .workers = 8,
                             .copy_bytes = 0,
                             .net = { 0, 1, 1, 1 } };
    row = exact_setup_row(&setup);
    CHECK(row.compute_s == 30.0);
    CHECK_REL(row.speedup, 8.0 * 31.0 / (30.0 + 16.0 / 9.0));
    CHECK_REL(row.efficiency, 31.0 / (30.0 + 16.0 / 9.0));
    CHECK(isinf(row.ceiling) && isnan(row.ceiling_amdahl));

    /* Weak scaling, combined, ResNet-101-like at 512 GPUs, 0.5 s of compute
     * per step, no jitter. By hand: 2 x 511 alpha = 5.11e-3 s,
     * 2 n 511/512 / 3.125e9 = 0.1136975 s, n 511/512 / 1e11
     * = 0.0017765234375 s; efficiency 0.5 / (0.5 + comm). */
    setup = combined(SPEEDUP_SCALING_WEAK, 0.5, 0, 512);
    row = exact_setup_row(&setup);
    comm = 5.11e-3 + 0.1136975 + 0.0017765234375;
    CHECK_REL(row.comm_s, comm);
    CHECK_REL(row.efficiency, 0.5 / (0.5 + comm));
    CHECK_NEAR(row.efficiency, 0.8057, 1e-4); /* below Horovod's ~90%: no overlap */
}

static void test_combined_ceilings(void)
{
    /* Strong, alpha > 0: the ring's 2 (k-1) alpha grows without bound, so
     * the speedup peaks and falls back towards 0. */
    speedup_setup setup = combined(SPEEDUP_SCALING_STRONG, 30, 2, 1);
    CHECK(speedup_ceiling_of(&setup) == 0.0);
    setup.workers = 1000;
    double s1000 = exact_setup_row(&setup).speedup;
    setup.workers = 1000000;
    double s1e6 = exact_setup_row(&setup).speedup;
    CHECK(s1e6 < s1000 && s1e6 < 31.0 / (2.0 * 999999.0 * 5e-6));

    /* Strong, alpha = 0: T_k -> n (2 beta + gamma) + J. */
    setup.net.latency_s = 0.0;
    double limit = 31.0 / (178e6 * (2.0 / 3.125e9 + 1.0 / 1e11) + 2.0);
    CHECK_REL(speedup_ceiling_of(&setup), limit);
    setup.workers = 10000000;
    speedup_row many = exact_setup_row(&setup);
    CHECK(many.ceiling == speedup_ceiling_of(&setup));
    CHECK(many.speedup < limit && many.speedup > limit * (1.0 - 1e-5));

    /* Weak, alpha > 0: k T1 / (base + 2 (k-1) alpha + ...) -> T1 / (2 alpha). */
    setup = combined(SPEEDUP_SCALING_WEAK, 30, 2, 10000000);
    setup.net.latency_s = 1e-3;
    CHECK_REL(speedup_ceiling_of(&setup), 31.0 / 2e-3);
    many = exact_setup_row(&setup);
    CHECK(many.speedup < 15500.0 && many.speedup > 0.99 * 15500.0);
    setup.net.latency_s = 0.0;
    CHECK(isinf(speedup_ceiling_of(&setup)));
}

/* The declared contract, as docs/plugins/speedup.md lists it. */
static void test_declarations(const runner_plugin *plugin)
{
    static const struct {
        const char *name;
        runner_type type;
        const char *unit;
        double def, min, max;
    } params[] = {
        { "base", RUNNER_REAL, "s", 30, 0, 1e9 },
        { "jitter", RUNNER_REAL, "s", 2, 0, 1e9 },
        { "workers", RUNNER_INTEGER, "workers", 1, 1, 1e7 },
        { "trials", RUNNER_INTEGER, "rounds", 0, 0, 1e10 },
        { "model", RUNNER_TEXT, "", 0, 0, 0 },
        { "scaling", RUNNER_TEXT, "", 0, 0, 0 },
        { "model_params", RUNNER_INTEGER, "params", 44500000, 1, 1e15 },
        { "bytes_per_param", RUNNER_INTEGER, "bytes", 4, 1, 64 },
        { "latency_s", RUNNER_REAL, "s", 5e-6, 0, 1e3 },
        { "bandwidth_bytes_per_s", RUNNER_REAL, "bytes/s", 3.125e9, 1, 1e15 },
        { "reduce_bytes_per_s", RUNNER_REAL, "bytes/s", 1e11, 1, 1e15 },
    };
    static const struct {
        const char *name;
        runner_type type;
        const char *unit;
    } columns[] = {
        { "wait_s", RUNNER_REAL, "s" },
        { "round_s", RUNNER_REAL, "s" },
        { "speedup", RUNNER_REAL, "" },
        { "efficiency", RUNNER_REAL, "fraction" },
        { "ceiling", RUNNER_REAL, "" },
        { "ceiling_amdahl", RUNNER_REAL, "" },
        { "karp_flatt", RUNNER_REAL, "fraction" },
        { "t1_s", RUNNER_REAL, "s" },
        { "compute_s", RUNNER_REAL, "s" },
        { "gustafson", RUNNER_REAL, "" },
        { "comm_s", RUNNER_REAL, "s" },
        { "comm_share", RUNNER_REAL, "fraction" },
    };
    CHECK_INT_EQ(harness_validate(plugin), 0);
    CHECK_STR_EQ(plugin->name, "speedup");
    CHECK_INT_EQ(plugin->param_count, sizeof params / sizeof params[0]);
    CHECK_INT_EQ(plugin->column_count, sizeof columns / sizeof columns[0]);
    for (uint32_t i = 0; i < plugin->param_count && i < sizeof params / sizeof params[0]; i++) {
        CHECK_STR_EQ(plugin->params[i].name, params[i].name);
        CHECK_INT_EQ(plugin->params[i].type, params[i].type);
        CHECK_STR_EQ(plugin->params[i].unit, params[i].unit);
        if (params[i].type == RUNNER_TEXT)
            continue;
        CHECK(plugin->params[i].default_number == params[i].def);
        CHECK(plugin->params[i].min == params[i].min);
        CHECK(plugin->params[i].max == params[i].max);
    }
    /* The defaults keep the walk-through's rows. */
    CHECK_STR_EQ(plugin->params[4].default_text, "walkthrough");
    CHECK_STR_EQ(plugin->params[5].default_text, "strong");
    for (uint32_t i = 0; i < plugin->column_count && i < sizeof columns / sizeof columns[0]; i++) {
        CHECK_STR_EQ(plugin->columns[i].name, columns[i].name);
        CHECK_INT_EQ(plugin->columns[i].type, columns[i].type);
        CHECK_STR_EQ(plugin->columns[i].unit, columns[i].unit);
    }
}

/* Runs h (base at its default, 30 s) at the given jitter, workers and
 * trials; expects one complete row. */
static void run_point(harness *h, uint64_t seed, double jitter, int64_t workers, int64_t trials)
{
    CHECK_INT_EQ(harness_set(h, "jitter", value_real(jitter)), 0);
    CHECK_INT_EQ(harness_set(h, "workers", value_integer(workers)), 0);
    CHECK_INT_EQ(harness_set(h, "trials", value_integer(trials)), 0);
    CHECK_INT_EQ(harness_run(h, seed), 0);
    CHECK(h->point.error == NULL);
    CHECK_INT_EQ(h->point.row_count, 1);
    if (h->point.row_count == 1)
        CHECK_INT_EQ(harness_row_problems(h, 0), 0);
}

static void test_plugin_exact_mode(const runner_plugin *plugin)
{
    harness point, other;
    harness_init(&point, plugin);
    harness_init(&other, plugin);
    /* trials = 0 (the default): exact waits, no randomness, seed irrelevant. */
    run_point(&point, 1, 2, 512, 0);
    run_point(&other, 2, 2, 512, 0);
    CHECK(harness_rows_identical(&point, &other));
    CHECK_NEAR(harness_real(&point, 0, "speedup"), 15.0874, 1e-4);
    CHECK(harness_real(&point, 0, "ceiling") == 15.5);
    CHECK(harness_real(&point, 0, "ceiling_amdahl") == 15.0);
    /* Every column carries the model's field of the same name. */
    speedup_row row = exact_row(30, 2, 512);
    CHECK(harness_real(&point, 0, "wait_s") == row.wait_s);
    CHECK(harness_real(&point, 0, "round_s") == row.round_s);
    CHECK(harness_real(&point, 0, "speedup") == row.speedup);
    CHECK(harness_real(&point, 0, "efficiency") == row.efficiency);
    CHECK(harness_real(&point, 0, "karp_flatt") == row.karp_flatt);
    CHECK(harness_real(&point, 0, "t1_s") == row.t1_s);
    CHECK(harness_real(&point, 0, "compute_s") == row.compute_s);
    CHECK(harness_real(&point, 0, "gustafson") == row.gustafson);
    /* No long loop, so nothing to interrupt: a raised stop flag changes
     * nothing. */
    other.stop = 1;
    CHECK_INT_EQ(harness_run(&other, 2), 0);
    CHECK(harness_rows_identical(&point, &other));
    harness_free(&other);

    /* One worker: Karp-Flatt is emitted as NaN, not left NULL. */
    run_point(&point, 1, 2, 1, 0);
    CHECK(isnan(harness_real(&point, 0, "karp_flatt")));
    CHECK(harness_real(&point, 0, "speedup") == 1.0);

    /* J = 0: the ceilings are +inf. */
    run_point(&point, 1, 0, 8, 0);
    CHECK(isinf(harness_real(&point, 0, "ceiling")) &&
          isinf(harness_real(&point, 0, "ceiling_amdahl")));
    harness_free(&point);
}

static void test_plugin_monte_carlo_mode(const runner_plugin *plugin)
{
    harness point, again, other;
    static const int64_t workers[] = { 1, 8, 512 };
    harness_init(&point, plugin);
    harness_init(&again, plugin);
    harness_init(&other, plugin);
    for (int i = 0; i < 3; i++) {
        int64_t k = workers[i];
        speedup_row exact = exact_row(30, 2, k);
        run_point(&point, 77, 2, k, 4000);
        double se_1 = straggler_max_delay_sd(2, 1) / sqrt(4000.0);
        double se_k = straggler_max_delay_sd(2, k) / sqrt(4000.0);
        CHECK_NEAR(harness_real(&point, 0, "wait_s"), exact.wait_s, 4.0 * se_k);
        CHECK_NEAR(harness_real(&point, 0, "t1_s"), exact.t1_s, 4.0 * se_1);
        /* First-order error of T1 / T_k: S (dT1/T1 + dT_k/T_k). */
        CHECK_NEAR(harness_real(&point, 0, "speedup"), exact.speedup,
                   4.0 * exact.speedup * (se_1 / exact.t1_s + se_k / exact.round_s));
        if (k == 1) {
            /* T_1 is T1: the same estimate, so S(1) = 1 and e is NaN. */
            CHECK(harness_real(&point, 0, "speedup") == 1.0);
            CHECK(isnan(harness_real(&point, 0, "karp_flatt")));
        }
        /* The ceilings are properties of the model, not of the draw. */
        CHECK(harness_real(&point, 0, "ceiling") == 15.5);
    }
    /* At 512 workers and 4000 rounds the estimate's standard error is about
     * 0.005 (almost all of it from W(1)), so the walk-through's 15.08 and the
     * exact 15.09 are both ordinary draws. */
    double se_speedup =
        exact_row(30, 2, 512).speedup *
        (straggler_max_delay_sd(2, 1) / sqrt(4000.0) / 31.0 +
         straggler_max_delay_sd(2, 512) / sqrt(4000.0) / exact_row(30, 2, 512).round_s);
    CHECK(se_speedup > 0.004 && se_speedup < 0.006);

    /* Same seed, bit-identical row; another seed, another estimate. */
    run_point(&point, 5, 2, 64, 4000);
    run_point(&again, 5, 2, 64, 4000);
    run_point(&other, 6, 2, 64, 4000);
    CHECK(harness_rows_identical(&point, &again));
    CHECK(harness_real(&point, 0, "speedup") != harness_real(&other, 0, "speedup"));
    harness_free(&again);
    harness_free(&other);

    /* W(1) then W(k) from one stream seeded by the host. */
    runner_rng rng;
    runner_rng_seed(&rng, 5);
    double wait_1, wait_k;
    CHECK_INT_EQ(straggler_max_delay_mc(&rng, 2, 1, 4000, NULL, NULL, &wait_1), 0);
    CHECK_INT_EQ(straggler_max_delay_mc(&rng, 2, 64, 4000, NULL, NULL, &wait_k), 0);
    CHECK(harness_real(&point, 0, "t1_s") == 30.0 + wait_1);
    CHECK(harness_real(&point, 0, "wait_s") == wait_k);

    /* Ctrl-C during the estimate: the point fails and emits nothing. */
    point.stop = 1;
    CHECK_INT_EQ(harness_run(&point, 5), -1);
    CHECK_STR_EQ(point.point.error, "speedup: interrupted");
    CHECK_INT_EQ(point.point.row_count, 0);
    harness_free(&point);
}

static void test_plugin_combined(const runner_plugin *plugin)
{
    harness point, again;
    harness_init(&point, plugin);
    harness_init(&again, plugin);
    /* The walk-through's rows carry no communication. */
    run_point(&point, 1, 2, 8, 0);
    CHECK(harness_real(&point, 0, "comm_s") == 0.0);
    CHECK(harness_real(&point, 0, "comm_share") == 0.0);

    CHECK_INT_EQ(harness_set(&point, "model", value_text("combined")), 0);
    run_point(&point, 1, 2, 8, 0);
    speedup_setup setup = combined(SPEEDUP_SCALING_STRONG, 30, 2, 8);
    speedup_row row = exact_setup_row(&setup);
    CHECK_REL(harness_real(&point, 0, "comm_s"), 7e-5 + 0.09968 + 0.0015575);
    CHECK(harness_real(&point, 0, "comm_s") == row.comm_s);
    CHECK(harness_real(&point, 0, "speedup") == row.speedup);
    CHECK(harness_real(&point, 0, "comm_share") == row.comm_share);
    CHECK(harness_real(&point, 0, "ceiling") == 0.0);
    CHECK(isnan(harness_real(&point, 0, "ceiling_amdahl")));

    /* Weak scaling, VGG-16-like: 138e6 float32 parameters. */
    CHECK_INT_EQ(harness_set(&point, "scaling", value_text("weak")), 0);
    CHECK_INT_EQ(harness_set(&point, "model_params", value_integer(138000000)), 0);
    CHECK_INT_EQ(harness_set(&point, "base", value_real(0.5)), 0);
    run_point(&point, 1, 0, 512, 0);
    setup = combined(SPEEDUP_SCALING_WEAK, 0.5, 0, 512);
    setup.copy_bytes = 552e6;
    row = exact_setup_row(&setup);
    CHECK(harness_real(&point, 0, "efficiency") == row.efficiency);
    CHECK(harness_real(&point, 0, "compute_s") == 0.5);
    CHECK_REL(harness_real(&point, 0, "comm_s"),
              5.11e-3 + 2.0 * 552e6 * 511.0 / 512.0 / 3.125e9 + 552e6 * 511.0 / 512.0 / 1e11);

    /* Monte Carlo waits with communication: same seed, same row. */
    CHECK_INT_EQ(harness_set(&again, "model", value_text("combined")), 0);
    CHECK_INT_EQ(harness_set(&point, "scaling", value_text("strong")), 0);
    CHECK_INT_EQ(harness_set(&point, "model_params", value_integer(44500000)), 0);
    CHECK_INT_EQ(harness_set(&point, "base", value_real(30)), 0);
    run_point(&point, 9, 2, 64, 4000);
    run_point(&again, 9, 2, 64, 4000);
    CHECK(harness_rows_identical(&point, &again));
    CHECK(harness_real(&point, 0, "comm_s") == speedup_comm_s(&setup.net, 178e6, 64));
    CHECK_INT_EQ(harness_set(&point, "model", value_text("amdahl")), -1);
    harness_free(&again);
    harness_free(&point);
}

int main(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    test_walk_through_speedups();
    test_ceilings();
    test_karp_flatt();
    test_gustafson();
    test_degenerate();
    test_combined_round();
    test_combined_ceilings();
    test_declarations(plugin);
    test_plugin_exact_mode(plugin);
    test_plugin_monte_carlo_mode(plugin);
    test_plugin_combined(plugin);
    return check_done("test_speedup");
}
