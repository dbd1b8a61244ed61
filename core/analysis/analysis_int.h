/* analysis_int.h: what the files of analysis/ share and no other folder
 * calls (moved out of their modules' headers, which analysis.h gathers as
 * the folder's face). Private to analysis/. */
#ifndef RUNNER_ANALYSIS_INT_H
#define RUNNER_ANALYSIS_INT_H

#include "robust.h"
#include "sensitivity.h"
#include "fit.h"

/* The two-sided p-value of U = u_a for sides of m and n values whose
 * pooled ranks have the tie term sum(t^3 - t), by robust_mwu_test's rules
 * (exact when a side has at most 8 values and there are no ties). For
 * callers that rank once and try many splits (changepoint.c). */
double robust_mwu_p(double u_a, double m, double n, double tie_term);
/* Its natural logarithm, from R's log-scale tails (pwilcox, pnorm with
 * log_p): finite where the p-value itself underflows to 0 (z past 38), so
 * splits of a long history stay ordered by their evidence
 * (changepoint.c). */
double robust_mwu_log_p(double u_a, double m, double n, double tie_term);

/* The indices from y, the outputs of a design's points in its order
 * (n_base * (d + 2) values, all finite). Returns 0 with *out, or -1 with
 * *err one line: fewer than 2 blocks, y constant over A and B. */
int sensitivity_estimate(const double *y, size_t n_base, size_t d,
                         const sensitivity_options *options, sensitivity_result *out, char **err);
void sensitivity_result_clear(sensitivity_result *r); /* accepts NULL */

/* Reads y and the parameters of every row of the section and checks that
 * the rows are a Saltelli design (design.saltelli's layout, one row per
 * point). Refuses (-1, *err one line): no such column, not numeric, a
 * section that is not such a design (naming the first row that breaks
 * it), no parameter varies. *out: sensitivity_data_free. */
int sensitivity_load(store *s, int64_t section_id, const char *y_column, sensitivity_data *out,
                     char **err);
void sensitivity_data_free(sensitivity_data *d); /* accepts NULL */

/* Reads the columns of every row of the section, grouped by `by`. Refuses
 * (-1, *err one line) a column the section lacks, listing its columns, and
 * one that is not numeric (x, y, weights). *out: fit_group_set_free. */
int fit_groups_load(store *s, int64_t section_id, const fit_columns *columns, fit_group_set *out,
                    char **err);
void fit_group_set_free(fit_group_set *set); /* accepts NULL */

#endif
