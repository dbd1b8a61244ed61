/* diff: the merge of two sweeps' point streams (diff.h says how points
 * meet) and the per-column figures. */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The scan's settings, shared by its steps. */
typedef struct diff_walk {
    const diff_scope *scope;
    const diff_tolerance *tolerance;
    size_t width; /* columns compared, after the carried ones */
    diff_plugin *out;
} diff_walk;

/* One side: its stream and the row at its head. */
typedef struct diff_side {
    store_point_stream *stream;
    store_stream_row head;
    int more; /* head holds a row */
} diff_side;

static int side_next(diff_side *side, char **err)
{
    side->more = store_point_stream_next(side->stream, &side->head, err);
    return side->more < 0 ? -1 : 0;
}

/* Shows the visitor a row; is_a: it is the side a row; matched: its point
 * met its match; *start: no row of the point shown yet (cleared once one
 * is). */
static int visit_one(const diff_walk *w, const diff_side *side, int is_a, int matched, int *start,
                     char **err)
{
    if (!w->scope->visit || !side->head.has_row)
        return 0;
    diff_row row = { .a = is_a ? &side->head : NULL,
                     .b = is_a ? NULL : &side->head,
                     .matched = matched,
                     .point_start = *start };
    *start = 0;
    return w->scope->visit(w->scope->ctx, &row, err);
}

/* Skips the rest of the head's point; counts it as unmatched. */
static int skip_point(const diff_walk *w, diff_side *side, int is_a, char **err)
{
    uint64_t *points = is_a ? &w->out->only_a : &w->out->only_b;
    char **example = is_a ? &w->out->example_a : &w->out->example_b;
    int64_t point = side->head.point_id;
    int start = 1;
    (*points)++;
    if (!*example && !(*example = util_strdup(side->head.params_json)))
        return util_fail(err, "out of memory");
    while (side->more && side->head.point_id == point)
        if (visit_one(w, side, is_a, 0, &start, err) != 0 || side_next(side, err) != 0)
            return -1;
    return 0;
}

static int is_number(const value *v) { return v->type == RUNNER_INTEGER || v->type == RUNNER_REAL; }

/* Compares two cells into column c; returns 1 when they are unequal. */
static int compare_cells(const value *a, const value *b, const diff_tolerance *t, diff_column *c)
{
    if (!is_number(a) || !is_number(b))
        return !value_equal(a, b);
    if (a->type == RUNNER_INTEGER && b->type == RUNNER_INTEGER && a->as.integer == b->as.integer)
        return 0;
    double x = value_number(a), y = value_number(b);
    if (isnan(x) || isnan(y))
        return !(isnan(x) && isnan(y));
    if (x == y)
        return 0; /* equal infinities too */
    double change = fabs(x - y), scale = fmax(fabs(x), fabs(y));
    double relative = isinf(change) ? INFINITY : change / scale;
    if (change > c->max_abs)
        c->max_abs = change;
    if (relative > c->max_rel)
        c->max_rel = relative;
    return !(change <= t->absolute || relative <= t->relative);
}

/* Compares the two heads' rows cell by cell; 1 when some cell differs. */
static int compare_rows(const diff_walk *w, const diff_side *a, const diff_side *b)
{
    size_t from = w->scope->carried;
    int differs = 0;
    for (size_t i = 0; i < w->width; i++) {
        diff_column *c = &w->out->columns[i];
        c->rows++;
        int changed =
            compare_cells(&a->head.cells[from + i], &b->head.cells[from + i], w->tolerance, c);
        c->changed += changed;
        differs |= changed;
    }
    return differs;
}

/* Both heads start a point with the same parameters: compare its rows in
 * order while both last, then count the rows one side has beyond. */
