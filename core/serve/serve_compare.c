/* serve_compare: two sweeps' sections (the same ordinal, the same plugin)
 * side by side, matched as `runner diff` matches them (render/diff.c, one
 * comparison for both): points by their canonical parameters, the k-th
 * occurrence of some parameters meeting the k-th, and a matched point's
 * rows in the order they were stored; outputs compared exactly (NaN
 * equals NaN). The counts are runner diff's: rows matched, of them those
 * that differ, rows only one side has. One pass over both sections makes
 * the counts and the page (offset, limit) of the rows listed: every row,
 * or with only=diff the differing and unmatched ones, in parameter order. */
#include "serve_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/render.h"

#define SERVE_COMPARE_DEFAULT_PAGE 100

typedef struct compare_sides {
    int64_t sweep[2], section[2];
    servei_section columns; /* side b's section (both share the plugin's table) */
    size_t params;          /* the first `params` columns are parameters */
} compare_sides;

/* What the visitor gathers while the two sections merge. */
typedef struct compare_page {
    const compare_sides *sides;
    int only_differing;
    int64_t offset, limit;
    int64_t listed;                             /* rows listed so far */
    int64_t matched, differing, only_a, only_b; /* rows */
    json_t *rows;                               /* the page */
} compare_page;

/* One listed row: the parameters (from whichever side has the row), then
 * each output as [a, b], then whether the row differs (unmatched rows do). */
static json_t *compare_row(const compare_page *page, const diff_row *row)
{
    const store_stream_row *either = row->a ? row->a : row->b;
    size_t width = page->sides->columns.columns->column_count;
    json_t *params = json_array(), *outputs = json_array();
    for (size_t k = 0; k < width; k++) {
        if (k < page->sides->params) {
            json_array_append_new(params, servei_cell(&either->cells[k]));
            continue;
        }
        json_t *a = row->a ? servei_cell(&row->a->cells[k]) : json_null();
        json_t *b = row->b ? servei_cell(&row->b->cells[k]) : json_null();
        json_array_append_new(outputs, json_pack("[o,o]", a, b));
    }
    return json_pack("{s:o,s:o,s:b,s:b,s:b}", "params", params, "outputs", outputs, "in_a",
                     row->a != NULL, "in_b", row->b != NULL, "differs",
                     row->differs || !row->a || !row->b);
}

static int visit(void *ctx, const diff_row *row, char **err)
{
    compare_page *page = ctx;
    int matched = row->a && row->b;
    page->matched += matched;
    page->differing += matched && row->differs;
    page->only_a += !row->b;
    page->only_b += !row->a;
    if (page->only_differing && matched && !row->differs)
        return 0;
    int64_t index = page->listed++;
    if (index < page->offset || index >= page->offset + page->limit)
        return 0;
    json_t *json = compare_row(page, row);
    if (!json || json_array_append_new(page->rows, json) != 0)
        return util_fail(err, "cannot compare the sweeps: out of memory");
    return 0;
}

/* Both sections found, of one plugin; 0, or -1 with reply set. */
static int find_sides(store *s, struct MHD_Connection *connection, compare_sides *c,
                      servei_reply *reply)
{
    int64_t ordinal = servei_arg_int(connection, "section", 1, INT32_MAX, 1);
    c->sweep[0] = servei_arg_int(connection, "a", 1, INT64_MAX, 0);
    c->sweep[1] = servei_arg_int(connection, "b", 1, INT64_MAX, 0);
    if (!c->sweep[0] || !c->sweep[1]) {
        servei_reply_error(reply, 400, "a and b: expected two sweep ids");
        return -1;
    }
    char *plugin = NULL, *err = NULL;
    for (int side = 0; side < 2; side++) {
        if (store_section_find(s, c->sweep[side], (int)ordinal, &c->section[side], &err) != 0) {
            servei_reply_fail(reply, err);
            break;
        }
        if (!c->section[side]) {
            servei_reply_error(reply, 404, "no such section in one of the sweeps");
            break;
        }
        servei_section_clear(&c->columns);
        if (servei_section_open(s, c->section[side], &c->columns, reply) != 0)
            break;
        if (side == 0) {
            plugin = util_strdup(c->columns.plugin);
            continue;
        }
        if (plugin && strcmp(plugin, c->columns.plugin) == 0) {
            free(plugin);
            const table *t = c->columns.columns;
            while (c->params < t->column_count && t->columns[c->params].is_param)
                c->params++;
            return 0;
        }
        servei_reply_error(reply, 400, "the two sections ran different plugins");
    }
    free(plugin);
    servei_section_clear(&c->columns);
    return -1;
}

