/* serve_plot: a plot of a section's columns for the dashboard, chosen like
 * `runner plot` (x, y, by). A big section is cut down in SQL, so the server
 * never holds the section: at most PLOT_MAX_LINES lines (evenly spaced
 * through the sorted by values, first and last kept, as plot_reduce.c does
 * for gnuplot) and, above SERVEI_PLOT_MAX_POINTS points, the lowest and
 * highest y of each of SERVE_PLOT_COLUMNS x-columns per line. */
#include "serve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/render.h"

#define SERVE_PLOT_COLUMNS 1000
/* Distinct by values read to choose the lines from. */
#define SERVE_PLOT_MAX_GROUPS 100000

typedef struct plot_request {
    servei_columns columns;
    int x, y, by; /* column indices; by -1: one line */
    char *labels[PLOT_MAX_LINES];
    size_t line_count;
    size_t groups_total;
    plot_point *points;
    size_t count, cap;
} plot_request;

/* " FROM t WHERE sweep_id = ?1 AND section_id = ?2 AND x, y numbers" */
static void append_numeric_rows(strbuf *sql, const plot_request *p)
{
    strbuf_str(sql, " FROM ");
    servei_db_ident(sql, p->columns.plugin);
    strbuf_str(sql, " WHERE \"sweep_id\" = ?1 AND \"section_id\" = ?2 AND typeof(");
    servei_db_ident(sql, p->columns.name[p->x]);
    strbuf_str(sql, ") IN ('integer', 'real') AND typeof(");
    servei_db_ident(sql, p->columns.name[p->y]);
    strbuf_str(sql, ") IN ('integer', 'real')");
}

/* The by column as text, or '' for a single line. */
static void append_group(strbuf *sql, const plot_request *p)
{
    if (p->by < 0) {
        strbuf_str(sql, "''");
        return;
    }
    strbuf_str(sql, "CAST(");
    servei_db_ident(sql, p->columns.name[p->by]);
    strbuf_str(sql, " AS TEXT)");
}

static sqlite3_stmt *prepare(sqlite3 *db, strbuf *sql, int64_t sweep_id, int64_t section_id,
                             char **err)
{
    sqlite3_stmt *st = NULL;
    if (sql->oom)
        util_fail(err, "out of memory");
    else
        st = servei_db_prepare(db, sql->data, "cannot read the plot", err);
    free(sql->data);
    memset(sql, 0, sizeof *sql);
    if (st) {
        sqlite3_bind_int64(st, 1, sweep_id);
        sqlite3_bind_int64(st, 2, section_id);
    }
    return st;
}

/* Chooses the lines: every distinct by value, or PLOT_MAX_LINES of them. */
static int choose_lines(sqlite3 *db, plot_request *p, int64_t section_id, char **err)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT ");
    append_group(&sql, p);
    append_numeric_rows(&sql, p);
    if (p->by >= 0) {
        strbuf_str(&sql, " GROUP BY ");
        servei_db_ident(&sql, p->columns.name[p->by]);
        strbuf_str(&sql, " ORDER BY ");
        servei_db_ident(&sql, p->columns.name[p->by]);
    }
    strbuf_printf(&sql, " LIMIT %d", p->by >= 0 ? SERVE_PLOT_MAX_GROUPS : 1);
    sqlite3_stmt *st = prepare(db, &sql, p->columns.sweep_id, section_id, err);
    if (!st)
        return -1;
    char **all = NULL;
    size_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char **grown = realloc(all, (n + 1) * sizeof *all);
        if (!grown)
            break;
        all = grown;
        all[n++] = util_strdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    p->groups_total = n;
    size_t keep = n < PLOT_MAX_LINES ? n : PLOT_MAX_LINES;
    for (size_t k = 0; k < keep; k++) {
        size_t pick = keep > 1 ? k * (n - 1) / (keep - 1) : 0;
        p->labels[k] = all[pick];
        all[pick] = NULL;
    }
    p->line_count = keep;
    for (size_t i = 0; i < n; i++)
        free(all[i]);
    free(all);
    if (rc != SQLITE_DONE)
        return util_fail(err, "cannot read the plot: %s",
                         rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db));
    return 0;
}

