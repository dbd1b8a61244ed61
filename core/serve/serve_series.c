/* serve_series: GET /api/sweep/ID/series, the series recorded during a
 * sweep's points (docs/serve.md), for the live page series.html: without
 * a name the names it has, with ?name=N that series, one entry a point
 * ({section_id, point, steps, values}), read again on each request so a
 * running sweep's values appear as its series writer commits them. */
#include <stdlib.h>
#include <string.h>

#include "serve_int.h"

static double number(const value *v)
{
    return v->type == RUNNER_REAL      ? v->as.real
           : v->type == RUNNER_INTEGER ? (double)v->as.integer
                                       : 0;
}

/* One series as {name, points: [...]}; NULL value cells as null. */
static json_t *series_json(const char *name, const table *t)
{
    json_t *points = json_array(), *entry = NULL, *steps = NULL, *values = NULL;
    int64_t section = -1, point = -1;
    for (size_t r = 0; points && r < t->row_count; r++) {
        const value *s = table_cell(t, r, 0), *p = table_cell(t, r, 1), *v = table_cell(t, r, 3);
        if (!entry || s->as.integer != section || p->as.integer != point) {
            section = s->as.integer;
            point = p->as.integer;
            steps = json_array();
            values = json_array();
            entry = json_pack("{s:I,s:I,s:o,s:o}", "section_id", (json_int_t)section, "point",
                              (json_int_t)point, "steps", steps, "values", values);
            json_array_append_new(points, entry);
        }
        json_array_append_new(steps, json_real(number(table_cell(t, r, 2))));
        json_array_append_new(values, v->type == RUNNER_REAL || v->type == RUNNER_INTEGER
                                          ? json_real(number(v))
                                          : json_null());
    }
    return json_pack("{s:s,s:o}", "name", name, "points", points);
}

void servei_series(store *s, struct MHD_Connection *connection, int64_t sweep_id,
                   servei_reply *reply)
{
    char *err = NULL;
    const char *name = servei_arg(connection, "name");
    table *t = NULL;
    if (!name) {
        if (store_series_names(s, sweep_id, &t, &err) != 0) {
            servei_reply_fail(reply, err);
            return;
        }
        json_t *root =
            json_pack("{s:I,s:o}", "sweep", (json_int_t)sweep_id, "names", servei_table_objects(t));
        table_free(t);
        servei_reply_json(reply, root);
        return;
    }
    if (store_series_values(s, sweep_id, name, &t, &err) != 0) {
        servei_reply_fail(reply, err);
        return;
    }
    servei_reply_json(reply, series_json(name, t));
    table_free(t);
}
