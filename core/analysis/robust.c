/* robust: Mann–Whitney U with R's Wilcoxon distribution (libRmath), the
 * bootstrap of a ratio of medians and Tukey's fences with GSL, the
 * Hodges–Lehmann shift and a median's order-statistic interval. */
#include "robust.h"
#include "analysis_int.h"

#define MATHLIB_STANDALONE 1
#include <Rmath.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int robust_tukey(const double *x, size_t n, robust_outliers *out)
{
    *out = (robust_outliers){ 0 };
    if (n < 4)
        return 0; /* no quartiles worth the name */
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, x, n * sizeof *sorted);
    gsl_sort(sorted, 1, n);
    double q1 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.25);
    double q3 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.75);
    double iqr = q3 - q1;
    for (size_t i = 0; i < n; i++) {
        double v = sorted[i];
        if (v < q1 - 3 * iqr)
            out->low_severe++;
        else if (v < q1 - 1.5 * iqr)
            out->low_mild++;
        else if (v > q3 + 3 * iqr)
            out->high_severe++;
        else if (v > q3 + 1.5 * iqr)
            out->high_mild++;
    }
    free(sorted);
    return 0;
}

size_t robust_outlier_count(const robust_outliers *o)
{
    return o->low_severe + o->low_mild + o->high_mild + o->high_severe;
}

int robust_mwu_test(const double *a, size_t n_a, const double *b, size_t n_b, robust_mwu *out)
{
    if (n_a == 0 || n_b == 0)
        return -1;
    size_t n = n_a + n_b;
    double *all = malloc(n * sizeof *all);
    size_t *order = malloc(n * sizeof *order);
    if (!all || !order) {
        free(all);
        free(order);
        return -1;
    }
    memcpy(all, a, n_a * sizeof *all);
    memcpy(all + n_a, b, n_b * sizeof *all);
    gsl_sort_index(order, all, 1, n);
    /* average ranks over ties; the rank sum of a and sum(t^3 - t) */
    double rank_sum_a = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && all[order[j]] == all[order[i]])
            j++;
        double rank = (double)(i + 1 + j) / 2, t = (double)(j - i);
        tie_term += t * t * t - t;
        for (size_t k = i; k < j; k++)
            if (order[k] < n_a)
                rank_sum_a += rank;
        i = j;
    }
    free(all);
    free(order);
    double m = (double)n_a, k = (double)n_b;
    robust_mwu r = { .u_a = rank_sum_a - m * (m + 1) / 2 };
    r.exact = (n_a <= 8 || n_b <= 8) && tie_term == 0;
    r.p_value = robust_mwu_p(r.u_a, m, k, tie_term);
    *out = r;
    return 0;
}

double robust_mwu_log_p(double u_a, double m, double k, double tie_term)
{
    double u = fmax(u_a, m * k - u_a); /* the larger: its upper tail, doubled */
    double log_p;
    if ((m <= 8 || k <= 8) && tie_term == 0) {
        /* P(U >= u) = P(U > u - 1); U is an integer here (no ties) */
        log_p = log(2.0) + pwilcox(u - 1, m, k, 0, 1);
    } else {
        double total = m + k;
        double s = sqrt(m * k / 12 * ((total + 1) - tie_term / (total * (total - 1))));
        double z = (u - m * k / 2 - 0.5) / s;
        log_p = s > 0 ? log(2.0) + pnorm(z, 0, 1, 0, 1) : 0; /* every value tied: 1 */
    }
    return isnan(log_p) ? log_p : fmin(log_p, 0);
}

double robust_mwu_p(double u_a, double m, double k, double tie_term)
{
    return fmin(fmax(exp(robust_mwu_log_p(u_a, m, k, tie_term)), 0), 1);
}

/* The values of ranks t1 <= t2 (1-based) among `count` values drawn with
 * replacement from sorted[lo..hi): by bisection on the sorted values, the
 * number of draws below the middle being binomial given those in the
 * range (GSL's gsl_ran_binomial), so one resample's order statistics cost
 * O(log n) draws instead of n, with the distribution of drawing the n
 * values themselves. When the ranks fall in different halves both halves
 * are followed, with the counts of one resample. */
static void resample_ranks(const gsl_rng *rng, const double *sorted, size_t lo, size_t hi,
                           unsigned int count, unsigned int t1, unsigned int t2, double *v1,
                           double *v2)
{
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        unsigned int below = gsl_ran_binomial(rng, (double)(mid - lo) / (double)(hi - lo), count);
        if (t2 <= below) { /* both below the middle */
            hi = mid;
            count = below;
        } else if (t1 > below) { /* both above */
            lo = mid;
            count -= below;
            t1 -= below;
            t2 -= below;
        } else { /* t1 below, t2 above: the same resample's two halves */
            double unused;
            resample_ranks(rng, sorted, lo, mid, below, t1, t1, v1, &unused);
            resample_ranks(rng, sorted, mid, hi, count - below, t2 - below, t2 - below, v2,
                           &unused);
            return;
        }
    }
    *v1 = *v2 = sorted[lo];
}

/* The median of a resample of sorted[0..n) (the mean of the two middle
 * values for an even n, as gsl_stats_median). */
static double resample_median(const gsl_rng *rng, const double *sorted, size_t n)
{
    unsigned int m = (unsigned int)n, t1 = (m + 1) / 2, t2 = m / 2 + 1;
    double v1, v2;
    resample_ranks(rng, sorted, 0, n, m, t1, m % 2 ? t1 : t2, &v1, &v2);
    return m % 2 ? v1 : (v1 + v2) / 2;
}

