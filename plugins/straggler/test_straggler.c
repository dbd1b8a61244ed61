/* Unit tests for the straggler model (docs/science.md section 3 and "Beyond")
 * and its plugin glue, run through the real host (plugin_harness.h). The
 * walk-through's table is asserted as printed where it is exact, and
 * corrected where it was a Monte Carlo draw. Every closed form is checked
 * against Monte Carlo within 4 standard errors, and the Monte Carlo samplers
 * against independent ones (sort, Box-Muller, an event-driven SSP). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "straggler_model.h"
#include "plugin_harness.h"

static const int64_t walk_through_workers[] = { 1, 8, 64, 512 };

/* snprintf, checked by the compiler at each call (-Wformat=2). */
__attribute__((format(printf, 3, 4))) static void format(char *out, size_t size, const char *fmt,
                                                         ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(out, size, fmt, args);
    va_end(args);
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
    CHECK_NEAR(straggler_max_delay_sd(2.0, 512), 2.0 * sqrt(512.0 / (513.0 * 513.0 * 514.0)),
               1e-15);
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
    enum {
        ROUNDS = 20000
    };
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
    CHECK_INT_EQ(straggler_max_delay_mc(&rng, 2.0, 8, 1000000, stop_on_third_call, NULL, &mean),
                 -1);
    CHECK_INT_EQ(stop_calls, 3);
    CHECK(mean == -1.0);
}

/* --- Beyond the walk-through: delay laws, backups, bounded staleness --- */

#define PI 3.14159265358979323846
#define MC_ROUNDS 20000

static straggler_delay law_of(straggler_law law, double scale, double shape)
{
    straggler_delay delay = { law, scale, shape };
    return delay;
}

static straggler_mc sync_run(uint64_t seed, straggler_delay delay, int64_t workers, int64_t backups,
                             int64_t trials)
{
    runner_rng rng;
    runner_rng_seed(&rng, seed);
    straggler_mc mc;
    memset(&mc, 0, sizeof mc);
    CHECK_INT_EQ(straggler_sync_mc(&rng, &delay, workers, backups, trials, NULL, NULL, &mc), 0);
    return mc;
}

static straggler_mc ssp_run(uint64_t seed, straggler_delay delay, double compute_s, int64_t workers,
                            int64_t staleness, int64_t trials)
{
    runner_rng rng;
    runner_rng_seed(&rng, seed);
    straggler_mc mc;
    memset(&mc, 0, sizeof mc);
    CHECK_INT_EQ(
        straggler_ssp_mc(&rng, &delay, compute_s, workers, staleness, trials, NULL, NULL, &mc), 0);
    return mc;
}

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static double exact_of(straggler_law law, double scale, double shape, int64_t rank, int64_t n)
{
    straggler_delay delay = law_of(law, scale, shape);
    return straggler_order_stat_exact(&delay, rank, n);
}

static double sd_of(straggler_law law, double scale, double shape, int64_t rank, int64_t n)
{
    straggler_delay delay = law_of(law, scale, shape);
    return straggler_order_stat_sd(&delay, rank, n);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_harmonic_numbers(void)
{
    CHECK(straggler_harmonic(0) == 0.0);
    CHECK(straggler_harmonic(1) == 1.0);
    CHECK_NEAR(straggler_harmonic(4), 25.0 / 12.0, 1e-15);
    CHECK_NEAR(straggler_harmonic(10), 7381.0 / 2520.0, 1e-15);
    /* Against long double sums, on both sides of the switch to the series. */
    static const int64_t lengths[] = { 64, 4096, 4097, 5000, 100000, 10000000 };
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        long double sum = 0.0L, squares = 0.0L;
        for (int64_t j = lengths[i]; j >= 1; j--) {
            sum += 1.0L / (long double)j;
            squares += 1.0L / ((long double)j * (long double)j);
        }
        CHECK_NEAR(straggler_harmonic(lengths[i]), (double)sum, 2e-15 * (double)sum);
        CHECK_NEAR(straggler_harmonic2_span(0, lengths[i]), (double)squares, 2e-15);
    }
    /* Spans, as backups use them: H_(k+b) - H_b, short and long. */
    static const int64_t spans[][2] = { { 2, 66 }, { 10, 5000 }, { 3, 9000000 }, { 5000, 20000 } };
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        long double sum = 0.0L, squares = 0.0L;
        for (int64_t j = spans[i][1]; j > spans[i][0]; j--) {
            sum += 1.0L / (long double)j;
            squares += 1.0L / ((long double)j * (long double)j);
        }
        CHECK_NEAR(straggler_harmonic_span(spans[i][0], spans[i][1]), (double)sum,
                   4e-15 * (double)sum);
        CHECK_NEAR(straggler_harmonic2_span(spans[i][0], spans[i][1]), (double)squares,
                   4e-15 * (double)squares);
    }
    CHECK_NEAR(straggler_harmonic2_span(0, 3), 49.0 / 36.0, 1e-15);
    /* The limits: sum 1/i^2 -> pi^2/6 (tail 1/n - 1/(2n^2)), H_n - ln n -> gamma. */
    CHECK_NEAR(straggler_harmonic2_span(0, 100000000), PI * PI / 6.0 - 1e-8 + 0.5e-16, 1e-15);
    CHECK_NEAR(straggler_harmonic(1000000000) - log(1e9), 0.5772156649015329 + 0.5e-9, 1e-14);
}

static void test_log_gamma_ratio(void)
{
    /* Against lgamma (this test is single-threaded; the model cannot use it). */
    static const double xs[] = { 0.7, 1.0, 1.5, 2.5, 3.0, 19.9, 20.0, 21.3, 65.0, 1000.5, 1e6 };
    static const double cs[] = { 0.0, 0.1, 0.4, 0.5, 2.0 / 3.0, 1.0, 1.9 };
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (size_t j = 0; j < sizeof cs / sizeof cs[0]; j++) {
            double x = xs[i], c = cs[j];
            if (x - c <= 0.0)
                continue;
            double reference = lgamma(x) - lgamma(x - c);
            double slack = 4e-16 * (fabs(lgamma(x)) + fabs(lgamma(x - c))) + 1e-14;
            CHECK_NEAR(straggler_log_gamma_ratio(x, c), reference, slack);
        }
    /* Exact identities, where lgamma would lose digits: G(x) = (x-1)(x-2) G(x-2). */
    CHECK_NEAR(straggler_log_gamma_ratio(1e6, 1.0), log(999999.0), 1e-15 * log(1e6));
    CHECK_NEAR(straggler_log_gamma_ratio(1e9, 2.0), log((1e9 - 1.0) * (1e9 - 2.0)), 1e-14);
    CHECK_NEAR(straggler_log_gamma_ratio(2.0, 0.5), log(2.0 / sqrt(PI)), 1e-15);
    CHECK(straggler_log_gamma_ratio(12345.0, 0.0) == 0.0);
}

