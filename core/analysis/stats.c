/* stats: means, intervals and Welch's test, with GSL's t distribution. */
#include "stats.h"
#include "numeric.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_version.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Samples whose largest magnitude lies outside [SCALE_LOW, SCALE_HIGH] are
 * summarized on a copy divided by that magnitude: squares of 1e160 (or of
 * 1e-170) leave the doubles, their ratios do not. */
#define SCALE_HIGH 1e100
#define SCALE_LOW 1e-100

stats_summary stats_summarize(const double *x, size_t n)
{
    stats_summary s = { NAN, 0, n };
    if (n == 0)
        return s;
    numeric_init();
    double scale = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i]) > scale || isnan(x[i]))
            scale = fabs(x[i]);
    double *scaled = NULL;
    if (isfinite(scale) && scale > 0 && (scale > SCALE_HIGH || scale < SCALE_LOW))
        scaled = malloc(n * sizeof *scaled);
    if (scaled) {
        for (size_t i = 0; i < n; i++)
            scaled[i] = x[i] / scale;
        double mean = gsl_stats_mean(scaled, 1, n);
        s.mean = mean * scale;
        s.sd = n > 1 ? gsl_stats_sd_m(scaled, 1, n, mean) * scale : 0;
        free(scaled);
        return s;
    }
    s.mean = gsl_stats_mean(x, 1, n);
    s.sd = n > 1 ? gsl_stats_sd_m(x, 1, n, s.mean) : 0;
    return s;
}

double stats_median(double *x, size_t n) { return n ? gsl_stats_median(x, 1, n) : NAN; }

/* The t quantiles asked for lately, by level and degrees of freedom: one
 * quantile is several evaluations of GSL's t distribution (Newton steps
 * on gsl_cdf_tdist_P). Welch's df is a real number that seldom repeats
 * (diff --stat of two noisy sweeps: no hit), but it is n - 1 of the other
 * side, again and again, when a side has no spread (a count, a size), as
 * is a mean's interval. Exact keys, so a hit is GSL's own result. One
 * cache per thread. */
#define T_QUANTILE_SLOTS 64 /* 2^6: the hash's top 6 bits */

typedef struct t_quantile_slot {
    double level, df, quantile;
    int used;
} t_quantile_slot;

static _Thread_local t_quantile_slot t_quantile_cache[T_QUANTILE_SLOTS];

/* The t quantile with probability (1 + level) / 2: a two-sided interval. */
static double t_quantile(double level, double df)
{
    uint64_t bits;
    memcpy(&bits, &df, sizeof bits);
    /* Fibonacci hashing: the top bits of the product depend on all of df's */
    t_quantile_slot *slot = &t_quantile_cache[(bits * UINT64_C(0x9E3779B97F4A7C15)) >> 58];
    if (slot->used && slot->df == df && slot->level == level)
        return slot->quantile;
    double quantile = gsl_cdf_tdist_Pinv((1 + level) / 2, df);
    *slot = (t_quantile_slot){ level, df, quantile, 1 };
    return quantile;
}

void stats_mean_interval(const stats_summary *s, double level, double *low, double *high)
{
    if (s->n < 2) {
        *low = *high = NAN;
        return;
    }
    double half = t_quantile(level, (double)(s->n - 1)) * s->sd / sqrt((double)s->n);
    *low = s->mean - half;
    *high = s->mean + half;
}

/* Welch-Satterthwaite degrees of freedom of the sum of two errors given as
 * standard errors (sd / sqrt(n)). Computed on their ratio to the larger, so
 * errors of 1e160 (whose fourth powers overflow) give the same df as 1. */
static double welch_df(double se_a, size_t n_a, double se_b, size_t n_b)
{
    double larger = fmax(se_a, se_b);
    if (!(larger > 0) || !isfinite(larger))
        return NAN;
    double r_a = se_a / larger, r_b = se_b / larger;
    r_a *= r_a;
    r_b *= r_b;
    double sum = r_a + r_b;
    return sum * sum / (r_a * r_a / (double)(n_a - 1) + r_b * r_b / (double)(n_b - 1));
}

int stats_compare(const stats_summary *a, const stats_summary *b, double level,
                  stats_comparison *out)
{
    if (a->n < 2 || b->n < 2)
        return -1;
    numeric_init();
    stats_comparison c = { .ratio = b->mean / a->mean };
    double se_a = a->sd / sqrt((double)a->n), se_b = b->sd / sqrt((double)b->n);
    double se = hypot(se_a, se_b), change = b->mean - a->mean;
    if (se == 0) { /* both constant: the difference is exact, no noise to weigh */
        c.t = change == 0 ? 0 : copysign(INFINITY, change);
        c.df = NAN;
        c.p_value = change == 0 ? 1 : 0;
    } else {
        c.t = change / se;
        c.df = welch_df(se_a, a->n, se_b, b->n);
        /* NaN when a mean or sd is not finite: GSL's answer, with its
         * handler off, instead of an abort */
        c.p_value = isfinite(c.t) && isfinite(c.df) ? 2 * gsl_cdf_tdist_Q(fabs(c.t), c.df)
                    : isinf(c.t) && !isnan(c.df)    ? 0
                                                    : NAN;
    }
    c.ratio_low = c.ratio_high = NAN;
    if (a->mean > 0 && b->mean > 0) {
        /* var(log mean) ~ var(mean) / mean^2 (delta method); the interval is
         * symmetric in log(ratio), so it never crosses 0 */
        double rel_a = se_a / a->mean, rel_b = se_b / b->mean;
        double se_log = hypot(rel_a, rel_b);
        double df = welch_df(rel_a, a->n, rel_b, b->n);
        double half = se_log > 0 && isfinite(df) ? t_quantile(level, df) * se_log
                      : se_log > 0               ? NAN
                                                 : 0;
        c.ratio_low = c.ratio * exp(-half);
        c.ratio_high = c.ratio * exp(half);
    }
    *out = c;
    return 0;
}

const char *stats_gsl_version(void) { return gsl_version; }