void servei_compare(store *s, struct MHD_Connection *connection, servei_reply *reply)
{
    compare_sides c = { 0 };
    const char *only = servei_arg(connection, "only");
    if (only && strcmp(only, "diff") != 0) {
        servei_reply_error(reply, 400, "only: expected diff (or nothing: every row)");
        return;
    }
    if (find_sides(s, connection, &c, reply) != 0)
        return;
    compare_page page = {
        .sides = &c,
        .only_differing = only && strcmp(only, "diff") == 0,
        .limit = servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS,
                                SERVE_COMPARE_DEFAULT_PAGE),
        .offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0),
        .rows = json_array(),
    };
    diff_scope scope = { .section_a = c.section[0],
                         .section_b = c.section[1],
                         .carried = c.params,
                         .visit = visit,
                         .ctx = &page };
    diff_tolerance exact = { 0 };
    diff_plugin result;
    char *err = NULL;
    if (diff_plugin_scan(s, c.sweep[0], c.sweep[1], c.columns.plugin, c.columns.columns, &exact,
                         &scope, &result, &err) != 0) {
        json_decref(page.rows);
        servei_reply_fail(reply, err);
    } else {
        const table *t = c.columns.columns;
        json_t *params = json_array(), *outputs = json_array();
        for (size_t k = 0; k < t->column_count; k++)
            json_array_append_new(k < c.params ? params : outputs,
                                  json_pack("{s:o,s:o}", "name",
                                            value_json_text(t->columns[k].name), "unit",
                                            value_json_text(t->columns[k].unit)));
        /* runner diff's figures (cli_diff.c's table): points, then per
         * output column rows compared, changed, largest changes. */
        json_t *changes = json_array();
        for (size_t k = c.params; k < t->column_count; k++) {
            const diff_column *d = &result.columns[k - c.params];
            value abs = value_real(d->max_abs), rel = value_real(d->max_rel); /* may be inf */
            json_array_append_new(
                changes, json_pack("{s:o,s:I,s:I,s:o,s:o}", "name",
                                   value_json_text(t->columns[k].name), "rows", (json_int_t)d->rows,
                                   "changed", (json_int_t)d->changed, "max_abs_change",
                                   servei_cell(&abs), "max_rel_change", servei_cell(&rel)));
        }
        json_t *points =
            json_pack("{s:I,s:I,s:I,s:I,s:I}", "both", (json_int_t)result.both, "only_a",
                      (json_int_t)result.only_a, "only_b", (json_int_t)result.only_b,
                      "status_changed", (json_int_t)result.status_changed, "rows_unmatched",
                      (json_int_t)(result.rows_only_a + result.rows_only_b));
        json_t *counts = json_pack("{s:I,s:I,s:I,s:I}", "rows", (json_int_t)page.matched,
                                   "differing", (json_int_t)page.differing, "only_a",
                                   (json_int_t)page.only_a, "only_b", (json_int_t)page.only_b);
        json_t *root =
            json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:I,s:I,s:I}", "a", (json_int_t)c.sweep[0],
                      "b", (json_int_t)c.sweep[1], "section_a", (json_int_t)c.section[0],
                      "section_b", (json_int_t)c.section[1], "params", params, "outputs", outputs,
                      "counts", counts, "rows", page.rows, "total", (json_int_t)page.listed,
                      "offset", (json_int_t)page.offset, "limit", (json_int_t)page.limit);
        json_object_set_new(root, "points", points);
        json_object_set_new(root, "changes", changes);
        servei_reply_json(reply, root);
    }
    diff_plugin_clear(&result);
    servei_section_clear(&c.columns);
}
