/* sensitivity: Saltelli designs and Sobol indices. Random numbers are
 * GSL's MT19937 (gsl_rng), interval bounds GSL's quantiles of the sorted
 * bootstrap replicates (gsl_sort, gsl_stats_quantile_from_sorted_data). */
#include "sensitivity.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/budget.h"
#include "base/util.h"
#include "analysis_int.h"

#define DEFAULT_BOOTSTRAP 1000
#define DEFAULT_CONFIDENCE 0.95
/* A design above this many points is a mistake, not a plan. */
#define MAX_DESIGN_POINTS 100000000u

/* MT19937 takes 32 bits of seed: fold the 64 so that both halves count. */
static gsl_rng *seeded_rng(uint64_t seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r)
        gsl_rng_set(r, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    return r;
}

int sensitivity_design(size_t n_base, size_t d, uint64_t seed, double **points, char **err)
{
    *points = NULL;
    if (d < 1 || d > SENSITIVITY_MAX_PARAMS)
        return util_fail(err, "a Saltelli design varies 1 to %d parameters, not %zu",
                         SENSITIVITY_MAX_PARAMS, d);
    if (n_base < 1 || n_base > MAX_DESIGN_POINTS / (d + 2))
        return util_fail(err, "a Saltelli design needs 1 to %zu base points over %zu parameters",
                         (size_t)(MAX_DESIGN_POINTS / (d + 2)), d);
    size_t width = d + 2;
    double *p = malloc(n_base * width * d * sizeof *p);
    gsl_rng *r = seeded_rng(seed);
    if (!p || !r) {
        free(p);
        gsl_rng_free(r);
        return util_fail(err, "out of memory making a Saltelli design of %zu points",
                         n_base * width);
    }
    for (size_t j = 0; j < n_base; j++) {
        double *a = p + j * width * d, *b = a + d;
        for (size_t k = 0; k < d; k++)
            a[k] = gsl_rng_uniform(r);
        for (size_t k = 0; k < d; k++)
            b[k] = gsl_rng_uniform(r);
        for (size_t i = 0; i < d; i++) {
            double *ab = a + (2 + i) * d;
            memcpy(ab, a, d * sizeof *ab);
            ab[i] = b[i];
        }
    }
    gsl_rng_free(r);
    *points = p;
    return 0;
}

void sensitivity_result_clear(sensitivity_result *r)
{
    if (!r)
        return;
    free(r->indices);
    memset(r, 0, sizeof *r);
}

/* The indices over the blocks pick[0..n) (a bootstrap resample, or every
 * block): first[d], total[d]. Returns Var(y) over their A and B points. */
static double indices_of(const double *y, size_t d, const size_t *pick, size_t n, double *scratch,
                         double *first, double *total)
{
    size_t width = d + 2;
    for (size_t j = 0; j < n; j++) {
        const double *block = y + pick[j] * width;
        scratch[2 * j] = block[0];
        scratch[2 * j + 1] = block[1];
    }
    double variance = gsl_stats_variance(scratch, 1, 2 * n);
    for (size_t i = 0; i < d; i++) {
        double sum_first = 0, sum_total = 0;
        for (size_t j = 0; j < n; j++) {
            const double *block = y + pick[j] * width;
            double fa = block[0], fb = block[1], fab = block[2 + i];
            sum_first += fb * (fab - fa);         /* Saltelli et al. 2010, (b) */
            sum_total += (fa - fab) * (fa - fab); /* Jansen 1999, (f) */
        }
        first[i] = sum_first / (double)n / variance;
        total[i] = sum_total / (2.0 * (double)n) / variance;
    }
    return variance;
}

/* The interval [lo, hi] of replicates x[0..n) (sorted in place). */
static void percentile_interval(double *x, size_t n, double confidence, double *lo, double *hi)
{
    if (n == 0) {
        *lo = *hi = NAN;
        return;
    }
    gsl_sort(x, 1, n);
    *lo = gsl_stats_quantile_from_sorted_data(x, 1, n, (1 - confidence) / 2);
    *hi = gsl_stats_quantile_from_sorted_data(x, 1, n, (1 + confidence) / 2);
}

int sensitivity_estimate(const double *y, size_t n_base, size_t d,
                         const sensitivity_options *options, sensitivity_result *out, char **err)
{
    memset(out, 0, sizeof *out);
    size_t bootstrap = options && options->bootstrap ? options->bootstrap : DEFAULT_BOOTSTRAP;
    double confidence =
        options && options->confidence > 0 ? options->confidence : DEFAULT_CONFIDENCE;
    if (d < 1 || d > SENSITIVITY_MAX_PARAMS)
        return util_fail(err, "%zu parameters: expected 1 to %d", d, SENSITIVITY_MAX_PARAMS);
    if (n_base < 2)
        return util_fail(err,
                         "%zu usable block%s of %zu points: the indices need at least 2 (more "
                         "than 500 for useful intervals)",
                         n_base, n_base == 1 ? "" : "s", d + 2);
    size_t *pick = malloc(n_base * sizeof *pick);
    double *scratch = malloc(2 * n_base * sizeof *scratch);
    double *first = malloc(d * sizeof *first), *total = malloc(d * sizeof *total);
    double *rep_first = malloc(bootstrap * d * sizeof *rep_first);
    double *rep_total = malloc(bootstrap * d * sizeof *rep_total);
    double *column = malloc(bootstrap * sizeof *column);
    gsl_rng *r = seeded_rng(options ? options->seed : 0);
    out->indices = calloc(d, sizeof *out->indices);
    int rc = -1;
    if (!pick || !scratch || !first || !total || !rep_first || !rep_total || !column || !r ||
        !out->indices) {
        util_fail(err, "out of memory estimating the indices");
        goto done;
    }
    for (size_t j = 0; j < n_base; j++)
        pick[j] = j;
    out->variance = indices_of(y, d, pick, n_base, scratch, first, total);
    out->mean = gsl_stats_mean(scratch, 1, 2 * n_base);
    if (!(out->variance > 0) || !isfinite(out->variance)) {
        util_fail(err, "the output does not vary over the design's points: every index is 0/0");
        goto done;
    }
    for (size_t b = 0; b < bootstrap; b++) {
        if (budget_check(err) != BUDGET_OK) /* a script's sensitivity{}: its limits */
            goto done;
        for (size_t j = 0; j < n_base; j++)
            pick[j] = gsl_rng_uniform_int(r, n_base);
        indices_of(y, d, pick, n_base, scratch, rep_first + b * d, rep_total + b * d);
    }
    for (size_t i = 0; i < d; i++) {
        sensitivity_index *x = &out->indices[i];
        x->first = first[i];
        x->total = total[i];
        /* A resample whose y is constant gives NaN: it has no say. */
        size_t kept = 0;
        for (size_t b = 0; b < bootstrap; b++)
            if (isfinite(rep_first[b * d + i]))
                column[kept++] = rep_first[b * d + i];
        percentile_interval(column, kept, confidence, &x->first_low, &x->first_high);
        kept = 0;
        for (size_t b = 0; b < bootstrap; b++)
            if (isfinite(rep_total[b * d + i]))
                column[kept++] = rep_total[b * d + i];
        percentile_interval(column, kept, confidence, &x->total_low, &x->total_high);
    }
    out->n_base = n_base;
    out->d = d;
    out->bootstrap = bootstrap;
    out->confidence = confidence;
    rc = 0;
done:
    free(pick);
    free(scratch);
    free(first);
    free(total);
    free(rep_first);
    free(rep_total);
    free(column);
    gsl_rng_free(r);
    if (rc != 0)
        sensitivity_result_clear(out);
    return rc;
}