static int line_of(const plot_request *p, const char *label)
{
    for (size_t k = 0; k < p->line_count; k++)
        if (p->labels[k] && label && strcmp(p->labels[k], label) == 0)
            return (int)k;
    return -1;
}

/* Reads (group, x, y) rows into p->points, skipping unchosen lines. */
static int collect(sqlite3_stmt *st, plot_request *p, sqlite3 *db, char **err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int line = line_of(p, (const char *)sqlite3_column_text(st, 0));
        double x = sqlite3_column_double(st, 1), y = sqlite3_column_double(st, 2);
        if (line < 0 || !isfinite(x) || !isfinite(y))
            continue;
        if (p->count == p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 1024;
            plot_point *grown = realloc(p->points, cap * sizeof *grown);
            if (!grown)
                return util_fail(err, "cannot read the plot: out of memory");
            p->points = grown;
            p->cap = cap;
        }
        p->points[p->count++] =
            (plot_point){ .group = (size_t)line, .order = p->count, .x = x, .y = y };
    }
    if (rc != SQLITE_DONE)
        return util_fail(err, "cannot read the plot: %s", sqlite3_errmsg(db));
    return 0;
}

/* The points: all of them when few, else each line's lowest and highest y
 * per x-column (SQLite's min()/max() take x from the same row). */
