/* changepoint: where a series of samples changes level — the core of
 * `runner history` (issue 35, item 4; its answer is computed in
 * history.c, for the command and the dashboard). Groups are samples in
 * order (one per sweep, oldest first); binary segmentation with the
 * Mann–Whitney test finds the splits. Numbers only (docs/analysis.md,
 * "History across commits"). */
#ifndef RUNNER_ANALYSIS_CHANGEPOINT_H
#define RUNNER_ANALYSIS_CHANGEPOINT_H

#include <stddef.h>

/* One change: the groups from `at` on differ from those before. */
typedef struct changepoint {
    size_t at;        /* index of the first group of the new level */
    double p_value;   /* Mann–Whitney of the segment's left part against its right,
                       * before the Bonferroni factor */
    double ratio;     /* median after / median before, over the neighbouring
                       * segments */
    double low, high; /* its 95 % bootstrap percentile interval (robust.h) */
} changepoint;

/* Binary segmentation: in a segment of groups [lo, hi), every split k
 * (lo < k < hi) pools the samples on each side and is scored by the
 * Mann–Whitney p-value (ranks taken once per segment, the rank sum of the
 * left part by prefix sums: O(N log N) for N samples); the split with the
 * smallest p is a change when p < alpha / (hi - lo - 1) (Bonferroni over
 * the splits tried), and both halves are searched again. Then each
 * change's ratio and interval from the segments on either side
 * (`resamples` bootstrap resamples; ROBUST_BOOTSTRAP_RESAMPLES by default
 * in a command). groups[i]
 * holds sizes[i] finite values; out has room for max_out changes, found
 * in order of `at`. 0, or -1 out of memory (or a median <= 0 for the
 * ratio). */
int changepoint_find(const double *const *groups, const size_t *sizes, size_t count, double alpha,
                     size_t resamples, changepoint *out, size_t max_out, size_t *found);

#endif
