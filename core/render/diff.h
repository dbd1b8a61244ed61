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

/* One row as the merge meets it: both sides' (matched), or one side's (its
 * point unmatched, or rows past the other point's last). The rows and
 * their cells are the streams', valid during the call. */
typedef struct diff_row {
    const store_stream_row *a, *b; /* NULL: that side has no such row */
    int differs;                   /* matched, and some compared cell unequal */
    int matched;                   /* the row's point met its match (its rows
                                    * may still be only on one side) */
    int point_start;               /* the first row shown of its point: a visitor
                                    * that gathers points needs no matching of
                                    * its own */
} diff_row;

/* Where and how diff_plugin_scan looks. */
typedef struct diff_scope {
    int64_t section_a, section_b; /* one section of each sweep; 0: every
                                   * section of the plugin */
    size_t carried;               /* the first `carried` columns are read but
                                   * not compared (a page shows them) */
    /* Called for every row, in merge order (by canonical parameters); a
     * nonzero return stops the scan with it. NULL: not called. */
    int (*visit)(void *ctx, const diff_row *row, char **err);
    void *ctx;
} diff_scope;

/* diff_plugin_run within scope: out->columns has one entry per compared
 * column (columns->column_count - scope->carried). */
int diff_plugin_scan(store *s, int64_t a, int64_t b, const char *plugin, const table *columns,
                     const diff_tolerance *tolerance, const diff_scope *scope, diff_plugin *out,
                     char **err);
/* 1 when the plugin's points differ: a changed row, status or row count,
 * or (unless common_only) a point only one side holds. */
int diff_plugin_differs(const diff_plugin *d, size_t column_count, int common_only);
void diff_plugin_clear(diff_plugin *d);

#endif
