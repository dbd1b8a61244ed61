/* Unit tests for the straggler model (science.md section 3) and its plugin
 * glue, run through the real host (plugin_harness.h). The walk-through's table is asserted as
 * printed where it is exact, and corrected where it was a Monte Carlo draw. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "model.h"
#include "plugin_harness.h"

static const int64_t walk_through_workers[] = { 1, 8, 64, 512 };

static void format(char *out, size_t size, const char *fmt, double value)
{
    snprintf(out, size, fmt, value);
}

static double monte_carlo(uint64_t seed, double jitter, int64_t workers, int64_t trials)
{
    runner_rng rng;
    runner_rng_seed(&rng, seed);
    double mean = NAN;
    CHECK_INT_EQ(straggler_max_delay_mc(&rng, jitter, workers, trials, NULL, NULL, &mean), 0);
    return mean;
}

static void test_exact_values(void)
{
    /* "(Exact E[max]: 1.000, 1.778, 1.969, 1.996.)" for J = 2. */
    static const char *const expected[] = { "1.000", "1.778", "1.969", "1.996" };
    char text[32];
    for (int i = 0; i < 4; i++) {
        format(text, sizeof text, "%.3f", straggler_max_delay_exact(2.0, walk_through_workers[i]));
        CHECK_STR_EQ(text, expected[i]);
    }
    /* One worker: the max is the delay itself, Uniform(0, J): mean J/2, sd J/sqrt(12). */
    CHECK_NEAR(straggler_max_delay_exact(2.0, 1), 1.0, 1e-15);
    CHECK_NEAR(straggler_max_delay_sd(2.0, 1), 2.0 / sqrt(12.0), 1e-15);
    /* Linear in J, and nothing to wait for without jitter. */
    CHECK_NEAR(straggler_max_delay_exact(0.5, 8), 0.25 * straggler_max_delay_exact(2.0, 8), 1e-15);
    CHECK(straggler_max_delay_exact(0.0, 512) == 0.0);
    CHECK(straggler_max_delay_sd(0.0, 512) == 0.0);
    /* The spread of the max shrinks like 1/k: sd(512) = 2 sqrt(512/(513^2 514)). */
    CHECK_NEAR(straggler_max_delay_sd(2.0, 512), 2.0 * sqrt(512.0 / (513.0 * 513.0 * 514.0)), 1e-15);
}

static void test_monte_carlo_within_four_standard_errors(void)
{
    static const uint64_t seeds[] = { 1, 2, 0x5eed5eed5eedULL };
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
        for (int i = 0; i < 4; i++) {
            int64_t k = walk_through_workers[i];
            double stderr_s = straggler_max_delay_sd(2.0, k) / sqrt(4000.0);
            CHECK_NEAR(monte_carlo(seeds[s], 2.0, k, 4000), straggler_max_delay_exact(2.0, k),
                       4.0 * stderr_s);
        }
    /* Other shapes: many rounds of a huge round, and a large J. */
    CHECK_NEAR(monte_carlo(3, 2.0, 100000, 20), straggler_max_delay_exact(2.0, 100000),
               4.0 * straggler_max_delay_sd(2.0, 100000) / sqrt(20.0));
    CHECK_NEAR(monte_carlo(4, 1e6, 3, 100000), straggler_max_delay_exact(1e6, 3),
               4.0 * straggler_max_delay_sd(1e6, 3) / sqrt(100000.0));
}

