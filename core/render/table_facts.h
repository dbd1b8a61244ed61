/* table_facts: what the report and the default plot need to know about a
 * section's columns (does it vary, its finite range and where it is
 * reached, how many distinct values up to a cap), folded one row at a
 * time, so a section of any size is read once, as a stream, and never held
 * in memory. */
#ifndef RUNNER_TABLE_FACTS_H
#define RUNNER_TABLE_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/table.h"
#include "base/value.h"

/* Distinct values counted per column, at most. */
#define FACTS_DISTINCT_CAP 16

/* Where a row is: (point_id, row_id) for a stored section (a store_row_key),
 * (0, row index) for a table in memory. */
typedef struct facts_where {
    int64_t point_id;
    int64_t row_id;
} facts_where;

typedef struct column_facts {
    value first;                /* the first row's value */
    int varies;                 /* some row differs from the first (value_equal) */
    size_t finite;              /* rows with a finite number (value_number) */
    size_t nonfinite;           /* rows without one: NaN, inf, text, NULL */
    int nonpositive;            /* some finite value <= 0 */
    double min, max;            /* over the finite values */
    facts_where min_at, max_at; /* the first row reaching each */
    value seen[FACTS_DISTINCT_CAP];
    size_t distinct;  /* distinct values, counted up to FACTS_DISTINCT_CAP */
    size_t last_seen; /* grid columns come in runs: the last match first */
} column_facts;

typedef struct table_facts {
    size_t rows;
    size_t column_count;
    column_facts *columns;
} table_facts;

/* For rows of column_count columns. Returns 0, or -1 (no memory). */
int table_facts_init(table_facts *f, size_t column_count);
/* Folds in one row (column_count values, borrowed), found at where.
 * Returns 0, or -1 (no memory). */
int table_facts_add(table_facts *f, const value *row, facts_where where);
/* The facts of every row of t; 0 or -1 (no memory; f is then cleared). */
int table_facts_of_table(table_facts *f, const table *t);
void table_facts_clear(table_facts *f); /* accepts a cleared or zeroed f */

#endif
