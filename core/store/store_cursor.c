/* store_cursor.c: a section's rows read from a statement as they are
 * needed (the Lua row view, `runner show`, the printed head of a section),
 * so that memory does not grow with the section. Rows come in (point_id,
 * row_id) order: the result table's index (sweep_id, section_id,
 * point_id), whose entries end with the rowid, holds them in that order, so
 * neither a scan nor a seek ever sorts. */
#include "store_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct store_cursor {
    store *s;
    sqlite3_stmt *st;
    const table *columns;      /* borrowed; NULL: keys only */
    const value *where_values; /* borrowed */
    size_t where_count;
    store_row_key from; /* rows before this key are skipped */
    char what[96];
};

/* Appends " FROM <plugin> WHERE <the rows of section ?1>": sweep_id
 * first, as the result table's index starts with it. */
static void append_section_rows(strbuf *sql, const char *plugin)
{
    strbuf_str(sql, " FROM ");
    storei_append_ident(sql, plugin);
    strbuf_str(sql, " WHERE \"sweep_id\" = (SELECT sweep_id FROM section WHERE id = ?1)"
                    " AND \"section_id\" = ?1");
}

/* Prepares sql (freeing its text); NULL with *err. */
static sqlite3_stmt *prepare(store *s, strbuf *sql, const char *what, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sql->oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_prepare_v2(s->db, sql->data, -1, &st, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "%s", what);
    free(sql->data);
    *sql = (strbuf){ 0 };
    return st;
}

/* Binds v as SQLite holds it: booleans as 0/1, NaN as NULL (never equal). */
static void bind_value(sqlite3_stmt *st, int index, const value *v)
{
    switch (v->type) {
    case RUNNER_INTEGER: sqlite3_bind_int64(st, index, v->as.integer); break;
    case RUNNER_BOOLEAN: sqlite3_bind_int64(st, index, v->as.boolean != 0); break;
    case RUNNER_REAL:
        if (isnan(v->as.real))
            sqlite3_bind_null(st, index);
        else
            sqlite3_bind_double(st, index, v->as.real);
        break;
    case RUNNER_TEXT: sqlite3_bind_text(st, index, v->as.text, -1, SQLITE_STATIC); break;
    default: sqlite3_bind_null(st, index); break;
    }
}

