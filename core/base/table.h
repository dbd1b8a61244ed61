/* table: named, typed columns and rows of values: what a section produced,
 * what `runner show` reads back, what output.c prints. Owns every cell. */
#ifndef RUNNER_TABLE_H
#define RUNNER_TABLE_H

#include <stddef.h>
#include "value.h"

typedef struct table_column {
    char *name;
    char *unit; /* "" when dimensionless */
    runner_type type;
    int is_param; /* 1: an input parameter, 0: a plugin output */
} table_column;

typedef struct table {
    char *title; /* may be NULL */
    size_t column_count;
    table_column *columns;
    size_t row_count;
    size_t row_capacity;
    value *cells; /* row-major, row_count * column_count */
} table;

/* Returns a new empty table or NULL (no memory). Free with table_free. */
table *table_new(const char *title);
void table_free(table *t); /* accepts NULL */
/* Copies name and unit (NULL unit means ""). Columns come before rows:
 * returns -1 once a row exists, or when out of memory; 0 otherwise. */
int table_add_column(table *t, const char *name, const char *unit, runner_type type, int is_param);
/* Appends a row of column_count values, taking ownership of their text
 * (the caller's values are reset to NULL). Returns 0 or -1 (no memory). */
int table_append_row(table *t, value *row);
/* The cell, owned by t; NULL when row or column is out of range. */
value *table_cell(const table *t, size_t row, size_t column);
/* Index of a column by name, or -1. */
long table_find_column(const table *t, const char *name);
/* "a, b, c": every column's name, for a message naming a missing one;
 * malloc'd (caller frees), NULL on no memory. */
char *table_column_list(const table *t);

#endif