static void test_normal_quantile(void)
{
    /* Reference values from mpmath (sqrt(2) erfinv(2p - 1), 30 digits), for
     * the decimal p; the double nearest 0.975 is 2.2e-17 lower, which moves
     * z by 4e-16. AS 241 in double is good to a few ulps. */
    CHECK(straggler_normal_quantile(0.5) == 0.0);
    CHECK_NEAR(straggler_normal_quantile(0.975), 1.95996398454005423552, 1.2e-15);
    CHECK_NEAR(straggler_normal_quantile(0.3), -0.524400512708040784038, 5e-16);
    CHECK_NEAR(straggler_normal_quantile(0.02), -2.05374891063182305294, 1e-15);
    CHECK_NEAR(straggler_normal_quantile(1e-10), -6.36134090240405620470, 2e-15);
    CHECK(isinf(straggler_normal_quantile(0.0)) && straggler_normal_quantile(0.0) < 0);
    CHECK(isinf(straggler_normal_quantile(1.0)) && straggler_normal_quantile(1.0) > 0);
    CHECK(isnan(straggler_normal_quantile(NAN)));
    /* Round trip through erfc on all three branches, and symmetry. */
    static const double ps[] = { 1e-300, 1e-20, 1e-10,     1e-5, 0.01,  0.07,
                                 0.075,  0.2,   0.4999999, 0.6,  0.925, 0.99 };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        double p = ps[i], z = straggler_normal_quantile(p);
        double tolerance = 2e-15 * (1.0 + z * z) * (p < 0.5 ? p : 1.0 - p);
        if (p < 0.5)
            CHECK_NEAR(normal_cdf(z), p, tolerance);
        else
            CHECK_NEAR(0.5 * erfc(z / sqrt(2.0)), 1.0 - p, tolerance);
        if (p >= 0.5) /* 1 - p is exact (Sterbenz) */
            CHECK_NEAR(straggler_normal_quantile(1.0 - p), -z, 4e-16 * fabs(z));
    }
}

static void test_delay_units(void)
{
    /* Every law's unit variable is non-decreasing in the raw draw (so the
     * order statistics of draws are those of delays) and finite. */
    static const straggler_delay laws[] = {
        { STRAGGLER_UNIFORM, 1, 0 },   { STRAGGLER_EXPONENTIAL, 1, 0 },
        { STRAGGLER_LOGNORMAL, 1, 1 }, { STRAGGLER_LOGNORMAL, 1, 0 },
        { STRAGGLER_PARETO, 1, 2.5 },  { STRAGGLER_PARETO, 1, 0.1 },
    };
    runner_rng rng;
    runner_rng_seed(&rng, 5);
    for (size_t l = 0; l < sizeof laws / sizeof laws[0]; l++) {
        const straggler_delay *d = &laws[l];
        CHECK(straggler_delay_unit(d, 0) <= straggler_delay_unit(d, (uint64_t)1 << 11));
        CHECK(isfinite(straggler_delay_unit(d, UINT64_MAX)));
        CHECK(straggler_delay_unit(d, 0) >= 0.0);
        int ordered = 1;
        for (int i = 0; i < 100000; i++) {
            uint64_t a = runner_rng_next(&rng), b = runner_rng_next(&rng);
            if (a > b) {
                uint64_t t = a;
                a = b;
                b = t;
            }
            ordered &= straggler_delay_unit(d, a) <= straggler_delay_unit(d, b);
        }
        CHECK(ordered);
    }
    /* Uniform: runner_rng_uniform()'s bits; exponential: -ln(1 - u). */
    straggler_delay uniform = law_of(STRAGGLER_UNIFORM, 1, 0);
    straggler_delay exponential = law_of(STRAGGLER_EXPONENTIAL, 1, 0);
    straggler_delay pareto = law_of(STRAGGLER_PARETO, 1, 2);
    runner_rng a, b;
    runner_rng_seed(&a, 9);
    runner_rng_seed(&b, 9);
    for (int i = 0; i < 1000; i++) {
        uint64_t draw = runner_rng_next(&a);
        double u = runner_rng_uniform(&b);
        CHECK(straggler_delay_unit(&uniform, draw) == u);
        CHECK_NEAR(straggler_delay_unit(&exponential, draw), -log1p(-u), 1e-15 * (1 - log1p(-u)));
        CHECK_NEAR(straggler_delay_unit(&pareto, draw), 1.0 / sqrt(1.0 - u), 1e-15 / sqrt(1.0 - u));
    }
    /* The extreme draws: the largest is 2^-53 from the top of the law. */
    CHECK_NEAR(straggler_delay_unit(&exponential, UINT64_MAX), 53.0 * log(2.0), 1e-13);
    CHECK(straggler_delay_unit(&exponential, 0) == 0.0 &&
          !signbit(straggler_delay_unit(&exponential, 0)));
}

