/* test_stats: the statistics on repeats against values computed
 * independently with SciPy 1.10 (scipy.stats.ttest_ind(b, a,
 * equal_var=False), scipy.stats.t.ppf), and the edge cases the CLI relies
 * on: constant samples, n < 2, means that are not positive. */
#include <math.h>

#include "analysis/analysis.h"
#include "check.h"

static const double a[] = { 10.1, 9.8, 10.4, 10.0, 9.7, 10.3 };
static const double b[] = { 11.9, 12.3, 12.0, 12.6, 11.8 };

static void test_summary(void)
{
    stats_summary s = stats_summarize(a, 6);
    CHECK_INT_EQ(s.n, 6);
    CHECK_NEAR(s.mean, 10.049999999999999, 1e-12);
    CHECK_NEAR(s.sd, 0.2738612787525833, 1e-12);
    double low, high;
    stats_mean_interval(&s, 0.95, &low, &high);
    CHECK_NEAR(low, 9.762600213580157, 1e-9);
    CHECK_NEAR(high, 10.33739978641984, 1e-9);
    stats_summary one = stats_summarize(a, 1);
    CHECK(one.sd == 0);
    stats_mean_interval(&one, 0.95, &low, &high);
    CHECK(isnan(low) && isnan(high));
    CHECK(isnan(stats_summarize(a, 0).mean));
}

static void test_welch(void)
{
    stats_summary sa = stats_summarize(a, 6), sb = stats_summarize(b, 5);
    stats_comparison c;
    CHECK_INT_EQ(stats_compare(&sa, &sb, 0.95, &c), 0);
    CHECK_NEAR(c.t, 11.24269674448688, 1e-9);
    CHECK_NEAR(c.df, 7.885343762865385, 1e-9);
    CHECK_NEAR(c.p_value, 3.9446127919796646e-06, 1e-12);
    CHECK_NEAR(c.ratio, 1.2059701492537316, 1e-12);
    CHECK_NEAR(c.ratio_low, 1.1617625778077714, 1e-9);
    CHECK_NEAR(c.ratio_high, 1.251859914127576, 1e-9);
    /* unequal sizes, no change: t ~ 0, p ~ 1 */
    static const double a2[] = { 1.0, 1.2 }, b2[] = { 1.1, 0.9, 1.3 };
    stats_summary s2a = stats_summarize(a2, 2), s2b = stats_summarize(b2, 3);
    CHECK_INT_EQ(stats_compare(&s2a, &s2b, 0.95, &c), 0);
    CHECK_NEAR(c.t, 0, 1e-12);
    CHECK_NEAR(c.p_value, 0.9999999999999989, 1e-9);
}

static void test_edges(void)
{
    stats_comparison c;
    stats_summary one = { 1, 0, 1 }, two = { 1, 0.1, 2 };
    CHECK_INT_EQ(stats_compare(&one, &two, 0.95, &c), -1);
    CHECK_INT_EQ(stats_compare(&two, &one, 0.95, &c), -1);
    /* constant samples: an exact difference is certain, an equality too */
    stats_summary k1 = { 2, 0, 3 }, k2 = { 3, 0, 4 };
    CHECK_INT_EQ(stats_compare(&k1, &k2, 0.95, &c), 0);
    CHECK(c.p_value == 0 && isinf(c.t) && c.t > 0);
    CHECK(c.ratio == 1.5 && c.ratio_low == 1.5 && c.ratio_high == 1.5);
    CHECK_INT_EQ(stats_compare(&k1, &k1, 0.95, &c), 0);
    CHECK(c.p_value == 1 && c.t == 0);
    /* a mean that is not positive: no interval for the ratio */
    stats_summary neg = { -1, 0.5, 5 };
    CHECK_INT_EQ(stats_compare(&neg, &two, 0.95, &c), 0);
    CHECK(isnan(c.ratio_low) && isnan(c.ratio_high));
}

/* The interval of a ratio whose b side has no spread: Welch's df is then
 * n_a - 1, the key t_quantile keeps its quantiles by. */
static double ratio_high(size_t n_a, double level)
{
    stats_summary sa = { 10, 1, n_a }, sb = { 12, 0, 4 };
    stats_comparison c;
    CHECK_INT_EQ(stats_compare(&sa, &sb, level, &c), 0);
    return c.ratio_high;
}

/* Quantiles asked again (kept by level and df) are those asked first:
 * every df from 1 to 199 (more than the slots kept), at two levels, then
 * the same again in the other order; and test_welch's SciPy values still
 * hold after all of them. */
static void test_quantile_reuse(void)
{
    double first[2][200];
    for (size_t n = 2; n < 201; n++) {
        first[0][n - 1] = ratio_high(n, 0.95);
        first[1][n - 1] = ratio_high(n, 0.90);
        CHECK(first[1][n - 1] < first[0][n - 1]);
    }
    for (size_t n = 200; n >= 2; n--) {
        CHECK(ratio_high(n, 0.90) == first[1][n - 1]);
        CHECK(ratio_high(n, 0.95) == first[0][n - 1]);
    }
    /* the Welch comparison of test_welch, after all these */
    test_welch();
}

int main(void)
{
    test_summary();
    test_welch();
    test_edges();
    test_quantile_reuse();
    return check_done("test_stats");
}
