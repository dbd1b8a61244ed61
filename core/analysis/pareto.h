/* pareto: the non-dominated rows of a table of objectives (a trade-off
 * front). Numbers only; the CLI reads the rows and prints the front
 * (docs/analysis.md, "Trade-off fronts"). */
#ifndef RUNNER_ANALYSIS_PARETO_H
#define RUNNER_ANALYSIS_PARETO_H

#include <stddef.h>
#include <stdint.h>

#include "base/table.h"
#include "store/store.h"

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

/* --- answering for a section (pareto_data.c) ----------------------------- */

/* The question: a section (its sweep and ordinal name it in messages) and
 * its objectives, each minimized or maximized. Everything borrowed. */
typedef struct pareto_question {
    int64_t sweep_id, section_id;
    int ordinal;
    size_t objective_count;
    const char *const *names;
    const int *maximize; /* per objective: 1 to maximize */
    int again;           /* STORE_ANSWER_* (store.h): keep, replace or add */
} pareto_question;

/* What `runner pareto` and Lua's pareto{} print and store. */
typedef struct pareto_answer {
    table *front;           /* owned: the front's rows, best first: the section's
                             * parameters that are not objectives, then the objectives */
    store_row_key *members; /* owned: each front row's key, in front's order */
    size_t rows;            /* rows read */
    size_t excluded;        /* of those, rows with a NaN objective */
    int64_t id;             /* the stored pareto row */
    int kept;               /* 1: the stored front answered it (store_pareto_write) */
} pareto_answer;

/* Reads the section's objectives in one pass, finds the front, reads the
 * front's rows and stores it (pareto, pareto_objective, pareto_member; one
 * transaction; kept when the stored front to the same question is the
 * same, as q->again says). title names the front table. Returns 0 with *out
 * (pareto_answer_clear), or -1 with *err one line: fewer than two
 * objectives, a column the section lacks, one not numeric or named twice;
 * nothing is stored then. */
int pareto_answer_section(store *s, const pareto_question *q, const char *title, pareto_answer *out,
                          char **err);
void pareto_answer_clear(pareto_answer *a); /* accepts NULL */

#endif