static void test_exact_order_statistics(void)
{
    /* Uniform: the general form is the old one at rank = n, bit for bit. */
    straggler_delay uniform = law_of(STRAGGLER_UNIFORM, 2.0, 0);
    for (int i = 0; i < 4; i++) {
        int64_t k = walk_through_workers[i];
        CHECK(straggler_order_stat_exact(&uniform, k, k) == straggler_max_delay_exact(2.0, k));
        CHECK(straggler_order_stat_sd(&uniform, k, k) == straggler_max_delay_sd(2.0, k));
    }
    /* ... and J k / (k + b + 1) with b backups; the fastest of n is J / (n + 1). */
    CHECK_NEAR(straggler_order_stat_exact(&uniform, 64, 66), 2.0 * 64.0 / 67.0, 1e-15);
    CHECK_NEAR(straggler_order_stat_exact(&uniform, 1, 9), 0.2, 1e-15);
    CHECK_NEAR(straggler_order_stat_sd(&uniform, 64, 66),
               2.0 * sqrt(64.0 * 3.0 / (67.0 * 67.0 * 68.0)), 1e-15);
    CHECK(straggler_delay_mean(&uniform) == 1.0);

    /* Exponential: mu H_k for the slowest, mu (H_(k+b) - H_b) with backups. */
    straggler_delay exponential = law_of(STRAGGLER_EXPONENTIAL, 1.5, 0);
    double h64 = 0.0, tail66 = 0.0, squares64 = 0.0;
    for (int i = 64; i >= 1; i--) {
        h64 += 1.0 / i;
        squares64 += 1.0 / ((double)i * i);
    }
    for (int i = 66; i >= 3; i--)
        tail66 += 1.0 / i;
    CHECK_NEAR(straggler_order_stat_exact(&exponential, 64, 64), 1.5 * h64, 1e-14);
    CHECK_NEAR(straggler_order_stat_exact(&exponential, 64, 66), 1.5 * tail66, 1e-14);
    CHECK_NEAR(straggler_order_stat_sd(&exponential, 64, 64), 1.5 * sqrt(squares64), 1e-14);
    CHECK(straggler_order_stat_exact(&exponential, 1, 1) == 1.5);
    CHECK(straggler_order_stat_sd(&exponential, 1, 1) == 1.5);
    CHECK_NEAR(straggler_order_stat_exact(&exponential, 1, 4), 1.5 / 4.0, 1e-15);
    /* H_k grows like ln k: 4.744 at 64 against 1.969 for the uniform of the same mean. */
    CHECK_NEAR(exact_of(STRAGGLER_EXPONENTIAL, 1, 0, 64, 64), 4.7438909037057, 1e-12);

    /* Pareto: one worker waits the mean alpha x_m / (alpha - 1). */
    static const double alphas[] = { 1.5, 2.0, 2.5, 3.0, 10.0 };
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++) {
        double alpha = alphas[i];
        straggler_delay pareto = law_of(STRAGGLER_PARETO, 0.6, alpha);
        CHECK_NEAR(straggler_order_stat_exact(&pareto, 1, 1), 0.6 * alpha / (alpha - 1.0), 1e-14);
        CHECK_NEAR(straggler_delay_mean(&pareto), 0.6 * alpha / (alpha - 1.0), 1e-15);
        if (alpha > 2.0)
            CHECK_NEAR(straggler_order_stat_sd(&pareto, 1, 1),
                       0.6 / (alpha - 1.0) * sqrt(alpha / (alpha - 2.0)), 1e-14);
        /* x_m G(n+1) G(b+1 - 1/alpha) / (G(b+1) G(n+1 - 1/alpha)) by tgamma. */
        static const int64_t ks[] = { 2, 8, 64, 100 };
        static const int64_t bs[] = { 0, 1, 2, 30 };
        for (size_t j = 0; j < 4; j++)
            for (size_t m = 0; m < 4; m++) {
                double n = (double)(ks[j] + bs[m]), b = (double)bs[m];
                if (n > 120)
                    continue;
                double reference = 0.6 * tgamma(n + 1) * tgamma(b + 1 - 1 / alpha) /
                                   (tgamma(b + 1) * tgamma(n + 1 - 1 / alpha));
                CHECK_NEAR(straggler_order_stat_exact(&pareto, ks[j], ks[j] + bs[m]), reference,
                           1e-13 * reference);
            }
    }
    /* E[max of k] ~ x_m G(1 - 1/alpha) k^(1/alpha) for large k. */
    straggler_delay pareto3 = law_of(STRAGGLER_PARETO, 1.0, 3.0);
    CHECK_NEAR(straggler_order_stat_exact(&pareto3, 10000000, 10000000),
               tgamma(2.0 / 3.0) * cbrt(1e7), 1e-6 * cbrt(1e7));
    /* alpha <= 1: no mean, and the slowest of k has none either: +inf. */
    straggler_delay cauchy_like = law_of(STRAGGLER_PARETO, 1.0, 0.9);
    CHECK(isinf(straggler_delay_mean(&cauchy_like)));
    CHECK(isinf(straggler_order_stat_exact(&cauchy_like, 64, 64)));
    CHECK(isinf(exact_of(STRAGGLER_PARETO, 1.0, 1.0, 1, 1)));
    CHECK(isinf(straggler_order_stat_sd(&cauchy_like, 64, 64)));
    /* One backup is enough for a finite mean: the k-th of k + 1 needs 2 alpha > 1. */
    CHECK(isfinite(straggler_order_stat_exact(&cauchy_like, 64, 65)));
    CHECK(isinf(straggler_order_stat_sd(&cauchy_like, 64, 65)));    /* 2 alpha <= 2 */
    CHECK(isfinite(straggler_order_stat_sd(&cauchy_like, 64, 66))); /* 3 alpha > 2 */
    CHECK(isinf(exact_of(STRAGGLER_PARETO, 1.0, 0.3, 64, 66)));
    CHECK(isinf(sd_of(STRAGGLER_PARETO, 1.0, 2.0, 64, 64)));
    CHECK(isfinite(sd_of(STRAGGLER_PARETO, 1.0, 2.0, 64, 65)));

    /* Log-normal: no closed form, NaN; sigma = 0 is the constant mean. */
    straggler_delay lognormal = law_of(STRAGGLER_LOGNORMAL, 1.0, 1.0);
    CHECK(isnan(straggler_order_stat_exact(&lognormal, 64, 64)));
    CHECK(isnan(straggler_order_stat_sd(&lognormal, 64, 66)));
    CHECK(straggler_delay_mean(&lognormal) == 1.0);
    CHECK(exact_of(STRAGGLER_LOGNORMAL, 3.0, 0.0, 64, 64) == 3.0);

    /* No delay at all is 0 for every law, Pareto with alpha <= 1 included. */
    for (int law = 0; law < STRAGGLER_LAW_COUNT; law++) {
        straggler_delay none = law_of((straggler_law)law, 0.0, 0.5);
        CHECK(straggler_order_stat_exact(&none, 8, 10) == 0.0);
        CHECK(straggler_order_stat_sd(&none, 8, 10) == 0.0);
        CHECK(straggler_delay_mean(&none) == 0.0);
    }
}

/* A law with its cases: the k-th fastest of k + b has a finite variance. */
typedef struct mc_case {
    straggler_delay delay;
    int64_t workers, backups;
} mc_case;

