/* serve_compare: two sweeps' sections (the same ordinal, the same plugin)
 * side by side, matched as `runner diff` matches them (render/diff.c, one
 * comparison for both): points by their canonical parameters, the k-th
 * occurrence of some parameters meeting the k-th, and a matched point's
 * rows in the order they were stored; outputs compared exactly (NaN
 * equals NaN). The counts are runner diff's: rows matched, of them those
 * that differ, rows only one side has. The rows listed (every row, or with
 * only=diff the differing and unmatched ones) are sorted by their
 * parameters' values as typed (numbers numerically: 1, 2, 16, 256, text
 * as text), which the merge's order (by canonical text) is not: a first
 * pass over both sections keeps each listed row's parameters and finds
 * the columns that vary, a second makes the page (offset, limit) of the
 * sorted rows. Memory: the listed rows' parameters, never their outputs.
 * With stat=1 the page is the stored `runner diff --stat` of the two
 * sweeps instead (serve_compare_stat.c). */
#include "serve_int.h"

#include <math.h>
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
    int emit; /* 0: the first pass (keys, counts), 1: the second (the page) */
    int64_t offset, limit;
    int64_t listed;                             /* rows listed so far */
    int64_t first_listed;                       /* by the first pass */
    int64_t matched, differing, only_a, only_b; /* rows */
    /* first pass: each listed row's parameters (params values a row) */
    value *keys;
    size_t key_capacity; /* rows */
    int oom;
    /* each column's first value and whether another differs from it */
    value *first;
    int *seen, *varies;
    /* second pass: the page's place of each listed row, or -1 */
    int64_t *place;
    json_t **slots; /* limit of them */
} compare_page;

/* Typed order of two parameter values (type 0: NULL, VALUE_NULL): numbers (booleans too) by value,
 * before text, which compares by its bytes; NaN and NULL last. */
static int value_order(const value *a, const value *b)
{
    int an = value_type_is_numeric(a->type) || a->type == RUNNER_BOOLEAN;
    int bn = value_type_is_numeric(b->type) || b->type == RUNNER_BOOLEAN;
    int a_null = a->type == 0 || (an && isnan(value_number(a)));
    int b_null = b->type == 0 || (bn && isnan(value_number(b)));
    if (a_null || b_null)
        return a_null - b_null;
    if (an != bn)
        return an ? -1 : 1;
    if (an) {
        if (a->type == RUNNER_INTEGER && b->type == RUNNER_INTEGER)
            return (a->as.integer > b->as.integer) - (a->as.integer < b->as.integer);
        double x = value_number(a), y = value_number(b);
        return (x > y) - (x < y);
    }
    return strcmp(a->as.text ? a->as.text : "", b->as.text ? b->as.text : "");
}

static _Thread_local const compare_page *sorting; /* qsort has no context argument */

static int key_order(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    size_t n = sorting->sides->params;
    for (size_t k = 0; k < n; k++) {
        int c = value_order(&sorting->keys[a * n + k], &sorting->keys[b * n + k]);
        if (c)
            return c;
    }
    return (a > b) - (a < b); /* the merge's order among equals */
}

/* Column k's value v seen: does the column vary? */
static void note_value(compare_page *page, size_t k, const value *v)
{
    if (!page->seen[k]) {
        page->seen[k] = 1;
        page->oom |= value_copy(&page->first[k], v) != 0;
    } else if (!page->varies[k] && !value_equal(&page->first[k], v)) {
        page->varies[k] = 1;
    }
}

