/* stats: statistics on repeats — a sample's mean, standard deviation and
 * Student-t confidence interval, and the comparison of two samples (ratio
 * of means with its interval, Welch's t-test). Numbers only: no store, no
 * printing (docs/analysis.md, "Comparing runs with noise"). */
#ifndef RUNNER_ANALYSIS_STATS_H
#define RUNNER_ANALYSIS_STATS_H

#include <stddef.h>

/* What a sample reduces to. sd is the sample standard deviation (n - 1);
 * 0 when n < 2. */
typedef struct stats_summary {
    double mean, sd;
    size_t n;
} stats_summary;

/* The summary of x[0..n) (gsl_stats_mean, gsl_stats_sd_m). n = 0 gives a
 * NaN mean. */
stats_summary stats_summarize(const double *x, size_t n);

/* The version of the GSL runner is linked with (statically: the build's),
 * for the machine facts. */
const char *stats_gsl_version(void);

/* The two-sided confidence interval of the mean at `level` (0.95):
 * mean -/+ t(level, n - 1) sd / sqrt(n). NaN bounds when n < 2. */
void stats_mean_interval(const stats_summary *s, double level, double *low, double *high);

/* b against a. */
typedef struct stats_comparison {
    double ratio;                 /* b's mean / a's mean */
    double ratio_low, ratio_high; /* its interval at `level` by the delta method on
                                   * log(ratio); NaN unless both means are > 0 */
    double t, df;                 /* Welch's t of b - a and its Welch-Satterthwaite df */
    double p_value;               /* two-sided; 1 when both samples are constant and
                                   * equal, 0 when constant and different */
} stats_comparison;

/* Compares b with a. Both need n >= 2 (the caller refuses less): returns 0,
 * or -1 when a side has n < 2 (*out untouched). */
int stats_compare(const stats_summary *a, const stats_summary *b, double level,
                  stats_comparison *out);

#endif