static void test_closed_forms_against_monte_carlo(void)
{
    static const mc_case cases[] = {
        { { STRAGGLER_UNIFORM, 2.0, 0 }, 64, 2 },
        { { STRAGGLER_UNIFORM, 2.0, 0 }, 8, 8 },
        { { STRAGGLER_UNIFORM, 2.0, 0 }, 1, 3 },
        { { STRAGGLER_EXPONENTIAL, 1.0, 0 }, 1, 0 },
        { { STRAGGLER_EXPONENTIAL, 1.0, 0 }, 8, 0 },
        { { STRAGGLER_EXPONENTIAL, 1.0, 0 }, 64, 0 },
        { { STRAGGLER_EXPONENTIAL, 1.0, 0 }, 64, 2 },
        { { STRAGGLER_EXPONENTIAL, 2.0, 0 }, 1, 3 },
        { { STRAGGLER_EXPONENTIAL, 1.0, 0 }, 512, 64 },
        { { STRAGGLER_PARETO, 0.6, 2.5 }, 1, 0 },
        { { STRAGGLER_PARETO, 0.6, 2.5 }, 64, 0 },
        { { STRAGGLER_PARETO, 0.6, 2.5 }, 64, 2 },
        { { STRAGGLER_PARETO, 1.0, 6.0 }, 8, 0 },
        { { STRAGGLER_PARETO, 1.0, 6.0 }, 8, 2 },
        { { STRAGGLER_PARETO, 1.0, 0.8 }, 8, 2 },
        { { STRAGGLER_PARETO, 1.0, 0.8 }, 8, 80 },
    };
    static const uint64_t seeds[] = { 1, 0x5eed5eed5eedULL };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t s = 0; s < 2; s++) {
            const mc_case *m = &cases[c];
            int64_t k = m->workers, n = k + m->backups;
            straggler_mc mc = sync_run(seeds[s], m->delay, k, m->backups, MC_ROUNDS);
            double exact = straggler_order_stat_exact(&m->delay, k, n);
            double sd = straggler_order_stat_sd(&m->delay, k, n);
            CHECK(isfinite(exact) && isfinite(sd));
            CHECK_NEAR(mc.order_stat.mean, exact, 4.0 * sd / sqrt(MC_ROUNDS));
            double max_exact = straggler_order_stat_exact(&m->delay, k, k);
            double max_sd = straggler_order_stat_sd(&m->delay, k, k);
            if (isfinite(max_sd))
                CHECK_NEAR(mc.max_delay.mean, max_exact, 4.0 * max_sd / sqrt(MC_ROUNDS));
            else
                CHECK(m->delay.law == STRAGGLER_PARETO && m->delay.shape <= 2.0);
            /* The sample sd estimates the exact one when the 4th moment exists
             * (for Pareto alpha (b + 1) > 4): a few percent at 20000 rounds. */
            int fourth_moment =
                m->delay.law != STRAGGLER_PARETO || m->delay.shape * (double)(m->backups + 1) > 4.0;
            if (fourth_moment)
                CHECK_NEAR(mc.order_stat.sd / sd, 1.0, 0.10);
        }
}

static void test_lognormal_monte_carlo(void)
{
    /* No closed form in general, but two: the mean for one worker, and for
     * two, E[max] = 2 m Phi(sigma/sqrt 2), E[min] = 2 m (1 - Phi(sigma/sqrt 2)).
     * Checked within 4 standard errors computed from the sample. */
    static const double sigmas[] = { 0.5, 1.0, 1.5 };
    for (size_t i = 0; i < 3; i++) {
        double sigma = sigmas[i], mean = 1.3;
        straggler_delay lognormal = law_of(STRAGGLER_LOGNORMAL, mean, sigma);
        straggler_mc one = sync_run(11, lognormal, 1, 0, 4 * MC_ROUNDS);
        CHECK_NEAR(one.max_delay.mean, mean, 4.0 * one.max_delay.sd / sqrt(4 * MC_ROUNDS));
        straggler_mc two = sync_run(12, lognormal, 2, 0, 4 * MC_ROUNDS);
        CHECK_NEAR(two.max_delay.mean, 2.0 * mean * normal_cdf(sigma / sqrt(2.0)),
                   4.0 * two.max_delay.sd / sqrt(4 * MC_ROUNDS));
        straggler_mc fastest = sync_run(13, lognormal, 1, 1, 4 * MC_ROUNDS);
        CHECK_NEAR(fastest.order_stat.mean, 2.0 * mean * (1.0 - normal_cdf(sigma / sqrt(2.0))),
                   4.0 * fastest.order_stat.sd / sqrt(4 * MC_ROUNDS));
    }
    /* 64 workers, sigma 1, mean 1: E[max] = 7.07306 by quadrature (mpmath). */
    straggler_delay lognormal = law_of(STRAGGLER_LOGNORMAL, 1.0, 1.0);
    straggler_mc inverse = sync_run(14, lognormal, 64, 0, MC_ROUNDS);
    CHECK_NEAR(inverse.max_delay.mean, 7.07305975582459,
               4.0 * inverse.max_delay.sd / sqrt(MC_ROUNDS));
    /* With 2 backups, the 64-th fastest of 66: 3.67210 by quadrature (mpmath). */
    straggler_mc backed = sync_run(16, lognormal, 64, 2, MC_ROUNDS);
    CHECK_NEAR(backed.order_stat.mean, 3.67209899818281,
               4.0 * backed.order_stat.sd / sqrt(MC_ROUNDS));
    /* Against an independent sampler: Box-Muller, from runner_rng_uniform. */
    runner_rng rng;
    runner_rng_seed(&rng, 15);
    double sum = 0.0, squares = 0.0;
    for (int t = 0; t < MC_ROUNDS; t++) {
        double largest = 0.0;
        for (int i = 0; i < 64; i++) {
            double radius = sqrt(-2.0 * log(1.0 - runner_rng_uniform(&rng)));
            double z = radius * cos(2.0 * PI * runner_rng_uniform(&rng));
            double d = exp(z - 0.5);
            largest = d > largest ? d : largest;
        }
        sum += largest;
        squares += largest * largest;
    }
    double mean = sum / MC_ROUNDS;
    double box_muller_se = sqrt((squares / MC_ROUNDS - mean * mean) / (MC_ROUNDS - 1));
    double inverse_se = inverse.max_delay.sd / sqrt(MC_ROUNDS);
    CHECK_NEAR(inverse.max_delay.mean, mean,
               4.0 * sqrt(inverse_se * inverse_se + box_muller_se * box_muller_se));
    CHECK_NEAR(inverse.max_delay.sd / sqrt(MC_ROUNDS) / box_muller_se, 1.0, 0.15);
}

