/* pareto: sort the rows lexicographically by their objectives; a row can
 * then be dominated only by a row before it, and only if some row of the
 * front before it dominates it (dominance is transitive). */
#include "pareto.h"

#include <math.h>
#include <stdlib.h>

#include "base/budget.h"

/* A row to sort; qsort has no context argument, so each key carries k. */
typedef struct pareto_key {
    const double *row;
    size_t index, k;
} pareto_key;

static int compare_keys(const void *pa, const void *pb)
{
    const pareto_key *a = pa, *b = pb;
    for (size_t j = 0; j < a->k; j++) {
        if (a->row[j] < b->row[j])
            return -1;
        if (a->row[j] > b->row[j])
            return 1;
    }
    return (a->index > b->index) - (a->index < b->index);
}

/* 1 when a dominates b. */
static int dominates(const double *a, const double *b, size_t k)
{
    int strictly = 0;
    for (size_t j = 0; j < k; j++) {
        if (a[j] > b[j])
            return 0;
        strictly |= a[j] < b[j];
    }
    return strictly;
}

long pareto_front(const double *values, size_t n, size_t k, unsigned char *on_front)
{
    pareto_key *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t *front = k > 2 ? malloc((n ? n : 1) * sizeof *front) : NULL;
    if (!keys || (k > 2 && !front)) {
        free(keys);
        free(front);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        on_front[i] = 0;
        int finite = 1;
        for (size_t j = 0; j < k && finite; j++)
            finite = !isnan(values[i * k + j]);
        if (finite)
            keys[m++] = (pareto_key){ values + i * k, i, k };
    }
    qsort(keys, m, sizeof *keys, compare_keys);
    long count = 0;
    if (k <= 2) {
        /* by x, then y: a row is dominated by an earlier x with y' <= y, or
         * by its own x's smallest y when its y is larger */
        double best_y = INFINITY; /* smallest y over the x values before */
        int any_before = 0;
        for (size_t g = 0; g < m;) {
            size_t end = g;
            while (end < m && keys[end].row[0] == keys[g].row[0])
                end++;
            double group_y = k == 2 ? keys[g].row[1] : 0;
            for (size_t i = g; i < end; i++) {
                double y = k == 2 ? keys[i].row[1] : 0;
                int dominated = y > group_y || (any_before && best_y <= y);
                on_front[keys[i].index] = !dominated;
                count += !dominated;
            }
            if (!any_before || group_y < best_y)
                best_y = group_y;
            any_before = 1;
            g = end;
        }
    } else {
        size_t f = 0;
        for (size_t i = 0; i < m; i++) {
            if ((i & 255) == 0 && budget_check(NULL) != BUDGET_OK) {
                free(keys);
                free(front);
                return -1; /* the caller reads the budget's state */
            }
            int dominated = 0;
            for (size_t p = 0; p < f && !dominated; p++)
                dominated = dominates(values + front[p] * k, keys[i].row, k);
            if (!dominated) {
                front[f++] = keys[i].index;
                on_front[keys[i].index] = 1;
            }
        }
        count = (long)f;
    }
    free(keys);
    free(front);
    return count;
}