/* First pass: the listed row's parameters kept, every value noted. */
static int keep_key(compare_page *page, const diff_row *row)
{
    const store_stream_row *either = row->a ? row->a : row->b;
    size_t n = page->sides->params, width = page->sides->columns.columns->column_count;
    for (size_t k = 0; k < width; k++) {
        if (k < n || row->a)
            note_value(page, k, &(k < n ? either : row->a)->cells[k]);
        if (k >= n && row->b)
            note_value(page, k, &row->b->cells[k]);
    }
    size_t index = (size_t)page->listed - 1;
    if (index >= page->key_capacity) {
        size_t grown = page->key_capacity ? 2 * page->key_capacity : 256;
        value *more = n ? realloc(page->keys, grown * n * sizeof *more) : NULL;
        if (n && !more)
            return -1;
        if (n) /* zeroed: NULL values, cleared whatever a failure leaves */
            memset(more + page->key_capacity * n, 0,
                   (grown - page->key_capacity) * n * sizeof *more);
        page->keys = more;
        page->key_capacity = grown;
    }
    for (size_t k = 0; k < n; k++)
        if (value_copy(&page->keys[index * n + k], &either->cells[k]) != 0)
            return -1;
    return 0;
}

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
    if (!page->emit) {
        page->matched += matched;
        page->differing += matched && row->differs;
        page->only_a += !row->b;
        page->only_b += !row->a;
    }
    if (page->only_differing && matched && !row->differs)
        return 0;
    int64_t index = page->listed++;
    if (!page->emit)
        return keep_key(page, row) == 0 && !page->oom
                   ? 0
                   : util_fail(err, "cannot compare the sweeps: out of memory");
    if (index >= page->first_listed) /* cannot be: both passes read one snapshot */
        return util_fail(err, "cannot compare the sweeps: the rows changed while read");
    int64_t place = page->place[index];
    if (place < 0)
        return 0;
    json_t *json = compare_row(page, row);
    if (!json)
        return util_fail(err, "cannot compare the sweeps: out of memory");
    page->slots[place] = json;
    return 0;
}

/* Between the passes: the listed rows sorted by their keys; the page's
 * rows get their places. 0, or -1 out of memory. */
static int place_page(compare_page *page)
{
    int64_t n = page->listed;
    int64_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    page->place = malloc((size_t)(n ? n : 1) * sizeof *page->place);
    page->slots = calloc((size_t)page->limit, sizeof *page->slots);
    if (!order || !page->place || !page->slots) {
        free(order);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        order[i] = i;
        page->place[i] = -1;
    }
    sorting = page;
    qsort(order, (size_t)n, sizeof *order, key_order);
    sorting = NULL;
    for (int64_t r = page->offset; r < n && r < page->offset + page->limit; r++)
        page->place[order[r]] = r - page->offset;
    free(order);
    return 0;
}

