/* test_table: columns, rows that take ownership of their cells, lookup. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "base/table.h"

static void test_columns(void)
{
    table *t = table_new("comm");
    CHECK(t != NULL);
    CHECK_STR_EQ(t->title, "comm");
    CHECK_INT_EQ(table_add_column(t, "workers", "", RUNNER_INTEGER, 1), 0);
    CHECK_INT_EQ(table_add_column(t, "bytes_per_round", "bytes", RUNNER_REAL, 0), 0);
    CHECK_INT_EQ(table_add_column(t, "scheme", NULL, RUNNER_TEXT, 0), 0);
    CHECK_INT_EQ(t->column_count, 3);
    CHECK_STR_EQ(t->columns[1].unit, "bytes");
    CHECK_STR_EQ(t->columns[2].unit, ""); /* NULL unit means dimensionless */
    CHECK_INT_EQ(t->columns[0].is_param, 1);
    CHECK_INT_EQ(t->columns[1].is_param, 0);
    CHECK_INT_EQ(t->columns[1].type, RUNNER_REAL);
    CHECK_INT_EQ(table_find_column(t, "scheme"), 2);
    CHECK_INT_EQ(table_find_column(t, "workers"), 0);
    CHECK_INT_EQ(table_find_column(t, "nope"), -1);
    table_free(t);

    table *untitled = table_new(NULL);
    CHECK(untitled != NULL);
    CHECK(untitled->title == NULL);
    CHECK_INT_EQ(untitled->row_count, 0);
    CHECK(table_cell(untitled, 0, 0) == NULL);
    table_free(untitled);
    table_free(NULL); /* accepted */
}

static void test_rows(void)
{
    table *t = table_new("rows");
    table_add_column(t, "k", "", RUNNER_INTEGER, 1);
    table_add_column(t, "label", "", RUNNER_TEXT, 0);

    enum {
        ROWS = 1000
    }; /* well past the first few growth steps */
    for (int i = 0; i < ROWS; i++) {
        char label[32];
        snprintf(label, sizeof label, "row %d", i);
        value row[2] = { value_integer(i), value_text(label) };
        CHECK_INT_EQ(table_append_row(t, row), 0);
        /* Ownership moved: the caller's cells are empty, nothing to free. */
        CHECK_INT_EQ(row[0].type, 0);
        CHECK_INT_EQ(row[1].type, 0);
    }
    CHECK_INT_EQ(t->row_count, ROWS);
    CHECK(t->row_capacity >= ROWS);
    CHECK_INT_EQ(table_cell(t, 0, 0)->as.integer, 0);
    CHECK_INT_EQ(table_cell(t, 999, 0)->as.integer, 999);
    CHECK_STR_EQ(table_cell(t, 500, 1)->as.text, "row 500");
    CHECK(table_cell(t, ROWS, 0) == NULL);
    CHECK(table_cell(t, 0, 2) == NULL);

    /* Columns are fixed once rows exist. */
    CHECK_INT_EQ(table_add_column(t, "late", "", RUNNER_REAL, 0), -1);
    CHECK_INT_EQ(t->column_count, 2);

    value nulls[2] = { VALUE_NULL, VALUE_NULL };
    CHECK_INT_EQ(table_append_row(t, nulls), 0);
    CHECK_INT_EQ(table_cell(t, ROWS, 1)->type, 0);
    table_free(t); /* frees every row's text (run under ASan to see) */
}

int main(void)
{
    test_columns();
    test_rows();
    return check_done("test_table");
}
