/* robust: Mann–Whitney U with R's Wilcoxon distribution (libRmath), the
 * bootstrap of a ratio of medians and Tukey's fences with GSL. */
#include "robust.h"
#include "analysis_int.h"

#define MATHLIB_STANDALONE 1
#include <Rmath.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
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

double robust_mwu_p(double u_a, double m, double k, double tie_term)
{
    double u = fmax(u_a, m * k - u_a); /* the larger: its upper tail, doubled */
    double p;
    if ((m <= 8 || k <= 8) && tie_term == 0) {
        /* P(U >= u) = P(U > u - 1); U is an integer here (no ties) */
        p = 2 * pwilcox(u - 1, m, k, 0, 0);
    } else {
        double total = m + k;
        double s = sqrt(m * k / 12 * ((total + 1) - tie_term / (total * (total - 1))));
        double z = (u - m * k / 2 - 0.5) / s;
        p = s > 0 ? 2 * pnorm(z, 0, 1, 0, 0) : 1; /* every value tied */
    }
    return fmin(fmax(p, 0), 1);
}

/* The median of a resample of x[0..n) drawn into buf. */
static double resample_median(const gsl_rng *rng, const double *x, size_t n, double *buf)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = x[gsl_rng_uniform_int(rng, n)];
    return gsl_stats_median(buf, 1, n); /* quickselect: buf is reordered */
}

int robust_bootstrap_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level,
                           size_t resamples, unsigned long seed, robust_bootstrap *out)
{
    if (n_a == 0 || n_b == 0 || resamples == 0)
        return -1;
    size_t most = n_a > n_b ? n_a : n_b;
    double *buf = malloc(most * sizeof *buf);
    double *ratios = malloc(resamples * sizeof *ratios);
    gsl_rng *rng = buf && ratios ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
    int rc = -1;
    if (!rng)
        goto done;
    memcpy(buf, a, n_a * sizeof *buf);
    double median_a = gsl_stats_median(buf, 1, n_a);
    memcpy(buf, b, n_b * sizeof *buf);
    double median_b = gsl_stats_median(buf, 1, n_b);
    if (!(median_a > 0) || !(median_b > 0))
        goto done;
    gsl_rng_set(rng, seed);
    size_t at_most_1 = 0, at_least_1 = 0;
    for (size_t i = 0; i < resamples; i++) {
        double ma = resample_median(rng, a, n_a, buf);
        double mb = resample_median(rng, b, n_b, buf);
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
    free(buf);
    free(ratios);
    return rc;
}
