/* test_robust: the robust comparisons. Mann–Whitney p-values against
 * SciPy 1.10's scipy.stats.mannwhitneyu(a, b) (method "auto", two-sided:
 * exact and asymptotic, with and without ties); Tukey's fences; the
 * seeded bootstrap; and, over 200 seeded pairs each, the error rates the
 * tests promise (docs/analysis.md, "Robust comparison"): same-distribution
 * pairs (normal and log-normal) flagged at most 6 % of the time by each
 * test, and a 5 % shift with 1 run in 20 an outlier 3x slower found in
 * >= 90 % of pairs by the robust tests, where Welch fails more often. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "check.h"

static void check_mwu(const double *a, size_t n_a, const double *b, size_t n_b, double u, double p,
                      int exact)
{
    robust_mwu r;
    CHECK_INT_EQ(robust_mwu_test(a, n_a, b, n_b, &r), 0);
    CHECK_NEAR(r.u_a, u, 1e-12);
    CHECK_NEAR(r.p_value, p, 1e-9);
    CHECK_INT_EQ(r.exact, exact);
}

static void test_mwu_scipy(void)
{
    /* scipy's own docstring example: exact */
    const double males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
    check_mwu(males, 5, females, 4, 17.0, 0.1111111111111111, 1);
    const double a3[] = { 1.5, 2.7, 0.3 },
                 b10[] = { 3.1, 4.4, 2.2, 5.0, 6.1, 1.1, 7.3, 8.8, 9.9, 10.2 };
    check_mwu(a3, 3, b10, 10, 3.0, 0.04895104895104895, 1);
    /* both > 8: asymptotic, with ties and without */
    const double at[] = { 1, 2, 2, 3, 4, 5, 5, 5, 6, 7 },
                 bt[] = { 3, 4, 4, 5, 6, 7, 8, 8, 9, 10, 11 };
    check_mwu(at, 10, bt, 11, 23.0, 0.02561664199019978, 0);
    const double an[] = { 10.1, 9.8, 10.4, 10.0, 9.7, 10.3, 10.2, 9.9, 10.6 },
                 bn[] = { 11.9, 12.3, 12.0, 12.6, 11.8, 9.5, 10.05, 10.15, 10.25, 13.0 };
    check_mwu(an, 9, bn, 10, 21.0, 0.055013832353979004, 0);
    /* small but tied: asymptotic */
    const double as[] = { 1, 2, 2, 3 }, bs[] = { 2, 3, 4, 5, 6 };
    check_mwu(as, 4, bs, 5, 2.5, 0.07985619377351644, 0);
    /* every value the same: no evidence */
    const double same[] = { 3, 3, 3, 3, 3, 3, 3, 3, 3, 3 };
    check_mwu(same, 10, same, 10, 50, 1, 0);
    robust_mwu r;
    CHECK_INT_EQ(robust_mwu_test(same, 0, same, 3, &r), -1);
}

static void test_tukey(void)
{
    /* quartiles 2.75 and 7.25 (GSL's, as numpy's linear): iqr 4.5, mild
     * fences -4, 14, severe -10.75, 20.75 */
    const double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 21, -5, -11 };
    robust_outliers o;
    CHECK_INT_EQ(robust_tukey(x, 10, &o), 0);
    CHECK_INT_EQ(robust_outlier_count(&o), 0);
    CHECK_INT_EQ(robust_tukey(x, 14, &o), 0);
    /* 14 values: q1 = 2.25, q3 = 8.75, iqr 6.5; mild fences -7.5, 18.5;
     * severe -17.25, 28.25 */
    CHECK_INT_EQ(o.high_mild, 1); /* 21 */
    CHECK_INT_EQ(o.low_mild, 1);  /* -11 */
    CHECK_INT_EQ(o.high_severe, 0);
    CHECK_INT_EQ(o.low_severe, 0);
    const double y[] = { 10, 10.1, 9.9, 10.2, 9.8, 10, 10.1, 30, 9.95, 10.05 };
    CHECK_INT_EQ(robust_tukey(y, 10, &o), 0);
    CHECK_INT_EQ(o.high_severe, 1);
    CHECK_INT_EQ(robust_outlier_count(&o), 1);
    CHECK_INT_EQ(robust_tukey(y, 3, &o), 0); /* too few to have quartiles */
    CHECK_INT_EQ(robust_outlier_count(&o), 0);
}

