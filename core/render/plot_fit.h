/* plot_fit: stored fits as curves to draw over a section's points (`runner
 * plot --fit`, the report), and a Pareto front as rows to mark (`runner
 * plot --pareto`). The fits are runner fit's (store_fit_group); the curve
 * is the model evaluated between the smallest and largest x it fitted. */
#ifndef RUNNER_PLOT_FIT_H
#define RUNNER_PLOT_FIT_H

#include <stddef.h>
#include <stdint.h>
#include "base/table.h"
#include "base/value.h"
#include "plot.h"
#include "store/store.h"

/* Curves of one fit group; everything owned (plot_fit_set_clear). */
typedef struct plot_fit_set {
    plot_curve *curves;
    value *by_values; /* per curve; curves[i].by points here */
    int64_t *ids;     /* per curve: the fit's id */
    size_t count;
    int64_t first_id, last_id;
    int64_t section_id;
    char *model, *x, *y, *by; /* the fits' model and columns; by NULL: no --by */
} plot_fit_set;

/* Loads the fits store_fit_group picks (fit_id 0: the sweep's newest)
 * and evaluates each at points spread over its fitted x (log-spaced when
 * logx, or when x > 0 spans a factor of 10); a Lua function's fit gives the
 * curve it stored instead (fit_curve; logx does not respace it). Returns 0;
 * or -1 with *err (malloc'd): "sweep 1 has no fit 9", "sweep 1 has no
 * stored fit (runner fit stores them)", a model this runner does not know
 * whose fit stored no curve. */
int plot_fit_load(store *s, int64_t sweep_id, int64_t fit_id, int logx, plot_fit_set *out,
                  char **err);
void plot_fit_set_clear(plot_fit_set *set); /* accepts NULL */

/* Parses a --pareto value: "min:COL,max:COL,..." (two or more, each named
 * once) into names[] and maximize[] (at most max_count; names point into
 * the malloc'd *copy, which the caller frees). Returns the count, or -1
 * with *err. */
int plot_pareto_parse(const char *text, char **copy, const char **names, int *maximize,
                      size_t max_count, char **err);

/* Marks the rows of t on the front of the objectives (columns of t,
 * numeric): *marked (malloc'd, t->row_count entries) and the front's size
 * in *front, the rows with NaN in *excluded. Returns 0; -1 with *err (a
 * column t lacks or that is not numeric, out of memory). */
int plot_pareto_mark(const table *t, const char *const *names, const int *maximize, size_t k,
                     unsigned char **marked, size_t *front, size_t *excluded, char **err);

#endif