int store_section_find(store *s, int64_t sweep_id, int ordinal, int64_t *section_id, char **err)
{
    *section_id = 0;
    sqlite3_stmt *st = NULL;
    const char *what = "cannot find the section";
    if (sqlite3_prepare_v2(s->db,
                           "SELECT id FROM section WHERE sweep_id = ?1 AND ordinal = ?2"
                           " ORDER BY id LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int(st, 2, ordinal);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *section_id = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE)
        storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

table *store_plugin_columns(const runner_plugin *plugin, const char *title)
{
    table *t = table_new(title ? title : plugin->name);
    for (uint32_t i = 0; t && i < plugin->param_count; i++)
        if (table_add_column(t, plugin->params[i].name, plugin->params[i].unit,
                             plugin->params[i].type, 1) != 0)
            goto fail;
    for (uint32_t i = 0; t && i < plugin->column_count; i++)
        if (table_add_column(t, plugin->columns[i].name, plugin->columns[i].unit,
                             plugin->columns[i].type, 0) != 0)
            goto fail;
    return t;
fail:
    table_free(t);
    return NULL;
}

/* Steps st, a one-row query, into *out (column 0); 0, or -1 with *err. */
static int step_integer(store *s, sqlite3_stmt *st, const char *what, int64_t *out, char **err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE)
        storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int store_section_row_count(store *s, int64_t section_id, const char *plugin, int64_t *count,
                            char **err)
{
    *count = 0;
    char what[96];
    snprintf(what, sizeof what, "cannot count the rows of section %" PRId64, section_id);
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT count(*)");
    append_section_rows(&sql, plugin);
    sqlite3_stmt *st = prepare(s, &sql, what, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, section_id);
    return step_integer(s, st, what, count, err);
}

int store_section_column_varies(store *s, int64_t section_id, const char *plugin,
                                const char *column, const value *v, int *varies, char **err)
{
    *varies = 0;
    char what[96];
    snprintf(what, sizeof what, "cannot read section %" PRId64, section_id);
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT 1");
    append_section_rows(&sql, plugin);
    strbuf_str(&sql, " AND ");
    storei_append_ident(&sql, column);
    strbuf_str(&sql, " IS NOT ?2 LIMIT 1");
    sqlite3_stmt *st = prepare(s, &sql, what, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, section_id);
    bind_value(st, 2, v);
    int64_t found = 0;
    int rc = step_integer(s, st, what, &found, err);
    *varies = found != 0;
    return rc;
}

/* store_cursor_open, with NULL selected in place of the columns whose
 * wanted[i] is 0 (wanted NULL: every column). */
static int open_cursor(store *s, int64_t section_id, const char *plugin, const table *columns,
                       const unsigned char *wanted, const char *const *where_columns,
                       const value *where_values, size_t where_count, store_cursor **out,
                       char **err)
{
    *out = NULL;
    store_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return util_fail(err, "%s: out of memory", s->path);
    c->s = s;
    c->columns = columns;
    c->where_values = where_values;
    c->where_count = where_count;
    c->from = (store_row_key){ INT64_MIN, INT64_MIN };
    snprintf(c->what, sizeof c->what, "cannot read the rows of section %" PRId64, section_id);
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT ");
    for (size_t i = 0; columns && i < columns->column_count; i++) {
        if (wanted && !wanted[i])
            strbuf_str(&sql, "NULL");
        else
            storei_append_ident(&sql, columns->columns[i].name);
        strbuf_str(&sql, ", ");
    }
    strbuf_str(&sql, "\"point_id\", \"row_id\"");
    append_section_rows(&sql, plugin);
    strbuf_str(&sql, " AND \"point_id\" >= ?2");
    for (size_t i = 0; i < where_count; i++) {
        strbuf_str(&sql, " AND ");
        storei_append_ident(&sql, where_columns[i]);
        strbuf_printf(&sql, " = ?%zu", i + 3);
    }
    strbuf_str(&sql, " ORDER BY \"point_id\", \"row_id\"");
    c->st = prepare(s, &sql, c->what, err);
    if (!c->st) {
        free(c);
        return -1;
    }
    sqlite3_bind_int64(c->st, 1, section_id);
    sqlite3_bind_int64(c->st, 2, INT64_MIN);
    for (size_t i = 0; i < where_count; i++)
        bind_value(c->st, (int)i + 3, &where_values[i]);
    *out = c;
    return 0;
}

int store_cursor_open(store *s, int64_t section_id, const char *plugin, const table *columns,
                      const char *const *where_columns, const value *where_values,
                      size_t where_count, store_cursor **out, char **err)
{
    return open_cursor(s, section_id, plugin, columns, NULL, where_columns, where_values,
                       where_count, out, err);
}

int store_cursor_open_some(store *s, int64_t section_id, const char *plugin, const table *columns,
                           const unsigned char *wanted, store_cursor **out, char **err)
{
    return open_cursor(s, section_id, plugin, columns, wanted, NULL, NULL, 0, out, err);
}

int store_cursor_seek(store_cursor *c, store_row_key from, char **err)
{
    (void)err;
    sqlite3_reset(c->st);
    c->from = from;
    sqlite3_bind_int64(c->st, 2, from.point_id);
    return 0;
}

int store_cursor_next(store_cursor *c, value *row, store_row_key *key, char **err)
{
    size_t n = c->columns ? c->columns->column_count : 0;
    for (;;) {
        int rc = sqlite3_step(c->st);
        if (rc == SQLITE_DONE) {
            sqlite3_reset(c->st);
            return 0;
        }
        if (rc != SQLITE_ROW) {
            storei_fail_sql(c->s, err, "%s", c->what);
            sqlite3_reset(c->st);
            return -1;
        }
        store_row_key k = { sqlite3_column_int64(c->st, (int)n),
                            sqlite3_column_int64(c->st, (int)n + 1) };
        /* The seek lands on the key's point: skip its rows before the key. */
        if (k.point_id == c->from.point_id && k.row_id < c->from.row_id)
            continue;
        if (key)
            *key = k;
        for (size_t i = 0; row && i < n; i++) {
            if (storei_column_value(c->st, (int)i, c->columns->columns[i].type, &row[i]) != 0) {
                for (size_t j = 0; j < i; j++)
                    value_clear(&row[j]);
                sqlite3_reset(c->st);
                return util_fail(err, "%s: %s: out of memory", c->s->path, c->what);
            }
        }
        return 1;
    }
}

void store_cursor_rewind(store_cursor *c) { sqlite3_reset(c->st); }

void store_cursor_close(store_cursor *c)
{
    if (!c)
        return;
    sqlite3_finalize(c->st);
    free(c);
}
