/* serve_plot: a plot of a section's columns for the dashboard, chosen like
 * `runner plot` (x, y, by). A big section is cut down in SQL, so the server
 * never holds the section: at most PLOT_MAX_LINES lines (evenly spaced
 * through the sorted by values, first and last kept, as plot_reduce.c does
 * for gnuplot) and, above SERVEI_PLOT_MAX_POINTS points, the lowest and
 * highest y of each of SERVE_PLOT_COLUMNS x-columns per line. An x that is
 * a text parameter (a delay law) puts each of its values at a place of its own (0, 1,
 * ...; "categories" names them): the store is asked for y against y, one
 * line per value, so the same cut applies. */
#include "serve_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/render.h"

#define SERVE_PLOT_COLUMNS 1000
/* Distinct by values read to choose the lines from. */
#define SERVE_PLOT_MAX_GROUPS 100000

typedef struct plot_request {
    servei_section section;
    long x, y, by;  /* column indices; by -1: one line */
    int categories; /* x is text: one place per value (by: x's column) */
    store_plot_data data;
} plot_request;

static int by_x(const void *a, const void *b)
{
    const store_plot_point *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->line != q->line)
        return p->line < q->line ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

/* Rows for dygraphs with x as places: [place, y], the k-th value's points
 * at place k, in the order of the values (the store sorts them). */
static json_t *category_rows(const plot_request *p)
{
    const store_plot_data *d = &p->data;
    json_t *rows = json_array();
    for (size_t k = 0; k < d->line_count; k++)
        for (size_t i = 0; i < d->count; i++)
            if (d->points[i].line == k)
                json_array_append_new(rows, json_pack("[I,f]", (json_int_t)k, d->points[i].y));
    return rows;
}

/* Rows for dygraphs: [x, y of line 1 or null, ...], one per x (a line
 * with two y at one x, its column's low and high, gets a row each). */
static json_t *chart_rows(plot_request *p)
{
    store_plot_data *d = &p->data;
    if (p->categories)
        return category_rows(p);
    qsort(d->points, d->count, sizeof *d->points, by_x);
    json_t *rows = json_array(), *row = NULL;
    for (size_t i = 0; i < d->count; i++) {
        const store_plot_point *pt = &d->points[i];
        json_t *slot = row ? json_array_get(row, pt->line + 1) : NULL;
        if (!row || pt->x != json_number_value(json_array_get(row, 0)) || !json_is_null(slot)) {
            row = json_array();
            json_array_append_new(row, json_real(pt->x));
            for (size_t k = 0; k < d->line_count; k++)
                json_array_append_new(row, json_null());
            json_array_append_new(rows, row);
        }
        json_array_set_new(row, pt->line + 1, json_real(pt->y));
    }
    return rows;
}

static int numeric(const plot_request *p, long column)
{
    return column >= 0 && value_type_is_numeric(p->section.columns->columns[column].type);
}

static const char *name_of(const plot_request *p, long column)
{
    return p->section.columns->columns[column].name;
}

static json_t *plot_json(plot_request *p)
{
    const store_plot_data *d = &p->data;
    const table *c = p->section.columns;
    long x = p->categories ? p->by : p->x; /* the column named on x */
    json_t *labels = json_array(), *categories = json_array();
    json_array_append_new(labels, value_json_text(name_of(p, x)));
    if (p->categories)
        json_array_append_new(labels, value_json_text(name_of(p, p->y)));
    for (size_t k = 0; k < d->line_count; k++) {
        if (p->categories)
            json_array_append_new(categories, value_json_text(d->labels[k]));
        else
            json_array_append_new(
                labels, p->by < 0 ? value_json_text(name_of(p, p->y))
                                  : json_sprintf("%s=%s", name_of(p, p->by), d->labels[k]));
    }
    size_t drawn = d->count;
    int64_t total = d->points_total;
    /* With places on x the cut is over y's range: only what was kept is said. */
    plot_reduction r = { .lines_total = d->lines_total,
                         .lines_drawn = d->line_count,
                         .points_total = (size_t)total,
                         .points_drawn = drawn,
                         .columns = d->reduced && !p->categories ? SERVE_PLOT_COLUMNS : 0 };
    char *note = plot_reduce_note(&r, p->by >= 0 ? name_of(p, p->by) : NULL);
    json_t *root = json_pack("{s:o,s:o,s:o,s:o,s:o,s:I,s:I}", "labels", labels, "rows",
                             chart_rows(p), "x_unit", value_json_text(c->columns[x].unit), "y_unit",
                             value_json_text(c->columns[p->y].unit), "note", value_json_text(note),
                             "points_total", (json_int_t)total, "points_drawn", (json_int_t)drawn);
    free(note);
    if (p->categories)
        json_object_set_new(root, "categories", categories);
    else
        json_decref(categories);
    return root;
}

void servei_plot(store *s, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply)
{
    plot_request p = { 0 };
    char *err = NULL;
    if (servei_section_open(s, section_id, &p.section, reply) != 0)
        return;
    const char *by = servei_arg(connection, "by");
    p.x = servei_section_find(&p.section, servei_arg(connection, "x"));
    p.y = servei_section_find(&p.section, servei_arg(connection, "y"));
    p.by = by ? servei_section_find(&p.section, by) : -1;
    /* Places on x for a text parameter only: a text result has no order. */
    p.categories = p.x >= 0 && !numeric(&p, p.x) && p.section.columns->columns[p.x].is_param;
    if (p.categories && by) {
        servei_reply_error(reply, 400, "by: not with an x that is text (its values are the lines)");
    } else if ((!p.categories && !numeric(&p, p.x)) || !numeric(&p, p.y) || (by && p.by < 0)) {
        servei_reply_error(reply, 400,
                           "x must be a numeric column or a parameter of the section, y a "
                           "numeric column, by one of its columns");
    } else {
        if (p.categories) { /* y against y, one line per value of x */
            p.by = p.x;
            p.x = p.y;
        }
        store_plot_query q = {
            .section_id = section_id,
            .sweep_id = p.section.sweep_id,
            .plugin = p.section.plugin,
            .x = name_of(&p, p.x),
            .y = name_of(&p, p.y),
            .by = p.by >= 0 ? name_of(&p, p.by) : NULL,
            .max_lines = PLOT_MAX_LINES,
            .max_groups = SERVE_PLOT_MAX_GROUPS,
            .max_points = SERVEI_PLOT_MAX_POINTS,
            .x_columns = SERVE_PLOT_COLUMNS,
        };
        if (store_plot_read(s, &q, &p.data, &err) != 0)
            servei_reply_fail(reply, err);
        else
            servei_reply_json(reply, plot_json(&p));
    }
    store_plot_data_clear(&p.data);
    servei_section_clear(&p.section);
}
