/* verify: one plugin's stored points run again and compared bit for bit
 * (verify.h). The stored rows stream in stored order (store_points.c); a
 * sampled point runs when its first row arrives, and each stored row that
 * follows meets the computed row of the same position. */
#include "verify.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "plugin/plugin.h"

/* How many differing points are described; the rest are only counted. */
#define VERIFY_PRINTED_MAX 20

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void verify_sample_init(verify_sample *s, uint64_t total, uint64_t want, uint64_t seed)
{
    *s = (verify_sample){ .total = total, .want = want, .state = seed };
}

/* 1 when the next point is drawn: with probability want / total, so that
 * exactly want of total are. */
static int sample_take(verify_sample *s)
{
    if (s->want == UINT64_MAX)
        return 1;
    if (s->total == 0 || s->want == 0)
        return 0;
    uint64_t roll = splitmix64(&s->state) % s->total--;
    if (roll >= s->want)
        return 0;
    s->want--;
    return 1;
}

void verify_report_clear(verify_report *r)
{
    free(r->columns);
    r->columns = NULL;
}

/* One point being checked. */
typedef struct check {
    const loaded_plugin *lp;
    runner_point point; /* the run's rows and error */
    value *params;
    int64_t point_id; /* the stored point at the stream's head */
    int selected;     /* this point runs again */
    int differs;
    size_t next_row;   /* computed rows compared so far */
    char *params_json; /* for messages */
} check;

/* Notes "plugin.column" once in the report's list. */
static int note_column(verify_report *r, const char *plugin, const char *column)
{
    char *name = util_format("%s.%s", plugin, column);
    if (!name)
        return -1;
    size_t len = strlen(name);
    for (const char *p = r->columns; p && *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, n) == 0) {
            free(name);
            return 0;
        }
        p += n + (p[n] ? 2 : 0);
    }
    char *joined = r->columns ? util_format("%s, %s", r->columns, name) : name;
    if (joined != name)
        free(name);
    if (!joined)
        return -1;
    free(r->columns);
    r->columns = joined;
    return 0;
}

/* Marks the point differing and prints why (for the first few points);
 * takes why (malloc'd; NULL when out of memory or not wanted). */
static void differ(check *c, verify_report *r, char *why)
{
    if (!c->differs)
        r->differing++;
    c->differs = 1;
    if (r->printed < VERIFY_PRINTED_MAX) {
        r->printed++;
        fprintf(r->out, "point %lld (%s %s): %s\n", (long long)c->point_id, c->lp->desc->name,
                c->params_json, why ? why : "differs");
    }
    free(why);
}

/* Stored parameters (canonical JSON) back into values, by declaration. */
static int params_from_json(const runner_plugin *plugin, const char *text, value *params)
{
    json_t *doc = json_loads(text, JSON_DECODE_ANY, NULL);
    int bad = !json_is_object(doc);
    for (uint32_t i = 0; i < plugin->param_count && !bad; i++) {
        const runner_param *spec = &plugin->params[i];
        json_t *v = json_object_get(doc, spec->name);
        value_clear(&params[i]);
        if (!v)
            params[i] = param_default(spec);
        else if (spec->type == RUNNER_INTEGER && json_is_integer(v))
            params[i] = value_integer(json_integer_value(v));
        else if (spec->type == RUNNER_REAL && json_is_number(v))
            params[i] = value_real(json_number_value(v));
        else if (spec->type == RUNNER_BOOLEAN && json_is_boolean(v))
            params[i] = value_boolean(json_is_true(v));
        else if (spec->type == RUNNER_TEXT && json_is_string(v))
            bad = (params[i] = value_text(json_string_value(v))).type != RUNNER_TEXT;
        else
            bad = 1;
    }
    json_decref(doc);
    return bad ? -1 : 0;
}

/* Equal to the bit (any NaN equals any NaN: SQLite keeps no payload). */
static int same_bits(const value *a, const value *b)
{
    if (a->type != b->type)
        return 0;
    if (a->type == RUNNER_REAL)
        return (isnan(a->as.real) && isnan(b->as.real)) ||
               memcmp(&a->as.real, &b->as.real, sizeof a->as.real) == 0;
    return value_equal(a, b);
}

