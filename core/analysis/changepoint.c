/* changepoint: binary segmentation with the Mann–Whitney test. */
#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robust.h"
#include "analysis_int.h"

typedef struct seg_work {
    const double *const *groups;
    const size_t *sizes;
    double alpha;
    size_t *cuts; /* found split indices */
    size_t cut_count, cut_room;
    double *p_of_cut;
    /* The whole series sorted once: flat[order[i]] ascending, flat the
     * groups one after the other (group g from first[g]); a segment's
     * order is this one with the other groups' values left out, O(n)
     * instead of a sort per segment. */
    double *flat;
    size_t *order, *first, total;
} seg_work;

typedef struct keyed {
    double value;
    size_t at;
} keyed;

/* By value, then position: a total order, so equal values keep their
 * positions' order whatever the sort. */
static int by_value(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* The split of [lo, hi) with the smallest p, by its logarithm (*log_p):
 * p itself is 0 for many splits of a long history with a clear change,
 * and the first of those ties would win, not the change. -1 out of
 * memory. */
static int best_split(const seg_work *w, size_t lo, size_t hi, size_t *at, double *log_p)
{
    size_t begin = w->first[lo], end = w->first[hi], n = end - begin;
    double *rank = malloc((n ? n : 1) * sizeof *rank);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!rank || !order) {
        free(rank);
        free(order);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < w->total; i++)
        if (w->order[i] >= begin && w->order[i] < end)
            order[k++] = w->order[i] - begin;
    const double *all = w->flat + begin;
    double tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && all[order[j]] == all[order[i]])
            j++;
        double r = (double)(i + 1 + j) / 2, t = (double)(j - i);
        tie_term += t * t * t - t;
        for (size_t m = i; m < j; m++)
            rank[order[m]] = r;
        i = j;
    }
    *log_p = 1; /* above any log p */
    double rank_sum = 0;
    size_t left = 0;
    k = 0;
    for (size_t g = lo; g + 1 < hi; g++) {
        for (size_t i = 0; i < w->sizes[g]; i++)
            rank_sum += rank[k++];
        left += w->sizes[g];
        if (left == 0 || left == n)
            continue;
        double m = (double)left, u = rank_sum - m * (m + 1) / 2;
        double q = robust_mwu_log_p(u, m, (double)(n - left), tie_term);
        if (q < *log_p) {
            *log_p = q;
            *at = g + 1;
        }
    }
    free(rank);
    free(order);
    return 0;
}

static int segment(seg_work *w, size_t lo, size_t hi)
{
    if (hi - lo < 2)
        return 0;
    size_t at = 0;
    double log_p;
    if (best_split(w, lo, hi, &at, &log_p) != 0)
        return -1;
    if (!(log_p < log(w->alpha / (double)(hi - lo - 1))))
        return 0;
    if (w->cut_count == w->cut_room) {
        size_t room = w->cut_room ? 2 * w->cut_room : 8;
        size_t *cuts = realloc(w->cuts, room * sizeof *cuts);
        if (cuts)
            w->cuts = cuts;
        double *ps = cuts ? realloc(w->p_of_cut, room * sizeof *ps) : NULL;
        if (ps)
            w->p_of_cut = ps;
        if (!ps)
            return -1;
        w->cut_room = room;
    }
    w->cuts[w->cut_count] = at;
    w->p_of_cut[w->cut_count++] = exp(log_p); /* 0 past double's range: "p < 0.001" */
    return segment(w, lo, at) != 0 || segment(w, at, hi) != 0 ? -1 : 0;
}

/* The samples of groups [lo, hi) in one array (malloc'd), *n their count. */
static double *pool(const seg_work *w, size_t lo, size_t hi, size_t *n)
{
    *n = 0;
    for (size_t g = lo; g < hi; g++)
        *n += w->sizes[g];
    double *x = malloc((*n ? *n : 1) * sizeof *x);
    size_t k = 0;
    for (size_t g = lo; x && g < hi; g++) {
        memcpy(x + k, w->groups[g], w->sizes[g] * sizeof *x);
        k += w->sizes[g];
    }
    return x;
}

int changepoint_find(const double *const *groups, const size_t *sizes, size_t count, double alpha,
                     size_t resamples, changepoint *out, size_t max_out, size_t *found)
{
    seg_work w = { .groups = groups, .sizes = sizes, .alpha = alpha };
    *found = 0;
    int rc = 0;
    if (!(w.first = malloc((count + 1) * sizeof *w.first)))
        return -1;
    for (size_t g = 0; g < count; g++) {
        w.first[g] = w.total;
        w.total += sizes[g];
    }
    w.first[count] = w.total;
    w.flat = malloc((w.total ? w.total : 1) * sizeof *w.flat);
    w.order = malloc((w.total ? w.total : 1) * sizeof *w.order);
    if (!w.flat || !w.order)
        rc = -1;
    for (size_t g = 0; rc == 0 && g < count; g++)
        memcpy(w.flat + w.first[g], groups[g], sizes[g] * sizeof *w.flat);
    /* (value, position) pairs by the C library's qsort (a merge sort in
     * glibc): half the time of gsl_sort_index's heapsort on 10^6
     * values, the one sort of the whole history */
    keyed *pairs = rc == 0 ? malloc((w.total ? w.total : 1) * sizeof *pairs) : NULL;
    if (rc == 0 && !pairs)
        rc = -1;
    if (rc == 0) {
        for (size_t i = 0; i < w.total; i++)
            pairs[i] = (keyed){ w.flat[i], i };
        qsort(pairs, w.total, sizeof *pairs, by_value);
        for (size_t i = 0; i < w.total; i++)
            w.order[i] = pairs[i].at;
        free(pairs);
        rc = segment(&w, 0, count);
    }
    /* in order of `at` (insertion sort: few changes) */
    for (size_t i = 1; rc == 0 && i < w.cut_count; i++)
        for (size_t j = i; j > 0 && w.cuts[j - 1] > w.cuts[j]; j--) {
            size_t c = w.cuts[j];
            double p = w.p_of_cut[j];
            w.cuts[j] = w.cuts[j - 1];
            w.p_of_cut[j] = w.p_of_cut[j - 1];
            w.cuts[j - 1] = c;
            w.p_of_cut[j - 1] = p;
        }
    for (size_t i = 0; rc == 0 && i < w.cut_count && *found < max_out; i++) {
        size_t lo = i ? w.cuts[i - 1] : 0, hi = i + 1 < w.cut_count ? w.cuts[i + 1] : count;
        size_t n_a, n_b;
        double *a = pool(&w, lo, w.cuts[i], &n_a), *b = pool(&w, w.cuts[i], hi, &n_b);
        robust_bootstrap boot;
        if (!a || !b ||
            robust_bootstrap_ratio(a, n_a, b, n_b, 0.95, resamples, ROBUST_BOOTSTRAP_SEED, &boot) !=
                0)
            rc = -1;
        else
            out[(*found)++] = (changepoint){ .at = w.cuts[i],
                                             .p_value = w.p_of_cut[i],
                                             .ratio = boot.ratio,
                                             .low = boot.low,
                                             .high = boot.high };
        free(a);
        free(b);
    }
    free(w.cuts);
    free(w.p_of_cut);
    free(w.flat);
    free(w.order);
    free(w.first);
    return rc;
}
