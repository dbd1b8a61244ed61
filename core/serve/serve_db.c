/* serve_db: the dashboard's side of the database. Each request opens its own
 * store through store_open_read (the checks every reading command gets:
 * a regular file holding runner's catalog), made query-only and bounded in
 * time and memory, so the server can change nothing and never blocks a
 * sweep writing in WAL mode. Every query is the store's (store_query.h):
 * no SQL here. */
#include "serve_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* A reader waits this long for a writer's checkpoint before giving up. */
#define SERVE_DB_BUSY_MS 2000
/* Page cache per connection (KiB): bounds the server's memory per request. */
#define SERVE_DB_CACHE_KIB 4096
/* A request's queries stop after this long (one thread is not held by an
 * expensive sort or comparison), and at once when the server stops. */
#define SERVE_DB_REQUEST_LIMIT_S 20.0

volatile sig_atomic_t servei_db_stopping = 0;

static int stopping(void) { return servei_db_stopping; }

store *servei_db_open(const char *path, char **err)
{
    store *s = NULL;
    if (store_open_read(path, &s, err) != 0)
        return NULL;
    store_read_limits limits = {
        .busy_timeout_ms = SERVE_DB_BUSY_MS,
        .cache_kib = SERVE_DB_CACHE_KIB,
        .deadline_s = util_monotonic() + SERVE_DB_REQUEST_LIMIT_S,
        .stopping = stopping,
    };
    if (store_read_limit(s, &limits, err) != 0) {
        store_close(s);
        return NULL;
    }
    return s;
}

json_t *servei_cell(const value *v) { return value_to_json_shown(v); }

json_t *servei_table_objects(const table *t)
{
    json_t *rows = json_array();
    int ok = rows != NULL;
    for (size_t r = 0; ok && r < t->row_count; r++) {
        json_t *row = json_object();
        for (size_t c = 0; row && c < t->column_count; c++)
            value_json_put(row, t->columns[c].name, servei_cell(table_cell(t, r, c)), &ok);
        value_json_push(rows, row, &ok);
    }
    if (!ok) {
        json_decref(rows);
        return NULL;
    }
    return rows;
}

int servei_section_open(store *s, int64_t section_id, servei_section *out, servei_reply *reply)
{
    memset(out, 0, sizeof *out);
    out->id = section_id;
    char *err = NULL;
    if (store_section_result_columns(s, section_id, &out->columns, &out->plugin, &out->sweep_id,
                                     &err) != 0) {
        servei_reply_fail(reply, err);
        return -1;
    }
    if (!out->columns) {
        servei_reply_error(reply, 404, "no such section");
        return -1;
    }
    return 0;
}

void servei_section_clear(servei_section *section)
{
    table_free(section->columns);
    free(section->plugin);
    memset(section, 0, sizeof *section);
}

long servei_section_find(const servei_section *section, const char *name)
{
    return name ? table_find_column(section->columns, name) : -1;
}

json_t *servei_columns_json(const table *columns)
{
    json_t *out = json_array();
    for (size_t k = 0; k < columns->column_count; k++) {
        const table_column *c = &columns->columns[k];
        json_array_append_new(out, json_pack("{s:o,s:o,s:s,s:b}", "name", value_json_text(c->name),
                                             "unit", value_json_text(c->unit), "type",
                                             value_type_name(c->type), "param", c->is_param));
    }
    return out;
}