static void test_walk_through_table(void)
{
    /* k | compute s | max delay s | round s | wait share, base 30 J 2. The
     * walk-through's max delays (0.98 ...) were one Monte Carlo draw; the
     * exact columns are asserted to the printed digit. */
    static const char *const compute[] = { "30.00", "3.75", "0.47", "0.06" };
    static const char *const round_exact[] = { "31.00", "5.53", "2.44", "2.05" };
    static const char *const share[] = { "3", "32", "81", "97" };
    char text[32];
    for (int i = 0; i < 4; i++) {
        int64_t k = walk_through_workers[i];
        straggler_row row;
        straggler_row_fill(&row, 30.0, 2.0, k, 4000, monte_carlo(1, 2.0, k, 4000));
        format(text, sizeof text, "%.2f", row.compute_s);
        CHECK_STR_EQ(text, compute[i]);
        format(text, sizeof text, "%.2f", row.round_exact_s);
        CHECK_STR_EQ(text, round_exact[i]);
        format(text, sizeof text, "%.0f", 100.0 * row.wait_share_exact);
        CHECK_STR_EQ(text, share[i]);
        format(text, sizeof text, "%.0f", 100.0 * row.wait_share);
        CHECK_STR_EQ(text, share[i]);
        CHECK(row.round_s == row.compute_s + row.max_delay_s);
        CHECK_NEAR(row.max_delay_stderr_s, straggler_max_delay_sd(2.0, k) / sqrt(4000.0), 1e-18);
        CHECK_INT_EQ(row.samples, k * 4000);
    }
    /* Nothing to compute and nothing to wait for: the share is undefined. */
    straggler_row row;
    straggler_row_fill(&row, 0.0, 0.0, 8, 10, 0.0);
    CHECK(isnan(row.wait_share) && isnan(row.wait_share_exact));
    CHECK(row.round_s == 0.0);
    /* Only waiting: the whole round is wait. */
    straggler_row_fill(&row, 0.0, 2.0, 8, 10, 1.7);
    CHECK(row.wait_share == 1.0 && row.wait_share_exact == 1.0);
}

static void test_determinism(void)
{
    double a = monte_carlo(42, 2.0, 64, 4000);
    double b = monte_carlo(42, 2.0, 64, 4000);
    double c = monte_carlo(43, 2.0, 64, 4000);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(a != c);
}

static int compare_double(const void *left, const void *right)
{
    double a = *(const double *)left, b = *(const double *)right;
    return (a > b) - (a < b);
}

static void test_second_method(void)
{
    /* Same draws, independent code: k runner_rng_uniform() values per round,
     * sorted, the last one is the max. Its mean must equal the sampler's
     * (which compares raw integers) to rounding, its mean must match J k/(k+1)
     * and its variance the known J^2 k / ((k+1)^2 (k+2)). */
    enum { ROUNDS = 20000 };
    static double draws[512];
    for (int i = 0; i < 4; i++) {
        int64_t k = walk_through_workers[i];
        runner_rng rng;
        runner_rng_seed(&rng, 99);
        double sum = 0.0, sum_squares = 0.0;
        for (int t = 0; t < ROUNDS; t++) {
            for (int64_t j = 0; j < k; j++)
                draws[j] = 2.0 * runner_rng_uniform(&rng);
            qsort(draws, (size_t)k, sizeof draws[0], compare_double);
            sum += draws[k - 1];
            sum_squares += draws[k - 1] * draws[k - 1];
        }
        double mean = sum / ROUNDS;
        double variance = (sum_squares - ROUNDS * mean * mean) / (ROUNDS - 1);
        double exact_sd = straggler_max_delay_sd(2.0, k);

        CHECK_NEAR(monte_carlo(99, 2.0, k, ROUNDS), mean, 1e-12);
        CHECK_NEAR(mean, straggler_max_delay_exact(2.0, k), 4.0 * exact_sd / sqrt(ROUNDS));
        /* The sample variance of 20000 maxima is within ~3% (1 sd) here. */
        CHECK_NEAR(variance / (exact_sd * exact_sd), 1.0, 0.10);
    }
}

static int stop_calls;

static int stop_on_third_call(void *context)
{
    (void)context;
    return ++stop_calls >= 3;
}

static int never_stop(void *context)
{
    (void)context;
    stop_calls++;
    return 0;
}

