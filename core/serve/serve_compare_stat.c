/* serve_compare_stat: the compare page's stat mode (GET
 * /api/compare?a=A&b=B&stat=1, docs/serve.md): the newest `runner diff
 * --stat A B` stored for the two sweeps, its rows a page at a time in the
 * order the command printed them, each with its ratio, interval, p-value
 * and verdict as the command computed and stored them (the server only
 * reads: without a stored comparison it names the command that makes
 * one). */
#include "serve_int.h"

#include <stdlib.h>

#define SERVE_STAT_DEFAULT_PAGE 100

/* Sweep id's row exists: 1; 0 with a 404 in reply; -1 with a 500. */
static int sweep_exists(store *s, int64_t id, servei_reply *reply)
{
    table *t = NULL;
    char *err = NULL;
    if (store_sweep_row(s, id, &t, &err) != 0) {
        servei_reply_fail(reply, err);
        return -1;
    }
    int found = t->row_count > 0;
    table_free(t);
    if (!found)
        servei_reply_error(reply, 404, "no such sweep");
    return found;
}

void servei_compare_stat(store *s, struct MHD_Connection *connection, servei_reply *reply)
{
    int64_t a = servei_arg_int(connection, "a", 1, INT64_MAX, 0);
    int64_t b = servei_arg_int(connection, "b", 1, INT64_MAX, 0);
    if (!a || !b) {
        servei_reply_error(reply, 400, "a and b: expected two sweep ids");
        return;
    }
    if (sweep_exists(s, a, reply) != 1 || sweep_exists(s, b, reply) != 1)
        return;
    int64_t limit =
        servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS, SERVE_STAT_DEFAULT_PAGE);
    int64_t offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0);
    table *heads = NULL, *rows = NULL;
    char *err = NULL;
    if (store_sweep_stat_diffs(s, a, &heads, &err) != 0) {
        servei_reply_fail(reply, err);
        return;
    }
    json_t *head = json_null(), *list = json_array();
    json_int_t total = 0;
    json_t *all = heads ? servei_table_objects(heads) : json_array();
    size_t i;
    json_t *one;
    json_array_foreach(all, i, one)
    {
        if (json_integer_value(json_object_get(one, "sweep_a")) == a &&
            json_integer_value(json_object_get(one, "sweep_b")) == b) {
            json_decref(head);
            head = json_incref(one);
        }
    }
    json_decref(all);
    table_free(heads);
    if (!json_is_null(head)) {
        total = json_integer_value(json_object_get(head, "row_count"));
        if (store_stat_diff_rows(s, json_integer_value(json_object_get(head, "id")), 0, offset,
                                 limit, &rows, &err) != 0) {
            json_decref(head);
            json_decref(list);
            servei_reply_fail(reply, err);
            return;
        }
        json_decref(list);
        list = rows ? servei_table_objects(rows) : json_array();
        table_free(rows);
    }
    servei_reply_json(
        reply,
        json_pack("{s:I,s:I,s:o,s:o,s:o,s:I,s:I,s:I}", "a", (json_int_t)a, "b", (json_int_t)b,
                  "stat", head, "command",
                  json_sprintf("runner diff --stat %lld %lld", (long long)a, (long long)b), "rows",
                  list, "total", total, "offset", (json_int_t)offset, "limit", (json_int_t)limit));
}