static void test_backups_reduce_waiting(void)
{
    static const straggler_delay laws[] = {
        { STRAGGLER_UNIFORM, 2.0, 0 },
        { STRAGGLER_EXPONENTIAL, 1.0, 0 },
        { STRAGGLER_LOGNORMAL, 1.0, 1.0 },
        { STRAGGLER_PARETO, 0.6, 2.5 },
    };
    static const int64_t backups[] = { 0, 1, 2, 4, 16, 64 };
    for (size_t l = 0; l < 4; l++) {
        double previous_mc = HUGE_VAL, previous_exact = HUGE_VAL;
        for (size_t b = 0; b < sizeof backups / sizeof backups[0]; b++) {
            straggler_mc mc = sync_run(21, laws[l], 64, backups[b], 4000);
            /* Per round the k-th fastest of k + b is at most the slowest of
             * the first k; with backups strictly less on average. */
            if (backups[b] == 0)
                CHECK(same_bits(mc.order_stat.mean, mc.max_delay.mean));
            else
                CHECK(mc.order_stat.mean < mc.max_delay.mean);
            CHECK(mc.order_stat.mean < previous_mc);
            previous_mc = mc.order_stat.mean;
            double exact = straggler_order_stat_exact(&laws[l], 64, 64 + backups[b]);
            if (laws[l].law != STRAGGLER_LOGNORMAL) {
                CHECK(exact < previous_exact);
                previous_exact = exact;
            }
        }
    }
    /* Two backups at 64 workers, mean delay 1 s: exponential 4.744 -> 3.274 s. */
    straggler_delay exponential = law_of(STRAGGLER_EXPONENTIAL, 1.0, 0);
    CHECK_NEAR(straggler_order_stat_exact(&exponential, 64, 66),
               straggler_harmonic(66) - straggler_harmonic(2), 1e-14);
    /* Many backups: the k-th of k + b uniforms tends to J k / (k + b). */
    straggler_delay uniform = law_of(STRAGGLER_UNIFORM, 2.0, 0);
    straggler_mc many = sync_run(22, uniform, 8, 1000, 2000);
    CHECK_NEAR(many.order_stat.mean, 2.0 * 8 / 1009.0,
               4.0 * straggler_order_stat_sd(&uniform, 8, 1008) / sqrt(2000.0));
}

/* SSP by events, independent of the model's recursion: workers finish in
 * time order; one that has finished r - 1 rounds starts round r as soon as
 * the slowest has finished r - 1 - s, its staleness being how far ahead it
 * is. delays[r k + i] is worker i's delay in round r + 1. */
static void ssp_by_events(const double *delays, int workers, int rounds, int staleness,
                          double compute_s, double *makespan, double *staleness_sum)
{
    int done[8] = { 0 }, running[8] = { 0 };
    double end[8], now = 0.0, lag_sum = 0.0;
    for (int i = 0; i < workers; i++) {
        running[i] = 1;
        end[i] = now + compute_s + delays[i];
    }
    for (;;) {
        int next = -1;
        for (int i = 0; i < workers; i++)
            if (running[i] && (next < 0 || end[i] < end[next]))
                next = i;
        if (next < 0)
            break;
        now = end[next];
        running[next] = 0;
        done[next]++;
        int slowest = done[0];
        for (int i = 1; i < workers; i++)
            slowest = done[i] < slowest ? done[i] : slowest;
        for (int i = 0; i < workers; i++)
            if (!running[i] && done[i] < rounds && done[i] - slowest <= staleness) {
                lag_sum += done[i] - slowest;
                end[i] = now + compute_s + delays[done[i] * workers + i];
                running[i] = 1;
            }
    }
    *makespan = now;
    *staleness_sum = lag_sum;
}

static void test_staleness(void)
{
    static const straggler_delay laws[] = {
        { STRAGGLER_UNIFORM, 2.0, 0 },
        { STRAGGLER_EXPONENTIAL, 1.0, 0 },
        { STRAGGLER_LOGNORMAL, 1.0, 1.0 },
        { STRAGGLER_PARETO, 0.6, 2.5 },
    };
    /* s = 0 is the synchronous round: the same draws give the same slowest
     * delays (bit for bit) and the same round time, to rounding. */
    for (size_t l = 0; l < 4; l++)
        for (int i = 0; i < 3; i++) {
            int64_t k = walk_through_workers[i];
            double compute = 30.0 / (double)k;
            straggler_mc sync = sync_run(31, laws[l], k, 0, 5000);
            straggler_mc ssp = ssp_run(31, laws[l], compute, k, 0, 5000);
            CHECK(same_bits(ssp.max_delay.mean, sync.max_delay.mean));
            CHECK(same_bits(ssp.max_delay.sd, sync.max_delay.sd));
            CHECK_NEAR(ssp.round_s, compute + sync.order_stat.mean, 1e-12 * ssp.round_s);
            CHECK(ssp.mean_staleness == 0.0 && ssp.max_staleness == 0);
            CHECK(isnan(sync.round_s) && sync.mean_staleness == 0.0);
        }
    /* More staleness never slows the same delays down, and stays in bounds. */
    straggler_delay exponential = law_of(STRAGGLER_EXPONENTIAL, 1.0, 0);
    static const int64_t bounds[] = { 0, 1, 2, 4, 8, 1000000 };
    double previous = HUGE_VAL;
    for (size_t s = 0; s < sizeof bounds / sizeof bounds[0]; s++) {
        straggler_mc ssp = ssp_run(32, exponential, 0.47, 64, bounds[s], 4000);
        CHECK(ssp.round_s <= previous);
        CHECK(ssp.max_staleness <= bounds[s]);
        CHECK(ssp.mean_staleness <= (double)bounds[s]);
        if (bounds[s] > 0)
            CHECK(ssp.mean_staleness > 0.0);
        if (bounds[s] > 0 && bounds[s] <= 4) /* 64 workers do reach small bounds */
            CHECK_INT_EQ(ssp.max_staleness, bounds[s]);
        previous = ssp.round_s;
    }
    /* s = 1: every worker but the round's slowest starts its next round
     * before the slowest has finished: staleness 1 for all but one worker per
     * round after the first, (k - 1)(T - 1) / (k T) on average, whatever the law. */
    for (size_t l = 0; l < 4; l++) {
        straggler_mc one = ssp_run(36, laws[l], 0.47, 64, 1, 4000);
        CHECK_NEAR(one.mean_staleness, 63.0 * 3999.0 / (64.0 * 4000.0), 1e-15);
    }
    /* Staleness 2 at 64 exponential workers: the round drops from
     * 0.47 + H_64 = 5.21 s towards 0.47 + 1 s; well below synchronous. */
    straggler_mc two = ssp_run(33, exponential, 0.47, 64, 2, 4000);
    CHECK(two.round_s < 0.47 + 0.8 * straggler_harmonic(64));
    CHECK(two.round_s > 0.47 + 1.0);
    /* One worker never waits and is never stale: round = compute + its mean delay. */
    straggler_mc alone = ssp_run(34, exponential, 0.47, 1, 3, MC_ROUNDS);
    CHECK(alone.mean_staleness == 0.0);
    CHECK_NEAR(alone.round_s - 0.47, alone.max_delay.mean, 1e-12);
    CHECK_NEAR(alone.round_s - 0.47, 1.0, 4.0 / sqrt(MC_ROUNDS));

    /* Against the event-driven simulation, on the same delays. */
    enum {
        EVENT_WORKERS = 5,
        EVENT_ROUNDS = 300
    };
    static double delays[EVENT_WORKERS * EVENT_ROUNDS];
    static const int event_bounds[] = { 0, 1, 2, 5, 400 };
    for (size_t l = 0; l < 4; l++)
        for (size_t s = 0; s < sizeof event_bounds / sizeof event_bounds[0]; s++) {
            runner_rng rng;
            runner_rng_seed(&rng, 35);
            for (int j = 0; j < EVENT_WORKERS * EVENT_ROUNDS; j++)
                delays[j] = laws[l].scale * straggler_delay_unit(&laws[l], runner_rng_next(&rng));
            double makespan, lag_sum;
            ssp_by_events(delays, EVENT_WORKERS, EVENT_ROUNDS, event_bounds[s], 0.3, &makespan,
                          &lag_sum);
            straggler_mc ssp =
                ssp_run(35, laws[l], 0.3, EVENT_WORKERS, event_bounds[s], EVENT_ROUNDS);
            CHECK_NEAR(ssp.round_s * EVENT_ROUNDS, makespan, 1e-10 * makespan);
            CHECK_NEAR(ssp.mean_staleness * EVENT_WORKERS * EVENT_ROUNDS, lag_sum, 1e-9);
            if (event_bounds[s] == 400) {
                /* Never blocked: the makespan is the slowest worker's own total. */
                double slowest = 0.0;
                for (int i = 0; i < EVENT_WORKERS; i++) {
                    double total = 0.0;
                    for (int r = 0; r < EVENT_ROUNDS; r++)
                        total += 0.3 + delays[r * EVENT_WORKERS + i];
                    slowest = total > slowest ? total : slowest;
                }
                CHECK_NEAR(makespan, slowest, 1e-10 * slowest);
            }
        }
}