static void test_bootstrap(void)
{
    const double a[] = { 10.1, 9.8, 10.4, 10.0, 9.7, 10.3, 10.2, 9.9, 10.6, 30.0 };
    const double b[] = { 11.9, 12.3, 12.0, 12.6, 11.8, 12.1, 12.2, 11.7, 12.4, 12.5 };
    robust_bootstrap r, again;
    CHECK_INT_EQ(robust_bootstrap_ratio(a, 10, b, 10, 0.95, ROBUST_BOOTSTRAP_RESAMPLES,
                                        ROBUST_BOOTSTRAP_SEED, &r),
                 0);
    CHECK_NEAR(r.ratio, 12.15 / 10.15, 1e-12);
    CHECK(r.low <= r.ratio && r.ratio <= r.high);
    CHECK(r.low > 1.1 && r.high < 1.3);
    CHECK(r.p_value < 0.01); /* a resample with 5 of a's 30s: 0.16 % */
    CHECK_INT_EQ(r.resamples, ROBUST_BOOTSTRAP_RESAMPLES);
    /* seeded: the same interval every time */
    CHECK_INT_EQ(robust_bootstrap_ratio(a, 10, b, 10, 0.95, ROBUST_BOOTSTRAP_RESAMPLES,
                                        ROBUST_BOOTSTRAP_SEED, &again),
                 0);
    CHECK(again.low == r.low && again.high == r.high && again.p_value == r.p_value);
    /* the same sample: ratio 1, no evidence */
    CHECK_INT_EQ(robust_bootstrap_ratio(a, 10, a, 10, 0.95, 2000, 7, &r), 0);
    CHECK(r.low <= 1 && r.high >= 1 && r.p_value > 0.5);
    const double zero[] = { 0, 0, 0 };
    CHECK_INT_EQ(robust_bootstrap_ratio(zero, 3, b, 10, 0.95, 100, 1, &r), -1);
}

#define PAIRS 200
#define RUNS 50
/* resamples per pair in the rate checks: the default's 10^4 times 600 pairs
 * is 15 s of CPU; 2000 moves the percentile interval's ends by about 1 %
 * of its width, which moves no verdict by much */
#define RATE_RESAMPLES 2000

/* One pair's verdicts at alpha 0.05: bit 0 Welch, bit 1 MWU, bit 2
 * bootstrap. */
static int flags(const double *a, const double *b, size_t n)
{
    stats_summary sa = stats_summarize(a, n), sb = stats_summarize(b, n);
    stats_comparison w;
    robust_mwu m;
    robust_bootstrap bs;
    if (stats_compare(&sa, &sb, 0.95, &w) != 0 || robust_mwu_test(a, n, b, n, &m) != 0 ||
        robust_bootstrap_ratio(a, n, b, n, 0.95, RATE_RESAMPLES, ROBUST_BOOTSTRAP_SEED, &bs) != 0)
        return -1;
    return (w.p_value < 0.05) | (m.p_value < 0.05) << 1 | (bs.p_value < 0.05) << 2;
}

enum {
    NORMAL,
    LOGNORMAL,
    SHIFTED_WITH_OUTLIERS
};

/* How many of PAIRS pairs each test flags, [welch, mwu, bootstrap]. */
static void count_flags(int kind, size_t counts[3])
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 35 + (unsigned long)kind);
    double a[RUNS], b[RUNS];
    memset(counts, 0, 3 * sizeof *counts);
    for (int pair = 0; pair < PAIRS; pair++) {
        for (int side = 0; side < 2; side++)
            for (int i = 0; i < RUNS; i++) {
                double *x = side ? b : a;
                if (kind == NORMAL)
                    x[i] = 20 + gsl_ran_gaussian(rng, 1);
                else if (kind == LOGNORMAL)
                    x[i] = gsl_ran_lognormal(rng, log(20), 0.5);
                else /* 2 % noise, b 5 % slower, 1 run in 20 three times slower */
                    x[i] = 20 * (side ? 1.05 : 1) * (1 + gsl_ran_gaussian(rng, 0.02)) *
                           (gsl_rng_uniform(rng) < 0.05 ? 3 : 1);
            }
        int f = flags(a, b, RUNS);
        CHECK(f >= 0);
        for (int t = 0; t < 3; t++)
            counts[t] += f >= 0 && (f >> t & 1);
    }
    gsl_rng_free(rng);
}

