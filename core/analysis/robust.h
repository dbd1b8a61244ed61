/* robust: comparisons of two samples that outliers and skew do not
 * overturn — the Mann–Whitney U test (exact p-value from R's Wilcoxon
 * distribution for small samples, normal approximation with tie and
 * continuity corrections otherwise, as scipy.stats.mannwhitneyu), a
 * seeded bootstrap interval of the ratio of medians, and Tukey's fences
 * (mild and severe outliers, as Criterion classifies them). Functions on
 * arrays of samples, one per group: no store, no printing
 * (docs/analysis.md, "Robust comparison"). */
#ifndef RUNNER_ANALYSIS_ROBUST_H
#define RUNNER_ANALYSIS_ROBUST_H

#include <stddef.h>

/* Tukey's fences: with the quartiles q1, q3 and iqr = q3 - q1, a value
 * outside [q1 - 1.5 iqr, q3 + 1.5 iqr] is a mild outlier, outside
 * [q1 - 3 iqr, q3 + 3 iqr] a severe one (counted once, as severe). */
typedef struct robust_outliers {
    size_t low_severe, low_mild, high_mild, high_severe;
} robust_outliers;

/* The outliers of x[0..n) (quartiles: gsl_stats_quantile_from_sorted_data
 * on a sorted copy). 0, or -1 out of memory (*out zeroed). */
int robust_tukey(const double *x, size_t n, robust_outliers *out);

/* Mild plus severe, both sides. */
size_t robust_outlier_count(const robust_outliers *o);

/* Mann–Whitney U of b against a. */
typedef struct robust_mwu {
    double u_a;     /* U of a: pairs (a_i, b_j) with a_i > b_j, ties counting 1/2
                     * (scipy's statistic for mannwhitneyu(a, b)) */
    double p_value; /* two-sided */
    int exact;      /* 1: the exact null distribution (pwilcox), used when one
                     * side has at most 8 values and there are no ties; 0: the
                     * normal approximation with tie and continuity corrections */
} robust_mwu;

/* Compares b with a; both need n >= 1. 0, or -1 (n = 0 or out of memory). */
int robust_mwu_test(const double *a, size_t n_a, const double *b, size_t n_b, robust_mwu *out);

/* The Hodges–Lehmann shift of b against a: the median of the m n
 * differences b_j - a_i, and its distribution-free interval, the
 * differences of ranks C and m n + 1 - C once sorted (Hollander & Wolfe,
 * 2nd ed., §4.3; R's wilcox.test(b, a, conf.int = TRUE)). C comes from
 * R's qwilcox (the exact Mann–Whitney distribution) where robust_mwu_test
 * is exact, else from the normal approximation m n/2 - z sqrt(m n (m + n
 * + 1)/12) (what R does past 50 values, without its continuity search).
 * Assumes the two distributions differ by a shift alone. */
#define ROBUST_HL_MAX_PAIRS 4000000 /* m n past it: no estimate (32 MB of differences) */

typedef struct robust_hl {
    double shift;     /* median of b_j - a_i */
    double low, high; /* the interval at `level` (its coverage is at least that) */
    int exact;        /* 1: C from qwilcox; 0: the normal approximation */
} robust_hl;

/* 0; 1 when m n is past ROBUST_HL_MAX_PAIRS (nothing computed); -1 (n = 0
 * or out of memory). */
int robust_hodges_lehmann(const double *a, size_t n_a, const double *b, size_t n_b, double level,
                          robust_hl *out);

/* The median of x[0..n) (sorted in place) and its distribution-free
 * interval at `level`: the order statistics k and n + 1 - k, k the largest
 * with P(Bin(n, 1/2) <= k - 1) <= (1 - level)/2 (R's qbinom and pbinom;
 * Conover 1999, §3.2), so its coverage is at least `level`; the extremes
 * when n is too small for any (n < 6 at 95 %). out: median, low, high. */
void robust_median_interval(double *x, size_t n, double level, double out[3]);

/* The bootstrap of the ratio of medians, b's over a's. */
#define ROBUST_BOOTSTRAP_RESAMPLES 10000
#define ROBUST_BOOTSTRAP_SEED 20261206UL /* GSL's gsl_rng_mt19937 seeded with it */

typedef struct robust_bootstrap {
    double ratio;     /* median(b) / median(a) */
    double low, high; /* the percentile interval at `level` */
    double p_value;   /* two-sided: 2 min(share of resampled ratios <= 1,
                        * share >= 1), at most 1; < 1 - level exactly when
                        * the interval leaves out 1 */
    size_t resamples; /* resamples drawn */
    unsigned long seed;
} robust_bootstrap;

/* The medians of `resamples` resamples of x[0..n) (each n values drawn
 * with replacement, gsl_rng_mt19937 seeded with `seed`), into out: the
 * bootstrap's draws of one side. Each is found by bisection on the sorted
 * values with binomial counts (gsl_ran_binomial: how many of the n draws
 * fall below the middle of the range left), O(log n) draws instead of n,
 * with the distribution of drawing the values. 0, or -1 (n = 0, out of
 * memory). */
int robust_resample_medians(const double *x, size_t n, size_t resamples, unsigned long seed,
                            double *out);

/* Draws `resamples` resamples of each side (with replacement, same size)
 * with gsl_rng_mt19937 seeded with `seed`, takes the ratio of their
 * medians, and the percentile interval of those ratios at `level`. Both
 * medians must be > 0 and both n >= 1. 0, or -1 (a median <= 0, n = 0, or
 * out of memory). */
int robust_bootstrap_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level,
                           size_t resamples, unsigned long seed, robust_bootstrap *out);

#endif