static void test_staleness_long_runs(void)
{
    /* 16384 workers: 64 rounds per stop check, so 256 rounds cross three
     * re-basings of the clocks. Checked against the plain recursion with
     * absolute times and a linear search for the staleness. */
    enum {
        WORKERS = 16384,
        ROUNDS = 256,
        BOUND = 3
    };
    straggler_delay lognormal = law_of(STRAGGLER_LOGNORMAL, 1.0, 1.0);
    double *finish = calloc(WORKERS, sizeof *finish);
    double *complete = calloc(ROUNDS + 1, sizeof *complete);
    CHECK(finish && complete);
    if (!finish || !complete) {
        free(finish);
        free(complete);
        return;
    }
    runner_rng rng;
    runner_rng_seed(&rng, 41);
    double lag_sum = 0.0;
    for (int r = 1; r <= ROUNDS; r++) {
        double gate = r - 1 - BOUND > 0 ? complete[r - 1 - BOUND] : 0.0;
        double last = 0.0;
        for (int i = 0; i < WORKERS; i++) {
            double d = straggler_delay_unit(&lognormal, runner_rng_next(&rng));
            double start = finish[i] > gate ? finish[i] : gate;
            for (int q = r - 1; q >= 1 && q >= r - BOUND; q--)
                lag_sum += complete[q] > start;
            finish[i] = start + 0.01 + d;
            last = finish[i] > last ? finish[i] : last;
        }
        complete[r] = last;
    }
    straggler_mc ssp = ssp_run(41, lognormal, 0.01, WORKERS, BOUND, ROUNDS);
    CHECK_NEAR(ssp.round_s, complete[ROUNDS] / ROUNDS, 1e-12 * ssp.round_s);
    CHECK_NEAR(ssp.mean_staleness, lag_sum / ((double)WORKERS * ROUNDS), 1e-12);
    CHECK(ssp.max_staleness == BOUND);
    free(finish);
    free(complete);
}

static void test_new_interruption(void)
{
    /* Both samplers check every 2^20 draws, the first time before any. */
    straggler_delay exponential = law_of(STRAGGLER_EXPONENTIAL, 1.0, 0);
    runner_rng rng;
    runner_rng_seed(&rng, 1);
    straggler_mc mc;
    stop_calls = 0;
    CHECK_INT_EQ(straggler_sync_mc(&rng, &exponential, 6, 2, 1000000, never_stop, NULL, &mc), 0);
    CHECK_INT_EQ(stop_calls, 8);
    stop_calls = 0;
    CHECK_INT_EQ(
        straggler_sync_mc(&rng, &exponential, 6, 2, 1000000, stop_on_third_call, NULL, &mc),
        STRAGGLER_STOPPED);
    CHECK_INT_EQ(stop_calls, 3);
    stop_calls = 0;
    CHECK_INT_EQ(
        straggler_ssp_mc(&rng, &exponential, 0.5, 8, 2, 1000000, stop_on_third_call, NULL, &mc),
        STRAGGLER_STOPPED);
    CHECK_INT_EQ(stop_calls, 3);
    stop_calls = 0;
    CHECK_INT_EQ(straggler_ssp_mc(&rng, &exponential, 0.5, 8, 2, 1000000, never_stop, NULL, &mc),
                 0);
    CHECK_INT_EQ(stop_calls, 8);
}

static void test_laws_by_name(const runner_plugin *plugin)
{
    const runner_param *law = NULL;
    for (uint32_t i = 0; i < plugin->param_count; i++)
        if (strcmp(plugin->params[i].name, "law") == 0)
            law = &plugin->params[i];
    CHECK(law != NULL);
    if (!law)
        return;
    int count = 0;
    for (const char *const *choice = law->choices; *choice; choice++, count++) {
        CHECK_INT_EQ(straggler_law_parse(*choice), count);
        CHECK_STR_EQ(straggler_law_name((straggler_law)count), *choice);
    }
    CHECK_INT_EQ(count, STRAGGLER_LAW_COUNT);
    CHECK_INT_EQ(straggler_law_parse("cauchy"), -1);
    CHECK(straggler_law_name(STRAGGLER_LAW_COUNT) == NULL);
}

/* The declared contract, as docs/plugins/straggler.md lists it. The first
 * five parameters and nine columns are the original ones, in their order. */