static int read_points(sqlite3 *db, plot_request *p, int64_t section_id, int64_t total, char **err)
{
    strbuf sql = { 0 };
    const char *x = p->columns.name[p->x], *y = p->columns.name[p->y];
    int reduce = total > SERVEI_PLOT_MAX_POINTS;
    double x_min = 0, x_scale = 0;
    if (reduce) {
        strbuf_str(&sql, "SELECT min(");
        servei_db_ident(&sql, x);
        strbuf_str(&sql, "), max(");
        servei_db_ident(&sql, x);
        strbuf_str(&sql, ")");
        append_numeric_rows(&sql, p);
        sqlite3_stmt *st = prepare(db, &sql, p->columns.sweep_id, section_id, err);
        if (!st)
            return -1;
        if (sqlite3_step(st) == SQLITE_ROW) {
            x_min = sqlite3_column_double(st, 0);
            double span = sqlite3_column_double(st, 1) - x_min;
            x_scale = span > 0 && isfinite(span) ? SERVE_PLOT_COLUMNS / span : 0;
        }
        sqlite3_finalize(st);
    }
    for (int pass = 0; pass < (reduce ? 2 : 1); pass++) {
        strbuf_str(&sql, "SELECT ");
        append_group(&sql, p);
        strbuf_str(&sql, ", ");
        servei_db_ident(&sql, x);
        strbuf_str(&sql, reduce ? (pass ? ", max(" : ", min(") : ", ");
        servei_db_ident(&sql, y);
        strbuf_str(&sql, reduce ? ")" : "");
        append_numeric_rows(&sql, p);
        if (reduce) {
            strbuf_str(&sql, " GROUP BY 1, CAST((");
            servei_db_ident(&sql, x);
            strbuf_str(&sql, " - ?3) * ?4 AS INTEGER)");
        }
        sqlite3_stmt *st = prepare(db, &sql, p->columns.sweep_id, section_id, err);
        if (!st)
            return -1;
        sqlite3_bind_double(st, 3, x_min);
        sqlite3_bind_double(st, 4, x_scale);
        int rc = collect(st, p, db, err);
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int by_x(const void *a, const void *b)
{
    const plot_point *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->group != q->group)
        return p->group < q->group ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

/* Rows for dygraphs: [x, y of line 1 or null, ...], one per x (a line
 * with two y at one x, its column's low and high, gets a row each). */
static json_t *chart_rows(plot_request *p)
{
    qsort(p->points, p->count, sizeof *p->points, by_x);
    json_t *rows = json_array(), *row = NULL;
    for (size_t i = 0; i < p->count; i++) {
        const plot_point *pt = &p->points[i];
        json_t *slot = row ? json_array_get(row, pt->group + 1) : NULL;
        if (!row || pt->x != json_number_value(json_array_get(row, 0)) || !json_is_null(slot)) {
            row = json_array();
            json_array_append_new(row, json_real(pt->x));
            for (size_t k = 0; k < p->line_count; k++)
                json_array_append_new(row, json_null());
            json_array_append_new(rows, row);
        }
        json_array_set_new(row, pt->group + 1, json_real(pt->y));
    }
    return rows;
}

static int numeric(const plot_request *p, int column)
{
    return column >= 0 && (strcmp(p->columns.type[column], "integer") == 0 ||
                           strcmp(p->columns.type[column], "real") == 0);
}

static json_t *plot_json(plot_request *p, int64_t total)
{
    json_t *labels = json_array();
    json_array_append_new(labels, value_json_text(p->columns.name[p->x]));
    for (size_t k = 0; k < p->line_count; k++)
        json_array_append_new(
            labels, p->by < 0 ? value_json_text(p->columns.name[p->y])
                              : json_sprintf("%s=%s", p->columns.name[p->by], p->labels[k]));
    size_t drawn = p->count;
    plot_reduction r = { .lines_total = p->groups_total,
                         .lines_drawn = p->line_count,
                         .points_total = (size_t)total,
                         .points_drawn = drawn,
                         .columns = total > SERVEI_PLOT_MAX_POINTS ? SERVE_PLOT_COLUMNS : 0 };
    char *note = plot_reduce_note(&r, p->by >= 0 ? p->columns.name[p->by] : NULL);
    json_t *root =
        json_pack("{s:o,s:o,s:o,s:o,s:o,s:I,s:I}", "labels", labels, "rows", chart_rows(p),
                  "x_unit", value_json_text(p->columns.unit[p->x]), "y_unit",
                  value_json_text(p->columns.unit[p->y]), "note", value_json_text(note),
                  "points_total", (json_int_t)total, "points_drawn", (json_int_t)drawn);
    free(note);
    return root;
}

static int64_t count_points(sqlite3 *db, plot_request *p, int64_t section_id, char **err)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT count(*)");
    append_numeric_rows(&sql, p);
    sqlite3_stmt *st = prepare(db, &sql, p->columns.sweep_id, section_id, err);
    if (!st)
        return -1;
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    if (n < 0)
        util_fail(err, "cannot read the plot: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return n;
}

void servei_plot(sqlite3 *db, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply)
{
    plot_request p = { 0 };
    char *err = NULL;
    if (servei_section_columns(db, section_id, &p.columns, reply) != 0)
        return;
    const char *by = servei_arg(connection, "by");
    p.x = servei_columns_find(&p.columns, servei_arg(connection, "x"));
    p.y = servei_columns_find(&p.columns, servei_arg(connection, "y"));
    p.by = by ? servei_columns_find(&p.columns, by) : -1;
    int64_t total = 0;
    if (!numeric(&p, p.x) || !numeric(&p, p.y) || (by && p.by < 0))
        servei_reply_error(reply, 400,
                           "x and y must be numeric columns of the section, by "
                           "one of its columns");
    else if ((total = count_points(db, &p, section_id, &err)) < 0 ||
             choose_lines(db, &p, section_id, &err) != 0 ||
             read_points(db, &p, section_id, total, &err) != 0)
        servei_reply_fail(reply, err);
    else
        servei_reply_json(reply, plot_json(&p, total));
    for (size_t k = 0; k < p.line_count; k++)
        free(p.labels[k]);
    free(p.points);
    servei_columns_clear(&p.columns);
}
