/* pareto: the non-dominated rows of a table of objectives (a trade-off
 * front). Numbers only; the CLI reads the rows and prints the front
 * (docs/analysis.md, "Trade-off fronts"). */
#ifndef RUNNER_ANALYSIS_PARETO_H
#define RUNNER_ANALYSIS_PARETO_H

#include <stddef.h>

/* Marks the rows of values (n rows of k objectives, row-major, every
 * objective to be minimized: negate one to maximize) that no other row
 * dominates, i.e. is <= in every objective and < in one. Rows equal in
 * every objective do not dominate each other (ties are kept). A row with a
 * NaN objective is never on the front and dominates nothing. on_front[i]
 * is set to 1 or 0. Returns the front's size, or -1 (out of memory).
 * O(n log n) for k = 2 (sort and sweep); O(n log n + n f k) otherwise, f
 * the front's size (a lexicographic sort, then each row against the front
 * so far). */
long pareto_front(const double *values, size_t n, size_t k, unsigned char *on_front);

#endif