static void page_clear(compare_page *page)
{
    size_t n = page->sides->params, width = page->sides->columns.columns->column_count;
    for (size_t i = 0; i < page->key_capacity * n && page->keys; i++)
        value_clear(&page->keys[i]);
    for (size_t k = 0; page->first && k < width; k++)
        value_clear(&page->first[k]);
    for (int64_t i = 0; page->slots && i < page->limit; i++)
        json_decref(page->slots[i]);
    free(page->keys);
    free(page->first);
    free(page->seen);
    free(page->varies);
    free(page->place);
    free(page->slots);
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

/* Each column as {name, unit, varies} and, when it does not vary, its value. */
static json_t *column_json(const compare_page *page, size_t k)
{
    const table_column *col = &page->sides->columns.columns->columns[k];
    json_t *one = json_pack("{s:o,s:o,s:b}", "name", value_json_text(col->name), "unit",
                            value_json_text(col->unit), "varies", page->varies[k]);
    if (!page->varies[k] && page->seen[k])
        json_object_set_new(one, "value", servei_cell(&page->first[k]));
    return one;
}

/* runner diff's figures (cli_diff.c's table): points, then per output
 * column rows compared, changed, largest changes. */
static json_t *figures_json(const compare_sides *c, const diff_plugin *result, json_t **points)
{
    const table *t = c->columns.columns;
    json_t *changes = json_array();
    for (size_t k = c->params; k < t->column_count; k++) {
        const diff_column *d = &result->columns[k - c->params];
        value abs = value_real(d->max_abs), rel = value_real(d->max_rel); /* may be inf */
        json_array_append_new(
            changes,
            json_pack("{s:o,s:I,s:I,s:o,s:o}", "name", value_json_text(t->columns[k].name), "rows",
                      (json_int_t)d->rows, "changed", (json_int_t)d->changed, "max_abs_change",
                      servei_cell(&abs), "max_rel_change", servei_cell(&rel)));
    }
    *points = json_pack("{s:I,s:I,s:I,s:I,s:I}", "both", (json_int_t)result->both, "only_a",
                        (json_int_t)result->only_a, "only_b", (json_int_t)result->only_b,
                        "status_changed", (json_int_t)result->status_changed, "rows_unmatched",
                        (json_int_t)(result->rows_only_a + result->rows_only_b));
    return changes;
}

void servei_compare(store *s, struct MHD_Connection *connection, servei_reply *reply)
{
    compare_sides c = { 0 };
    const char *only = servei_arg(connection, "only");
    if (only && strcmp(only, "diff") != 0) {
        servei_reply_error(reply, 400, "only: expected diff (or nothing: every row)");
        return;
    }
    const char *stat = servei_arg(connection, "stat");
    if (stat && strcmp(stat, "1") != 0) {
        servei_reply_error(reply, 400, "stat: expected 1 (or nothing: every row)");
        return;
    }
    if (stat) {
        servei_compare_stat(s, connection, reply);
        return;
    }
    if (find_sides(s, connection, &c, reply) != 0)
        return;
    size_t width = c.columns.columns->column_count;
    compare_page page = {
        .sides = &c,
        .only_differing = only && strcmp(only, "diff") == 0,
        .limit = servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS,
                                SERVE_COMPARE_DEFAULT_PAGE),
        .offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0),
        .first = calloc(width ? width : 1, sizeof(value)),
        .seen = calloc(width ? width : 1, sizeof(int)),
        .varies = calloc(width ? width : 1, sizeof(int)),
    };
    diff_scope scope = { .section_a = c.section[0],
                         .section_b = c.section[1],
                         .carried = c.params,
                         .visit = visit,
                         .ctx = &page };
    diff_tolerance exact = { 0 };
    diff_plugin result = { 0 };
    char *err = NULL;
    int rc = page.first && page.seen && page.varies ? 0 : util_fail(&err, "out of memory");
    /* both passes in one read transaction: a sweep writing meanwhile is
     * seen by neither */
    if (rc == 0)
        rc = store_read_hold(s, &err);
    /* the first pass: counts, keys, what varies */
    if (rc == 0)
        rc = diff_plugin_scan(s, c.sweep[0], c.sweep[1], c.columns.plugin, c.columns.columns,
                              &exact, &scope, &result, &err);
    if (rc == 0 && place_page(&page) != 0)
        rc = util_fail(&err, "cannot compare the sweeps: out of memory");
    if (rc == 0) {
        /* the second: the page's rows, into their places */
        diff_plugin_clear(&result);
        page.emit = 1;
        page.first_listed = page.listed;
        page.listed = 0;
        rc = diff_plugin_scan(s, c.sweep[0], c.sweep[1], c.columns.plugin, c.columns.columns,
                              &exact, &scope, &result, &err);
    }
    store_read_release(s);
    if (rc != 0) {
        servei_reply_fail(reply, err);
    } else {
        json_t *params = json_array(), *outputs = json_array(), *rows = json_array();
        for (size_t k = 0; k < width; k++)
            json_array_append_new(k < c.params ? params : outputs, column_json(&page, k));
        for (int64_t i = 0; i < page.limit; i++)
            if (page.slots[i]) {
                json_array_append_new(rows, page.slots[i]);
                page.slots[i] = NULL;
            }
        json_t *points = NULL;
        json_t *changes = figures_json(&c, &result, &points);
        json_t *counts = json_pack("{s:I,s:I,s:I,s:I}", "rows", (json_int_t)page.matched,
                                   "differing", (json_int_t)page.differing, "only_a",
                                   (json_int_t)page.only_a, "only_b", (json_int_t)page.only_b);
        json_t *root =
            json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:I,s:I,s:I}", "a", (json_int_t)c.sweep[0],
                      "b", (json_int_t)c.sweep[1], "section_a", (json_int_t)c.section[0],
                      "section_b", (json_int_t)c.section[1], "params", params, "outputs", outputs,
                      "counts", counts, "rows", rows, "total", (json_int_t)page.listed, "offset",
                      (json_int_t)page.offset, "limit", (json_int_t)page.limit);
        json_object_set_new(root, "points", points);
        json_object_set_new(root, "changes", changes);
        servei_reply_json(reply, root);
    }
    page_clear(&page);
    diff_plugin_clear(&result);
    servei_section_clear(&c.columns);
}