static void test_interruption(void)
{
    runner_rng rng;
    runner_rng_seed(&rng, 1);
    double mean = -1.0;
    /* 8 workers, 10^6 rounds: 2^17 rounds (2^20 draws) per check, 8 checks. */
    stop_calls = 0;
    CHECK_INT_EQ(straggler_max_delay_mc(&rng, 2.0, 8, 1000000, never_stop, NULL, &mean), 0);
    CHECK_INT_EQ(stop_calls, 8);
    stop_calls = 0;
    mean = -1.0;
    CHECK_INT_EQ(straggler_max_delay_mc(&rng, 2.0, 8, 1000000, stop_on_third_call, NULL, &mean), -1);
    CHECK_INT_EQ(stop_calls, 3);
    CHECK(mean == -1.0);
}

/* The declared contract, as docs/plugins/straggler.md lists it. */
static void test_declarations(const runner_plugin *plugin)
{
    static const struct { const char *name; runner_type type; const char *unit;
                          double def, min, max; } params[] = {
        { "base", RUNNER_REAL, "s", 30, 0, 1e9 },
        { "jitter", RUNNER_REAL, "s", 2, 0, 1e9 },
        { "workers", RUNNER_INTEGER, "workers", 1, 1, 1e7 },
        { "trials", RUNNER_INTEGER, "rounds", 4000, 1, 1e10 },
        { "seed", RUNNER_INTEGER, "", 1, 0, 9007199254740992.0 },
    };
    static const struct { const char *name; runner_type type; const char *unit; } columns[] = {
        { "compute_s", RUNNER_REAL, "s" },
        { "max_delay_s", RUNNER_REAL, "s" },
        { "max_delay_exact_s", RUNNER_REAL, "s" },
        { "max_delay_stderr_s", RUNNER_REAL, "s" },
        { "round_s", RUNNER_REAL, "s" },
        { "round_exact_s", RUNNER_REAL, "s" },
        { "wait_share", RUNNER_REAL, "fraction" },
        { "wait_share_exact", RUNNER_REAL, "fraction" },
        { "samples", RUNNER_INTEGER, "samples" },
    };
    CHECK_INT_EQ(harness_validate(plugin), 0);
    CHECK_STR_EQ(plugin->name, "straggler");
    CHECK_INT_EQ(plugin->param_count, sizeof params / sizeof params[0]);
    CHECK_INT_EQ(plugin->column_count, sizeof columns / sizeof columns[0]);
    for (uint32_t i = 0; i < plugin->param_count && i < sizeof params / sizeof params[0]; i++) {
        CHECK_STR_EQ(plugin->params[i].name, params[i].name);
        CHECK_INT_EQ(plugin->params[i].type, params[i].type);
        CHECK_STR_EQ(plugin->params[i].unit, params[i].unit);
        CHECK(plugin->params[i].default_number == params[i].def);
        CHECK(plugin->params[i].min == params[i].min);
        CHECK(plugin->params[i].max == params[i].max);
    }
    for (uint32_t i = 0; i < plugin->column_count && i < sizeof columns / sizeof columns[0]; i++) {
        CHECK_STR_EQ(plugin->columns[i].name, columns[i].name);
        CHECK_INT_EQ(plugin->columns[i].type, columns[i].type);
        CHECK_STR_EQ(plugin->columns[i].unit, columns[i].unit);
    }
}