static void test_declarations(const runner_plugin *plugin)
{
    static const struct {
        const char *name;
        runner_type type;
        const char *unit;
        double def, min, max;
        const char *text;
    } params[] = {
        { "base", RUNNER_REAL, "s", 30, 0, 1e9, NULL },
        { "jitter", RUNNER_REAL, "s", 2, 0, 1e9, NULL },
        { "workers", RUNNER_INTEGER, "workers", 1, 1, 1e7, NULL },
        { "trials", RUNNER_INTEGER, "rounds", 4000, 1, 1e10, NULL },
        { "seed", RUNNER_INTEGER, "", 1, 0, 9007199254740992.0, NULL },
        { "law", RUNNER_TEXT, "", 0, 0, 0, "uniform" },
        { "mean_delay_s", RUNNER_REAL, "s", 1, 0, 1e9, NULL },
        { "lognormal_sigma", RUNNER_REAL, "", 1, 0, 10, NULL },
        { "pareto_alpha", RUNNER_REAL, "", 2.5, 0.1, 1000, NULL },
        { "pareto_scale_s", RUNNER_REAL, "s", 0.6, 0, 1e9, NULL },
        { "backups", RUNNER_INTEGER, "workers", 0, 0, 1e7, NULL },
        { "staleness", RUNNER_INTEGER, "rounds", 0, 0, 1e6, NULL },
    };
    static const struct {
        const char *name;
        runner_type type;
        const char *unit;
    } columns[] = {
        { "compute_s", RUNNER_REAL, "s" },
        { "max_delay_s", RUNNER_REAL, "s" },
        { "max_delay_exact_s", RUNNER_REAL, "s" },
        { "max_delay_stderr_s", RUNNER_REAL, "s" },
        { "round_s", RUNNER_REAL, "s" },
        { "round_exact_s", RUNNER_REAL, "s" },
        { "wait_share", RUNNER_REAL, "fraction" },
        { "wait_share_exact", RUNNER_REAL, "fraction" },
        { "samples", RUNNER_INTEGER, "samples" },
        { "delay_mean_s", RUNNER_REAL, "s" },
        { "max_delay_sample_stderr_s", RUNNER_REAL, "s" },
        { "order_stat_s", RUNNER_REAL, "s" },
        { "order_stat_exact_s", RUNNER_REAL, "s" },
        { "order_stat_stderr_s", RUNNER_REAL, "s" },
        { "order_stat_sample_stderr_s", RUNNER_REAL, "s" },
        { "wait_s", RUNNER_REAL, "s" },
        { "mean_staleness_rounds", RUNNER_REAL, "rounds" },
    };
    CHECK_INT_EQ(harness_validate(plugin), 0);
    CHECK_STR_EQ(plugin->name, "straggler");
    CHECK_INT_EQ(plugin->param_count, sizeof params / sizeof params[0]);
    CHECK_INT_EQ(plugin->column_count, sizeof columns / sizeof columns[0]);
    for (uint32_t i = 0; i < plugin->param_count && i < sizeof params / sizeof params[0]; i++) {
        CHECK_STR_EQ(plugin->params[i].name, params[i].name);
        CHECK_INT_EQ(plugin->params[i].type, params[i].type);
        CHECK_STR_EQ(plugin->params[i].unit, params[i].unit);
        if (params[i].type == RUNNER_TEXT) {
            CHECK_STR_EQ(plugin->params[i].default_text, params[i].text);
            continue;
        }
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
    /* Every original column is what the original model gives: the defaults
     * keep the original behaviour, bit for bit. */
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
    /* The new columns, at the defaults: no backups, no staleness. */
    CHECK(harness_real(&point, 0, "delay_mean_s") == 1.0);
    CHECK(harness_real(&point, 0, "order_stat_s") == got);
    CHECK(harness_real(&point, 0, "wait_s") == got);
    CHECK(harness_real(&point, 0, "order_stat_exact_s") == 1.0);
    CHECK(harness_real(&point, 0, "order_stat_stderr_s") == row.max_delay_stderr_s);
    CHECK(harness_real(&point, 0, "mean_staleness_rounds") == 0.0);
    /* The sample's standard error estimates the exact one (uniform: 1.6%). */
    CHECK_NEAR(harness_real(&point, 0, "max_delay_sample_stderr_s") /
                   harness_real(&point, 0, "max_delay_stderr_s"),
               1.0, 0.05);

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
    CHECK_STR_EQ(point.point.error, "straggler: interrupted");
    CHECK_INT_EQ(point.point.row_count, 0);
    CHECK_INT_EQ(harness_set(&point, "staleness", value_integer(2)), 0);
    CHECK_INT_EQ(harness_run(&point, 7), -1);
    CHECK_STR_EQ(point.point.error, "straggler: interrupted");
    CHECK_INT_EQ(harness_set(&point, "staleness", value_integer(0)), 0);
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
    CHECK_INT_EQ(harness_set(&point, "law", value_text("cauchy")), -1);
    CHECK_INT_EQ(harness_set(&point, "pareto_alpha", value_real(0)), -1);
    CHECK_INT_EQ(harness_set(&point, "backups", value_integer(-1)), -1);
    harness_free(&point);
}

/* Every column of row 0 is the model's, from the same seed, to the bit. */
static void check_row_is_model(const harness *h, uint64_t seed, straggler_delay delay, double base,
                               int64_t workers, int64_t backups, int64_t staleness, int64_t trials)
{
    straggler_mc mc = staleness > 0
                          ? ssp_run(seed, delay, base / (double)workers, workers, staleness, trials)
                          : sync_run(seed, delay, workers, backups, trials);
    straggler_result r;
    straggler_result_fill(&r, &delay, base, workers, backups, staleness, trials, &mc);
    static const char *const names[] = { "compute_s",
                                         "max_delay_s",
                                         "max_delay_exact_s",
                                         "max_delay_stderr_s",
                                         "round_s",
                                         "round_exact_s",
                                         "wait_share",
                                         "wait_share_exact",
                                         "delay_mean_s",
                                         "max_delay_sample_stderr_s",
                                         "order_stat_s",
                                         "order_stat_exact_s",
                                         "order_stat_stderr_s",
                                         "order_stat_sample_stderr_s",
                                         "wait_s",
                                         "mean_staleness_rounds" };
    const double values[] = { r.compute_s,
                              r.max_delay_s,
                              r.max_delay_exact_s,
                              r.max_delay_stderr_s,
                              r.round_s,
                              r.round_exact_s,
                              r.wait_share,
                              r.wait_share_exact,
                              r.delay_mean_s,
                              r.max_delay_sample_stderr_s,
                              r.order_stat_s,
                              r.order_stat_exact_s,
                              r.order_stat_stderr_s,
                              r.order_stat_sample_stderr_s,
                              r.wait_s,
                              r.mean_staleness_rounds };
    _Static_assert(sizeof names / sizeof names[0] == sizeof values / sizeof values[0], "pairs");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!same_bits(harness_real(h, 0, names[i]), values[i])) {
            fprintf(stderr, "column %s: %.17g, model %.17g\n", names[i],
                    harness_real(h, 0, names[i]), values[i]);
            check_failures++;
        }
    CHECK_INT_EQ(harness_integer(h, 0, "samples"), r.samples);
    CHECK_INT_EQ(harness_row_problems(h, 0), 0);
}