int robust_bootstrap_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level,
                           size_t resamples, unsigned long seed, robust_bootstrap *out)
{
    if (n_a == 0 || n_b == 0 || resamples == 0)
        return -1;
    if (n_a > UINT_MAX || n_b > UINT_MAX) /* gsl_ran_binomial's counts */
        return -1;
    double *sorted_a = malloc(n_a * sizeof *sorted_a), *sorted_b = malloc(n_b * sizeof *sorted_b);
    double *ratios = malloc(resamples * sizeof *ratios);
    gsl_rng *rng = sorted_a && sorted_b && ratios ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
    int rc = -1;
    if (!rng)
        goto done;
    memcpy(sorted_a, a, n_a * sizeof *sorted_a);
    gsl_sort(sorted_a, 1, n_a);
    double median_a = gsl_stats_median_from_sorted_data(sorted_a, 1, n_a);
    memcpy(sorted_b, b, n_b * sizeof *sorted_b);
    gsl_sort(sorted_b, 1, n_b);
    double median_b = gsl_stats_median_from_sorted_data(sorted_b, 1, n_b);
    if (!(median_a > 0) || !(median_b > 0))
        goto done;
    gsl_rng_set(rng, seed);
    size_t at_most_1 = 0, at_least_1 = 0;
    for (size_t i = 0; i < resamples; i++) {
        double ma = resample_median(rng, sorted_a, n_a);
        double mb = resample_median(rng, sorted_b, n_b);
        ratios[i] = mb / ma;
        at_most_1 += ratios[i] <= 1;
        at_least_1 += ratios[i] >= 1;
    }
    gsl_sort(ratios, 1, resamples);
    double tail = (1 - level) / 2;
    size_t fewer = at_most_1 < at_least_1 ? at_most_1 : at_least_1;
    *out = (robust_bootstrap){
        .ratio = median_b / median_a,
        .low = gsl_stats_quantile_from_sorted_data(ratios, 1, resamples, tail),
        .high = gsl_stats_quantile_from_sorted_data(ratios, 1, resamples, 1 - tail),
        .p_value = fmin(1, 2 * (double)fewer / (double)resamples),
        .resamples = resamples,
        .seed = seed,
    };
    rc = 0;
done:
    gsl_rng_free(rng);
    free(sorted_a);
    free(sorted_b);
    free(ratios);
    return rc;
}

int robust_hodges_lehmann(const double *a, size_t n_a, const double *b, size_t n_b, double level,
                          robust_hl *out)
{
    *out = (robust_hl){ NAN, NAN, NAN, 0 };
    if (n_a == 0 || n_b == 0)
        return -1;
    if ((double)n_a * (double)n_b > ROBUST_HL_MAX_PAIRS)
        return 1;
    size_t pairs = n_a * n_b;
    double *d = malloc(pairs * sizeof *d);
    if (!d)
        return -1;
    for (size_t j = 0; j < n_b; j++)
        for (size_t i = 0; i < n_a; i++)
            d[j * n_a + i] = b[j] - a[i];
    gsl_sort(d, 1, pairs);
    double m = (double)n_a, k = (double)n_b, alpha = 1 - level;
    /* ties among the values make the exact distribution wrong, as in
     * robust_mwu_test: a tie shows as a zero difference within a side,
     * so check the pooled values */
    int ties = 0;
    double *all = malloc((n_a + n_b) * sizeof *all);
    if (!all) {
        free(d);
        return -1;
    }
    memcpy(all, a, n_a * sizeof *all);
    memcpy(all + n_a, b, n_b * sizeof *all);
    gsl_sort(all, 1, n_a + n_b);
    for (size_t i = 1; i < n_a + n_b && !ties; i++)
        ties = all[i] == all[i - 1];
    free(all);
    double c;
    out->exact = (n_a <= 8 || n_b <= 8) && !ties;
    if (out->exact) {
        c = qwilcox(alpha / 2, m, k, 1, 0); /* as R's wilcox.test */
        if (c < 1)
            c = 1;
    } else {
        c = floor(m * k / 2 - qnorm(1 - alpha / 2, 0, 1, 1, 0) * sqrt(m * k * (m + k + 1) / 12));
        if (c < 1)
            c = 1;
    }
    out->shift = gsl_stats_median_from_sorted_data(d, 1, pairs);
    out->low = d[(size_t)c - 1];
    out->high = d[pairs - (size_t)c];
    free(d);
    return 0;
}

void robust_median_interval(double *x, size_t n, double level, double out[3])
{
    out[0] = out[1] = out[2] = NAN;
    if (n == 0)
        return;
    gsl_sort(x, 1, n);
    out[0] = gsl_stats_median_from_sorted_data(x, 1, n);
    double tail = (1 - level) / 2, nn = (double)n;
    /* j = k - 1: the largest with P(X <= j) <= tail, X ~ Bin(n, 1/2) */
    double j = qbinom(tail, nn, 0.5, 1, 0);
    if (pbinom(j, nn, 0.5, 1, 0) > tail)
        j -= 1;
    size_t k = j < 0 ? 1 : (size_t)j + 1; /* no order statistic reaches the level: the extremes */
    out[1] = x[k - 1];
    out[2] = x[n - k];
}

int robust_resample_medians(const double *x, size_t n, size_t resamples, unsigned long seed,
                            double *out)
{
    if (n == 0 || n > UINT_MAX)
        return -1;
    double *sorted = malloc(n * sizeof *sorted);
    gsl_rng *rng = sorted ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
    if (!rng) {
        free(sorted);
        return -1;
    }
    memcpy(sorted, x, n * sizeof *sorted);
    gsl_sort(sorted, 1, n);
    gsl_rng_set(rng, seed);
    for (size_t i = 0; i < resamples; i++)
        out[i] = resample_median(rng, sorted, n);
    gsl_rng_free(rng);
    free(sorted);
    return 0;
}
