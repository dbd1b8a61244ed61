/* table: typed columns and a growable row-major array of values. Columns are
 * fixed once the first row is appended, so a cell's address is simply
 * row * column_count + column. */
#include "table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

/* title may be NULL; it is copied. */
table *table_new(const char *title)
{
    table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (title && !(t->title = copy_string(title))) {
        free(t);
        return NULL;
    }
    return t;
}

void table_free(table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->row_count * t->column_count; i++)
        value_clear(&t->cells[i]);
    free(t->cells);
    for (size_t i = 0; i < t->column_count; i++) {
        free(t->columns[i].name);
        free(t->columns[i].unit);
    }
    free(t->columns);
    free(t->title);
    free(t);
}

/* Copies name and unit (NULL unit means ""). Returns 0, or -1 when out of
 * memory or when rows already exist (the layout would no longer match). */
int table_add_column(table *t, const char *name, const char *unit, runner_type type, int is_param)
{
    if (t->row_count > 0)
        return -1;
    table_column *columns = realloc(t->columns, (t->column_count + 1) * sizeof *columns);
    if (!columns)
        return -1;
    t->columns = columns;
    table_column *c = &columns[t->column_count];
    c->name = copy_string(name);
    c->unit = copy_string(unit ? unit : "");
    if (!c->name || !c->unit) {
        free(c->name);
        free(c->unit);
        return -1;
    }
    c->type = type;
    c->is_param = is_param != 0;
    t->column_count++;
    return 0;
}

int table_append_row(table *t, value *row)
{
    if (t->row_count == t->row_capacity) {
        size_t capacity = t->row_capacity ? t->row_capacity * 2 : 16;
        size_t per_row = t->column_count ? t->column_count : 1;
        if (capacity > SIZE_MAX / sizeof(value) / per_row)
            return -1;
        value *cells = realloc(t->cells, capacity * per_row * sizeof *cells);
        if (!cells)
            return -1;
        t->cells = cells;
        t->row_capacity = capacity;
    }
    value *dst = t->cells + t->row_count * t->column_count;
    for (size_t i = 0; i < t->column_count; i++) {
        dst[i] = row[i]; /* takes the text; the caller's cell is emptied */
        row[i] = VALUE_NULL;
    }
    t->row_count++;
    return 0;
}

/* NULL when row or column is out of range. The cell stays owned by t. */
value *table_cell(const table *t, size_t row, size_t column)
{
    if (row >= t->row_count || column >= t->column_count)
        return NULL;
    return &t->cells[row * t->column_count + column];
}

long table_find_column(const table *t, const char *name)
{
    for (size_t i = 0; i < t->column_count; i++)
        if (strcmp(t->columns[i].name, name) == 0)
            return (long)i;
    return -1;
}

char *table_column_list(const table *t)
{
    strbuf b = { 0 };
    for (size_t c = 0; c < t->column_count; c++) {
        if (c)
            strbuf_str(&b, ", ");
        strbuf_str(&b, t->columns[c].name);
    }
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data ? b.data : util_strdup("");
}