static void test_plugin_laws(const runner_plugin *plugin)
{
    harness h;
    harness_init(&h, plugin);
    CHECK_INT_EQ(harness_set(&h, "workers", value_integer(64)), 0);

    /* Each law reads its own parameters; the defaults all mean 1 s. */
    CHECK_INT_EQ(harness_set(&h, "law", value_text("exponential")), 0);
    CHECK_INT_EQ(harness_run(&h, 51), 0);
    check_row_is_model(&h, 51, law_of(STRAGGLER_EXPONENTIAL, 1.0, 0), 30, 64, 0, 0, 4000);
    CHECK(harness_real(&h, 0, "delay_mean_s") == 1.0);
    CHECK_NEAR(harness_real(&h, 0, "max_delay_exact_s"), straggler_harmonic(64), 1e-14);
    CHECK_NEAR(harness_real(&h, 0, "max_delay_s"), straggler_harmonic(64),
               4.0 * harness_real(&h, 0, "max_delay_stderr_s"));

    CHECK_INT_EQ(harness_set(&h, "law", value_text("lognormal")), 0);
    CHECK_INT_EQ(harness_set(&h, "lognormal_sigma", value_real(1.0)), 0);
    CHECK_INT_EQ(harness_run(&h, 52), 0);
    check_row_is_model(&h, 52, law_of(STRAGGLER_LOGNORMAL, 1.0, 1.0), 30, 64, 0, 0, 4000);
    CHECK(isnan(harness_real(&h, 0, "max_delay_exact_s")));
    CHECK(isnan(harness_real(&h, 0, "round_exact_s")));
    CHECK(isnan(harness_real(&h, 0, "max_delay_stderr_s")));
    CHECK_NEAR(harness_real(&h, 0, "max_delay_s"), 7.07305975582459,
               4.0 * harness_real(&h, 0, "max_delay_sample_stderr_s"));

    CHECK_INT_EQ(harness_set(&h, "law", value_text("pareto")), 0);
    CHECK_INT_EQ(harness_set(&h, "backups", value_integer(2)), 0);
    CHECK_INT_EQ(harness_run(&h, 53), 0);
    check_row_is_model(&h, 53, law_of(STRAGGLER_PARETO, 0.6, 2.5), 30, 64, 2, 0, 4000);
    CHECK(harness_real(&h, 0, "delay_mean_s") == 1.0);
    CHECK_INT_EQ(harness_integer(&h, 0, "samples"), 66 * 4000);
    CHECK(harness_real(&h, 0, "order_stat_s") < harness_real(&h, 0, "max_delay_s"));
    CHECK(harness_real(&h, 0, "wait_s") == harness_real(&h, 0, "order_stat_s"));
    CHECK(harness_real(&h, 0, "round_s") ==
          harness_real(&h, 0, "compute_s") + harness_real(&h, 0, "order_stat_s"));
    CHECK_NEAR(harness_real(&h, 0, "order_stat_s"), harness_real(&h, 0, "order_stat_exact_s"),
               4.0 * harness_real(&h, 0, "order_stat_stderr_s"));

    /* Pareto alpha <= 1: the exact mean wait is +inf, stored as such; one
     * backup makes it finite again. */
    CHECK_INT_EQ(harness_set(&h, "pareto_alpha", value_real(0.9)), 0);
    CHECK_INT_EQ(harness_set(&h, "backups", value_integer(0)), 0);
    CHECK_INT_EQ(harness_run(&h, 54), 0);
    CHECK_INT_EQ(harness_row_problems(&h, 0), 0);
    CHECK(isinf(harness_real(&h, 0, "max_delay_exact_s")));
    CHECK(isinf(harness_real(&h, 0, "order_stat_exact_s")));
    CHECK(isinf(harness_real(&h, 0, "round_exact_s")));
    CHECK(isinf(harness_real(&h, 0, "delay_mean_s")));
    CHECK(harness_real(&h, 0, "wait_share_exact") == 1.0);
    CHECK(isfinite(harness_real(&h, 0, "max_delay_s")));
    CHECK_INT_EQ(harness_set(&h, "backups", value_integer(1)), 0);
    CHECK_INT_EQ(harness_run(&h, 54), 0);
    CHECK(isinf(harness_real(&h, 0, "max_delay_exact_s")));
    CHECK(isfinite(harness_real(&h, 0, "order_stat_exact_s")));
    check_row_is_model(&h, 54, law_of(STRAGGLER_PARETO, 0.6, 0.9), 30, 64, 1, 0, 4000);

    /* Backups and staleness together are refused, by run(), with the reason. */
    CHECK_INT_EQ(harness_set(&h, "staleness", value_integer(2)), 0);
    CHECK_INT_EQ(harness_run(&h, 55), -1);
    CHECK_STR_EQ(h.point.error, "straggler: backups (1) and staleness (2) cannot be combined: "
                                "backup workers keep rounds synchronous; set one of them to 0");
    CHECK_INT_EQ(h.point.row_count, 0);

    /* Staleness 2, uniform: no closed form for the round; the wait drops. */
    CHECK_INT_EQ(harness_set(&h, "backups", value_integer(0)), 0);
    CHECK_INT_EQ(harness_set(&h, "law", value_text("uniform")), 0);
    CHECK_INT_EQ(harness_run(&h, 56), 0);
    check_row_is_model(&h, 56, law_of(STRAGGLER_UNIFORM, 2.0, 0), 30, 64, 0, 2, 4000);
    CHECK(isnan(harness_real(&h, 0, "round_exact_s")));
    CHECK(isnan(harness_real(&h, 0, "wait_share_exact")));
    CHECK(harness_real(&h, 0, "mean_staleness_rounds") > 0.0);
    CHECK(harness_real(&h, 0, "mean_staleness_rounds") <= 2.0);
    CHECK(harness_real(&h, 0, "wait_s") < harness_real(&h, 0, "max_delay_s"));
    CHECK(harness_real(&h, 0, "wait_s") > 1.0); /* at least the mean delay */
    CHECK(harness_real(&h, 0, "wait_s") ==
          harness_real(&h, 0, "round_s") - harness_real(&h, 0, "compute_s"));
    harness_free(&h);
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
    test_harmonic_numbers();
    test_log_gamma_ratio();
    test_normal_quantile();
    test_delay_units();
    test_exact_order_statistics();
    test_closed_forms_against_monte_carlo();
    test_lognormal_monte_carlo();
    test_backups_reduce_waiting();
    test_staleness();
    test_staleness_long_runs();
    test_new_interruption();
    test_laws_by_name(plugin);
    test_declarations(plugin);
    test_plugin_run(plugin);
    test_plugin_laws(plugin);
    return check_done("test_straggler");
}