static void test_plugin_run(const runner_plugin *plugin)
{
    harness point, again, other;
    harness_init(&point, plugin);
    harness_init(&again, plugin);
    harness_init(&other, plugin);

    /* Defaults: base 30, J 2, one worker, 4000 rounds. */
    CHECK_INT_EQ(harness_run(&point, 0x1234), 0);
    CHECK(point.point.error == NULL);
    CHECK_INT_EQ(point.point.row_count, 1);
    CHECK_INT_EQ(harness_row_problems(&point, 0), 0);
    CHECK_INT_EQ(harness_integer(&point, 0, "samples"), 4000);
    CHECK(harness_real(&point, 0, "compute_s") == 30.0);
    CHECK(harness_real(&point, 0, "max_delay_exact_s") == 1.0);
    CHECK(harness_real(&point, 0, "round_exact_s") == 31.0);
    /* The row's estimate is the model's, on the host's seed: bit-identical. */
    double expected = monte_carlo(0x1234, 2.0, 1, 4000);
    double got = harness_real(&point, 0, "max_delay_s");
    CHECK(memcmp(&expected, &got, sizeof got) == 0);
    CHECK_NEAR(got, 1.0, 4.0 * harness_real(&point, 0, "max_delay_stderr_s"));
    /* Every column carries the model's field of the same name. */
    straggler_row row;
    straggler_row_fill(&row, 30.0, 2.0, 1, 4000, expected);
    CHECK(harness_real(&point, 0, "compute_s") == row.compute_s);
    CHECK(harness_real(&point, 0, "max_delay_exact_s") == row.max_delay_exact_s);
    CHECK(harness_real(&point, 0, "max_delay_stderr_s") == row.max_delay_stderr_s);
    CHECK(harness_real(&point, 0, "round_s") == row.round_s);
    CHECK(harness_real(&point, 0, "round_exact_s") == row.round_exact_s);
    CHECK(harness_real(&point, 0, "wait_share") == row.wait_share);
    CHECK(harness_real(&point, 0, "wait_share_exact") == row.wait_share_exact);
    CHECK(harness_real(&point, 0, "round_s") != harness_real(&point, 0, "round_exact_s"));

    /* Same point, same seed: the same row to the bit; another seed differs. */
    CHECK_INT_EQ(harness_run(&again, 0x1234), 0);
    CHECK_INT_EQ(harness_run(&other, 0x1235), 0);
    CHECK(harness_rows_identical(&point, &again));
    CHECK(harness_real(&point, 0, "max_delay_s") != harness_real(&other, 0, "max_delay_s"));
    harness_free(&again);
    harness_free(&other);

    /* The walk-through's k = 512 row through the glue. */
    CHECK_INT_EQ(harness_set(&point, "workers", value_integer(512)), 0);
    CHECK_INT_EQ(harness_run(&point, 7), 0);
    CHECK_INT_EQ(harness_integer(&point, 0, "samples"), 512 * 4000);
    CHECK_NEAR(harness_real(&point, 0, "max_delay_s"), 1.996101,
               4.0 * harness_real(&point, 0, "max_delay_stderr_s"));
    CHECK_NEAR(harness_real(&point, 0, "wait_share_exact"), 0.97148, 1e-5);

    /* Ctrl-C: the point fails with "interrupted" and emits nothing. */
    point.stop = 1;
    CHECK_INT_EQ(harness_run(&point, 7), -1);
    CHECK_STR_EQ(point.point.error, "interrupted");
    CHECK_INT_EQ(point.point.row_count, 0);
    point.stop = 0;

    /* base 0, J 0: NaN shares are emitted as values, not left NULL. */
    CHECK_INT_EQ(harness_set(&point, "workers", value_integer(1)), 0);
    CHECK_INT_EQ(harness_set(&point, "base", value_real(0)), 0);
    CHECK_INT_EQ(harness_set(&point, "jitter", value_real(0)), 0);
    CHECK_INT_EQ(harness_run(&point, 7), 0);
    CHECK_INT_EQ(harness_row_problems(&point, 0), 0);
    CHECK(isnan(harness_real(&point, 0, "wait_share")));
    CHECK(harness_real(&point, 0, "max_delay_s") == 0.0);

    /* The host, not run(), rejects out-of-range values. */
    CHECK_INT_EQ(harness_set(&point, "workers", value_integer(0)), -1);
    CHECK_STR_EQ(point.message, "workers: 0 is out of range [1, 10000000] workers");
    CHECK_INT_EQ(harness_set(&point, "trials", value_integer(0)), -1);
    CHECK_INT_EQ(harness_set(&point, "jitter", value_real(-1)), -1);
    harness_free(&point);
}

int main(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    test_exact_values();
    test_monte_carlo_within_four_standard_errors();
    test_walk_through_table();
    test_determinism();
    test_second_method();
    test_interruption();
    test_declarations(plugin);
    test_plugin_run(plugin);
    return check_done("test_straggler");
}
