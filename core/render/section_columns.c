/* section_columns: a few columns of a section's rows (section_columns.h). */
#include "section_columns.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render_int.h"

static int add_named_columns(table *t, const table *cols, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (!names[i] || table_find_column(t, names[i]) >= 0)
            continue;
        long c = table_find_column(cols, names[i]);
        if (c < 0)
            return -1;
        const table_column *col = &cols->columns[c];
        if (table_add_column(t, col->name, col->unit, col->type, col->is_param) != 0)
            return -1;
    }
    return 0;
}

int section_columns_head(const table *cols, const char *const *names, size_t count, table **out,
                         char **err)
{
    *out = table_new(cols->title);
    if (*out && add_named_columns(*out, cols, names, count) == 0)
        return 0;
    table_free(*out);
    *out = NULL;
    return util_fail(err, "out of memory (or a column the section does not have)");
}

int section_columns_load(store *s, int64_t section_id, const char *plugin, const table *cols,
                         const char *const *names, size_t count, table **out, char **err)
{
    *out = NULL;
    store_cursor *cursor = NULL;
    value *row = NULL;
    table *t = NULL;
    if (section_columns_head(cols, names, count, &t, err) != 0)
        return -1;
    if (!(row = calloc(t->column_count ? t->column_count : 1, sizeof *row))) {
        table_free(t);
        return util_fail(err, "out of memory");
    }
    int rc = store_cursor_open(s, section_id, plugin, t, NULL, NULL, 0, &cursor, err);
    while (rc == 0 && (rc = store_cursor_next(cursor, row, NULL, err)) == 1)
        rc = table_append_row(t, row) == 0 ? 0 : util_fail(err, "out of memory");
    store_cursor_close(cursor);
    for (size_t c = 0; c < t->column_count; c++)
        value_clear(&row[c]);
    free(row);
    if (rc != 0) {
        table_free(t);
        return -1;
    }
    *out = t;
    return 0;
}