static void test_error_rates(void)
{
    size_t c[3];
    for (int kind = NORMAL; kind <= LOGNORMAL; kind++) {
        count_flags(kind, c);
        printf("A/A %s: flagged by welch %zu, mwu %zu, bootstrap %zu of %d\n",
               kind == NORMAL ? "normal" : "log-normal", c[0], c[1], c[2], PAIRS);
        for (int t = 0; t < 3; t++)
            CHECK(c[t] <= PAIRS * 6 / 100);
    }
    count_flags(SHIFTED_WITH_OUTLIERS, c);
    printf("A/B 5 %% shift, 1 in 20 outliers 3x: found by welch %zu, mwu %zu, bootstrap %zu of "
           "%d\n",
           c[0], c[1], c[2], PAIRS);
    CHECK(c[1] >= PAIRS * 90 / 100);
    CHECK(c[2] >= PAIRS * 90 / 100);
    CHECK(c[0] < c[1] && c[0] < c[2]);
}

/* Hodges-Lehmann against R 4's wilcox.test(b, a, conf.int = TRUE) (exact:
 * one side of at most 8, no ties): estimate and interval. */
static void test_hodges_lehmann(void)
{
    const double males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
    robust_hl h;
    CHECK_INT_EQ(robust_hodges_lehmann(males, 5, females, 4, 0.95, &h), 0);
    CHECK_INT_EQ(h.exact, 1);
    CHECK_NEAR(h.shift, -7, 1e-12);
    CHECK_NEAR(h.low, -17, 1e-12);
    CHECK_NEAR(h.high, 1, 1e-12);
    const double a3[] = { 1.5, 2.7, 0.3 },
                 b10[] = { 3.1, 4.4, 2.2, 5.0, 6.1, 1.1, 7.3, 8.8, 9.9, 10.2 };
    CHECK_INT_EQ(robust_hodges_lehmann(a3, 3, b10, 10, 0.95, &h), 0);
    CHECK_NEAR(h.shift, 4.35, 1e-12);
    CHECK_NEAR(h.low, 0.4, 1e-12);
    CHECK_NEAR(h.high, 8.5, 1e-12);
    CHECK_INT_EQ(robust_hodges_lehmann(a3, 0, b10, 10, 0.95, &h), -1);
    /* past ROBUST_HL_MAX_PAIRS: refused as too big, not computed */
    static double big[2001];
    CHECK_INT_EQ(robust_hodges_lehmann(big, 2001, big, 2001, 0.95, &h), 1);
    CHECK(isnan(h.shift));
    /* the normal approximation (30 a side): a shift of 0.5 sd covered by
     * the 95 % interval in 190 to 200 of 200 seeded pairs, the estimate
     * unbiased to 0.02 on average */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    size_t covered = 0;
    double total = 0;
    for (unsigned long seed = 1; seed <= 200; seed++) {
        gsl_rng_set(rng, seed);
        double a[30], b[30];
        for (size_t i = 0; i < 30; i++) {
            a[i] = 10 + gsl_ran_gaussian(rng, 1);
            b[i] = 10.5 + gsl_ran_gaussian(rng, 1);
        }
        CHECK_INT_EQ(robust_hodges_lehmann(a, 30, b, 30, 0.95, &h), 0);
        CHECK_INT_EQ(h.exact, 0);
        covered += h.low <= 0.5 && 0.5 <= h.high;
        total += h.shift;
    }
    gsl_rng_free(rng);
    printf("hodges-lehmann, 30 a side: covered %zu of 200, mean shift %.4f\n", covered,
           total / 200);
    CHECK(covered >= 180 && covered <= 200);
    CHECK(fabs(total / 200 - 0.5) < 0.02);
}

/* The median's interval: order statistics 3 and 10 of 12 (R: qbinom(0.025,
 * 12, 0.5) = 3 with pbinom 0.073 > 0.025, so k - 1 = 2; Conover's table A3
 * gives the same), and the extremes below 6 values. */
