/* diff: compares two stored sweeps' rows of one plugin, point by point.
 * Points are matched by their canonical parameters (not by id): the k-th
 * point of A with some parameters meets the k-th of B with the same ones
 * (in section, then point order), and a matched point's rows meet in the
 * order they were stored. Both sides stream in parameter order and merge
 * like sorted lists, so memory does not grow with the sweeps. */
#ifndef RUNNER_DIFF_H
#define RUNNER_DIFF_H

#include <stdint.h>

#include "base/table.h"
#include "store/store.h"

/* When two numbers are equal. Both 0: exactly equal (NaN equals NaN). */
typedef struct diff_tolerance {
    double relative; /* |a - b| <= relative * max(|a|, |b|) */
    double absolute; /* |a - b| <= absolute */
} diff_tolerance;

/* One compared column. */
typedef struct diff_column {
    uint64_t rows;           /* rows compared (both points had the row) */
    uint64_t changed;        /* of them, unequal within the tolerance */
    double max_abs, max_rel; /* largest |a - b| and |a - b| / max(|a|, |b|) over
                                  * numbers both sides hold (0 when none) */
} diff_column;

/* One plugin's comparison. */
typedef struct diff_plugin {
    uint64_t both;                     /* points matched */
    uint64_t only_a, only_b;           /* points one side has no match for */
    uint64_t status_changed;           /* matched points whose status differs */
    uint64_t rows_only_a, rows_only_b; /* rows past the other point's last */
    char *example_a, *example_b;       /* the first unmatched point's parameters (or NULL) */
    diff_column *columns;              /* one per column compared */
} diff_plugin;

/* Compares plugin's points of sweeps a and b over the output columns of
 * `columns` (their names and types), into *out (cleared first; free with
 * diff_plugin_clear). 0, or -1 with *err. */
int diff_plugin_run(store *s, int64_t a, int64_t b, const char *plugin, const table *columns,
                    const diff_tolerance *tolerance, diff_plugin *out, char **err);
/* 1 when the plugin's points differ: a changed row, status or row count,
 * or (unless common_only) a point only one side holds. */
int diff_plugin_differs(const diff_plugin *d, size_t column_count, int common_only);
void diff_plugin_clear(diff_plugin *d);

#endif