/* The head row starts a point: draw it, and run it when drawn. */
static int start_point(check *c, const store_stream_row *row, uint64_t sweep_seed,
                       verify_sample *sample, verify_report *r)
{
    const runner_plugin *plugin = c->lp->desc;
    free(c->params_json);
    c->params_json = NULL;
    c->point_id = row->point_id;
    c->differs = 0;
    c->next_row = 0;
    c->selected = sample_take(sample);
    if (!c->selected)
        return 0;
    if (strcmp(row->status, "crashed") == 0 || strcmp(row->status, "timeout") == 0) {
        c->selected = 0; /* it would take this process down or never end */
        r->not_rerun++;
        return 0;
    }
    if (!(c->params_json = util_strdup(row->params_json)))
        return -1;
    r->checked++;
    if (params_from_json(plugin, row->params_json, c->params) != 0) {
        differ(c, r, util_strdup("the stored parameters do not fit the plugin's declaration"));
        c->selected = 0;
        return 0;
    }
    char *canonical = param_canonical_json(plugin, c->params), identity[65];
    uint64_t seed = 0;
    if (!canonical || param_point_identity(plugin, canonical, sweep_seed, identity, &seed) != 0) {
        free(canonical);
        return -1;
    }
    if (strcmp(canonical, row->params_json) != 0)
        differ(c, r, util_format("its parameters read back as %s", canonical));
    else if (seed != row->seed)
        differ(c, r, util_strdup("its stored seed is not the one its parameters give"));
    free(canonical);
    host_point_reset(&c->point, c->params, row->seed);
    c->point.canonical = c->params_json;
    int failed = host_run_point(&c->point) != 0;
    if (failed != (strcmp(row->status, "ok") != 0))
        differ(c, r, util_format("stored %s, now %s", row->status, failed ? "failed" : "ok"));
    return 0;
}

/* A stored row of the point being checked meets its computed row. */
static int compare_row(check *c, const store_stream_row *row, const table *columns,
                       verify_report *r)
{
    if (!c->selected || !row->has_row)
        return 0;
    size_t i = c->next_row++;
    if (i >= c->point.row_count) {
        if (i == c->point.row_count)
            differ(c, r,
                   util_format("stored more rows than the %zu it gives now", c->point.row_count));
        return 0;
    }
    const value *now = c->point.rows + i * c->lp->desc->column_count;
    for (size_t k = 0; k < columns->column_count; k++) {
        if (same_bits(&row->cells[k], &now[k]))
            continue;
        char stored[64], fresh[64];
        value_format(&row->cells[k], 17, stored, sizeof stored);
        value_format(&now[k], 17, fresh, sizeof fresh);
        differ(c, r,
               util_format("row %zu, %s: stored %s, now %s", i + 1, columns->columns[k].name,
                           stored, fresh));
        if (note_column(r, c->lp->desc->name, columns->columns[k].name) != 0)
            return -1;
    }
    return 0;
}

/* The point's stored rows are all seen: rows it gives beyond them differ. */
static void finish_point(check *c, verify_report *r)
{
    if (!c->selected)
        return;
    if (c->next_row < c->point.row_count)
        differ(c, r,
               util_format("now gives %zu rows, %zu stored", c->point.row_count, c->next_row));
    if (!c->differs)
        r->reproduced++;
    c->selected = 0;
}

/* The plugin's outputs, as the stream reads them: its declared order, so
 * that output k is column k of a computed row. */
static table *output_columns(const runner_plugin *plugin)
{
    table *t = table_new(plugin->name);
    for (uint32_t i = 0; t && i < plugin->column_count; i++)
        if (table_add_column(t, plugin->columns[i].name, plugin->columns[i].unit,
                             plugin->columns[i].type, 0) != 0) {
            table_free(t);
            return NULL;
        }
    return t;
}

int verify_plugin(store *s, int64_t sweep_id, uint64_t sweep_seed, const loaded_plugin *lp,
                  verify_sample *sample, verify_report *report, char **err)
{
    const runner_plugin *plugin = lp->desc;
    check c = { .lp = lp };
    table *columns = output_columns(plugin);
    store_point_stream *stream = NULL;
    int rc = -1, ready = 0;
    c.params = calloc(plugin->param_count + 1, sizeof *c.params);
    if (!columns || !c.params || host_point_init(&c.point, plugin, NULL) != 0) {
        util_fail(err, "out of memory");
        goto done;
    }
    ready = 1;
    if (store_point_stream_open(s, sweep_id, plugin->name, columns, STORE_ORDER_STORED, &stream,
                                err) != 0)
        goto done;
    store_stream_row row;
    int got;
    c.point_id = -1;
    while ((got = store_point_stream_next(stream, &row, err)) == 1) {
        if (row.point_id != c.point_id) {
            finish_point(&c, report);
            if (start_point(&c, &row, sweep_seed, sample, report) != 0) {
                util_fail(err, "out of memory");
                goto done;
            }
        }
        if (compare_row(&c, &row, columns, report) != 0) {
            util_fail(err, "out of memory");
            goto done;
        }
    }
    if (got < 0)
        goto done;
    finish_point(&c, report);
    rc = 0;
done:
    store_point_stream_close(stream);
    if (ready)
        host_point_free(&c.point);
    for (uint32_t i = 0; c.params && i < plugin->param_count; i++)
        value_clear(&c.params[i]);
    free(c.params);
    free(c.params_json);
    table_free(columns);
    return rc;
}