static void test_median_interval(void)
{
    double x[] = { 5.1, 4.9, 6.2, 5.7, 6.0, 5.3, 5.8, 6.1, 5.5, 5.2, 4.8, 6.4 }, out[3];
    robust_median_interval(x, 12, 0.95, out);
    CHECK_NEAR(out[0], 5.6, 1e-12);
    CHECK_NEAR(out[1], 5.1, 1e-12);
    CHECK_NEAR(out[2], 6.1, 1e-12);
    double few[] = { 3, 1, 2, 5, 4 };
    robust_median_interval(few, 5, 0.95, out);
    CHECK_NEAR(out[0], 3, 0);
    CHECK_NEAR(out[1], 1, 0);
    CHECK_NEAR(out[2], 5, 0);
    /* n = 6: P(Bin(6, 1/2) = 0) = 1/64 <= 0.025: the extremes, as order
     * statistics 1 and 6 */
    double six[] = { 6, 5, 4, 3, 2, 1 };
    robust_median_interval(six, 6, 0.95, out);
    CHECK_NEAR(out[1], 1, 0);
    CHECK_NEAR(out[2], 6, 0);
    /* n = 100: order statistics 40 and 61 (Conover: n/2 -+ 1.96 sqrt(n)/2) */
    double hundred[100];
    for (size_t i = 0; i < 100; i++)
        hundred[i] = (double)(100 - i);
    robust_median_interval(hundred, 100, 0.95, out);
    CHECK_NEAR(out[1], 40, 0);
    CHECK_NEAR(out[2], 61, 0);
}

/* The bootstrap draws each resample's median by bisection with binomial
 * counts (robust.c); the draws must follow the distribution of drawing the
 * n runs themselves. 20000 medians both ways, of 11 and of 10 values (odd
 * and even n, with a tie and an outlier): the two empirical distributions
 * differ by at most 0.02 anywhere (Kolmogorov-Smirnov; the 1 % critical
 * value for two samples of 20000 is 0.016). And the bootstrap is fast on
 * big samples: 10^4 resamples of 10^6 values would be 10^10 draws. */
static int cmp_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

static double ks_distance(double *x, double *y, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    qsort(y, n, sizeof *y, cmp_double);
    double worst = 0;
    for (size_t i = 0, j = 0; i < n || j < n;) {
        double v = i < n && (j >= n || x[i] <= y[j]) ? x[i] : y[j];
        while (i < n && x[i] == v)
            i++;
        while (j < n && y[j] == v)
            j++;
        double d = fabs((double)i / (double)n - (double)j / (double)n);
        worst = d > worst ? d : worst;
    }
    return worst;
}

static void test_bootstrap_distribution(void)
{
    const double odd[] = { 10.1, 9.8, 10.4, 10.0, 9.7, 10.3, 10.2, 9.9, 10.6, 30.0, 10.2 };
    const double even[] = { 11.9, 12.3, 12.0, 12.6, 11.8, 12.1, 12.2, 11.7, 12.4, 12.5 };
    enum {
        DRAWS = 20000
    };
    static double fast[DRAWS], naive[DRAWS];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    for (int k = 0; k < 2; k++) {
        const double *x = k ? even : odd;
        size_t n = k ? 10 : 11;
        double buf[11];
        for (size_t i = 0; i < DRAWS; i++) {
            for (size_t j = 0; j < n; j++)
                buf[j] = x[gsl_rng_uniform_int(rng, n)];
            naive[i] = gsl_stats_median(buf, 1, n);
        }
        CHECK_INT_EQ(robust_resample_medians(x, n, DRAWS, 5, fast), 0);
        double d = ks_distance(fast, naive, DRAWS);
        printf("resampled medians of %zu values, by binomial bisection against drawing the "
               "values: KS distance %.4f\n",
               n, d);
        CHECK(d < 0.02);
    }
    gsl_rng_free(rng);
    static double big[1000000];
    for (size_t i = 0; i < 1000000; i++)
        big[i] = 1 + (double)(i % 1000) / 1000;
    robust_bootstrap r;
    CHECK_INT_EQ(
        robust_bootstrap_ratio(big, 1000000, big, 1000000, 0.95, 10000, ROBUST_BOOTSTRAP_SEED, &r),
        0);
    CHECK(r.low <= 1 && 1 <= r.high && r.high - r.low < 0.01);
}

int main(void)
{
    test_bootstrap_distribution();
    test_hodges_lehmann();
    test_median_interval();
    test_mwu_scipy();
    test_tukey();
    test_bootstrap();
    test_error_rates();
    return check_done("test_robust");
}