static int match_point(const diff_walk *w, diff_side *a, diff_side *b, char **err)
{
    diff_plugin *out = w->out;
    int64_t pa = a->head.point_id, pb = b->head.point_id;
    out->both++;
    if (strcmp(a->head.status, b->head.status) != 0)
        out->status_changed++;
    int in_a = 1, in_b = 1, start = 1;
    for (;;) {
        in_a = a->more && a->head.point_id == pa;
        in_b = b->more && b->head.point_id == pb;
        if (!in_a || !in_b)
            break;
        if (a->head.has_row && b->head.has_row) {
            diff_row row = { &a->head, &b->head, compare_rows(w, a, b), 1, start };
            start = 0;
            if (w->scope->visit && w->scope->visit(w->scope->ctx, &row, err) != 0)
                return -1;
        } else if (a->head.has_row || b->head.has_row) {
            *(a->head.has_row ? &out->rows_only_a : &out->rows_only_b) += 1;
            if (visit_one(w, a->head.has_row ? a : b, a->head.has_row, 1, &start, err) != 0)
                return -1;
        }
        if (side_next(a, err) != 0 || side_next(b, err) != 0)
            return -1;
    }
    for (; in_a; in_a = a->more && a->head.point_id == pa) {
        out->rows_only_a += a->head.has_row;
        if (visit_one(w, a, 1, 1, &start, err) != 0 || side_next(a, err) != 0)
            return -1;
    }
    for (; in_b; in_b = b->more && b->head.point_id == pb) {
        out->rows_only_b += b->head.has_row;
        if (visit_one(w, b, 0, 1, &start, err) != 0 || side_next(b, err) != 0)
            return -1;
    }
    return 0;
}

int diff_plugin_run(store *s, int64_t a, int64_t b, const char *plugin, const table *columns,
                    const diff_tolerance *tolerance, diff_plugin *out, char **err)
{
    diff_scope whole = { 0 };
    return diff_plugin_scan(s, a, b, plugin, columns, tolerance, &whole, out, err);
}

int diff_plugin_scan(store *s, int64_t a, int64_t b, const char *plugin, const table *columns,
                     const diff_tolerance *tolerance, const diff_scope *scope, diff_plugin *out,
                     char **err)
{
    memset(out, 0, sizeof *out);
    diff_side side_a = { 0 }, side_b = { 0 };
    diff_walk w = { scope, tolerance, 0, out };
    int rc = -1;
    if (scope->carried > columns->column_count) {
        util_fail(err, "diff: more columns carried than read");
        goto done;
    }
    w.width = columns->column_count - scope->carried;
    if (!(out->columns = calloc(w.width + 1, sizeof *out->columns))) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (store_point_stream_open_section(s, a, scope->section_a, plugin, columns, STORE_ORDER_PARAMS,
                                        &side_a.stream, err) != 0 ||
        store_point_stream_open_section(s, b, scope->section_b, plugin, columns, STORE_ORDER_PARAMS,
                                        &side_b.stream, err) != 0 ||
        side_next(&side_a, err) != 0 || side_next(&side_b, err) != 0)
        goto done;
    while (side_a.more || side_b.more) {
        /* byte order, as SQLite's ORDER BY sorted the text */
        int order = !side_b.more   ? -1
                    : !side_a.more ? 1
                                   : strcmp(side_a.head.params_json, side_b.head.params_json);
        int step = order < 0   ? skip_point(&w, &side_a, 1, err)
                   : order > 0 ? skip_point(&w, &side_b, 0, err)
                               : match_point(&w, &side_a, &side_b, err);
        if (step != 0)
            goto done;
    }
    rc = 0;
done:
    store_point_stream_close(side_a.stream);
    store_point_stream_close(side_b.stream);
    return rc;
}

int diff_plugin_differs(const diff_plugin *d, size_t column_count, int common_only)
{
    if (d->status_changed || d->rows_only_a || d->rows_only_b)
        return 1;
    if (!common_only && (d->only_a || d->only_b))
        return 1;
    for (size_t i = 0; i < column_count; i++)
        if (d->columns[i].changed)
            return 1;
    return 0;
}

void diff_plugin_clear(diff_plugin *d)
{
    if (!d)
        return;
    free(d->example_a);
    free(d->example_b);
    free(d->columns);
    memset(d, 0, sizeof *d);
}
