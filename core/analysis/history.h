/* history: one column's values across the sweeps a filter picks, ordered
 * by commit (git's order when the recorded repository is at hand, else
 * start time), grouped by commit or by sweep, each group's median with its
 * distribution-free 95 % interval and the change points changepoint.c
 * finds — the answer of `runner history` (cli/cli_history.c prints it) and
 * of the dashboard's GET /api/history (serve/serve_history.c)
 * (docs/analysis.md, "History across commits"). */
#ifndef RUNNER_ANALYSIS_HISTORY_H
#define RUNNER_ANALYSIS_HISTORY_H

#include <stddef.h>

#include "analysis/changepoint.h"
#include "base/table.h"
#include "store/store.h"

#define HISTORY_ALPHA 0.01 /* before Bonferroni over the splits tried */
#define HISTORY_MAX_CHANGES 16

/* What to compute: y in section ordinal `section` of each sweep. */
typedef struct history_query {
    const char *y;
    int section;      /* ordinal, 1 the first */
    int by_commit;    /* 1: a sweep's commit pools its sweeps; 0: one a sweep */
    double tolerance; /* relative: a change past it is a regression */
} history_query;

/* The answer. rows: commit (or sweep), sweeps, n, median, low, high,
 * change (one row a group, oldest first; "commit" names the first column
 * when grouped by commit and the oldest sweep has one). */
typedef struct history {
    table *rows;
    size_t sweeps; /* sweeps matched */
    int git;       /* 1: git's commit order; 0: start time */
    size_t found;  /* changes, in changes[] and sentences[] */
    changepoint changes[HISTORY_MAX_CHANGES];
    char sentences[HISTORY_MAX_CHANGES][256]; /* "y rose 5.0 % [4.5, 5.8] at 3f2c1a9 (p < 0.001)" */
    int regression; /* a change past the tolerance: up for a time, either way else */
} history;

/* Computes the history of the sweeps f picks (NULL: all) in s. 0; 1 with
 * *err a one-line message when the input does not make a history (fewer
 * than two sweeps, no such section or column, no number); -1 with *err
 * (the store's failure, out of memory: *err may be NULL). */
int history_compute(store *s, const store_sweep_filter *f, const history_query *q, history *out,
                    char **err);
void history_clear(history *h); /* accepts a zeroed one */

#endif
