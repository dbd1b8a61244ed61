/* stats: means, intervals and Welch's test, with GSL's t distribution. */
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_version.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

stats_summary stats_summarize(const double *x, size_t n)
{
    stats_summary s = { NAN, 0, n };
    if (n == 0)
        return s;
    s.mean = gsl_stats_mean(x, 1, n);
    s.sd = n > 1 ? gsl_stats_sd_m(x, 1, n, s.mean) : 0;
    return s;
}

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

/* Welch-Satterthwaite degrees of freedom of u_a + u_b, where u = var / n. */
static double welch_df(double u_a, size_t n_a, double u_b, size_t n_b)
{
    double sum = u_a + u_b;
    return sum * sum / (u_a * u_a / (double)(n_a - 1) + u_b * u_b / (double)(n_b - 1));
}

int stats_compare(const stats_summary *a, const stats_summary *b, double level,
                  stats_comparison *out)
{
    if (a->n < 2 || b->n < 2)
        return -1;
    stats_comparison c = { .ratio = b->mean / a->mean };
    double u_a = a->sd * a->sd / (double)a->n, u_b = b->sd * b->sd / (double)b->n;
    double se = sqrt(u_a + u_b), change = b->mean - a->mean;
    if (se == 0) { /* both constant: the difference is exact, no noise to weigh */
        c.t = change == 0 ? 0 : copysign(INFINITY, change);
        c.df = NAN;
        c.p_value = change == 0 ? 1 : 0;
    } else {
        c.t = change / se;
        c.df = welch_df(u_a, a->n, u_b, b->n);
        c.p_value = 2 * gsl_cdf_tdist_Q(fabs(c.t), c.df);
    }
    c.ratio_low = c.ratio_high = NAN;
    if (a->mean > 0 && b->mean > 0) {
        /* var(log mean) ~ var(mean) / mean^2 (delta method); the interval is
         * symmetric in log(ratio), so it never crosses 0 */
        double w_a = u_a / (a->mean * a->mean), w_b = u_b / (b->mean * b->mean);
        double se_log = sqrt(w_a + w_b);
        double half = se_log > 0 ? t_quantile(level, welch_df(w_a, a->n, w_b, b->n)) * se_log : 0;
        c.ratio_low = c.ratio * exp(-half);
        c.ratio_high = c.ratio * exp(half);
    }
    *out = c;
    return 0;
}

const char *stats_gsl_version(void) { return gsl_version; }
