/* store_plot.c: two columns of a section for a chart, cut down so that a
 * reader never holds the section: at most max_lines lines (evenly spaced
 * through the sorted by values, first and last kept, as
 * render/plot_reduce.c does for gnuplot) and, above max_points points, the
 * lowest and highest y of each x-column per line. A big section is cut in
 * two reads without a sort (store_plot_scan.c); the GROUP BY statements
 * here read a small one, or one with more than max_groups by values. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_LABELS (sizeof((store_plot_data *)0)->labels / sizeof(char *))

/* " FROM t WHERE sweep_id = ?1 AND section_id = ?2 AND x, y numbers" */
static void append_numeric_rows(strbuf *sql, const store_plot_query *q)
{
    strbuf_str(sql, " FROM ");
    storei_append_ident(sql, q->plugin);
    strbuf_str(sql, " WHERE \"sweep_id\" = ?1 AND \"section_id\" = ?2 AND typeof(");
    storei_append_ident(sql, q->x);
    strbuf_str(sql, ") IN ('integer', 'real') AND typeof(");
    storei_append_ident(sql, q->y);
    strbuf_str(sql, ") IN ('integer', 'real')");
}

/* The by column as text, or '' for a single line. */
static void append_group(strbuf *sql, const store_plot_query *q)
{
    if (!q->by) {
        strbuf_str(sql, "''");
        return;
    }
    strbuf_str(sql, "CAST(");
    storei_append_ident(sql, q->by);
    strbuf_str(sql, " AS TEXT)");
}

/* Prepares sql (and empties it) with sweep and section bound. */
static sqlite3_stmt *prepare(store *s, strbuf *sql, const store_plot_query *q, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sql->oom)
        util_fail(err, "%s: cannot read the plot: out of memory", s->path);
    else if (sqlite3_prepare_v2(s->db, sql->data, -1, &st, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "cannot read the plot");
    strbuf_free(sql);
    memset(sql, 0, sizeof *sql);
    if (st) {
        sqlite3_bind_int64(st, 1, q->sweep_id);
        sqlite3_bind_int64(st, 2, q->section_id);
    }
    return st;
}

/* Chooses the lines: every distinct by value, or max_lines of them. */
static int choose_lines(store *s, const store_plot_query *q, store_plot_data *out, char **err)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT ");
    append_group(&sql, q);
    append_numeric_rows(&sql, q);
    if (q->by) {
        strbuf_str(&sql, " GROUP BY ");
        storei_append_ident(&sql, q->by);
        strbuf_str(&sql, " ORDER BY ");
        storei_append_ident(&sql, q->by);
    }
    strbuf_printf(&sql, " LIMIT %zu", q->by ? q->max_groups : 1);
    sqlite3_stmt *st = prepare(s, &sql, q, err);
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
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        storei_fail_sql(s, err, "cannot read the plot");
    sqlite3_finalize(st);
    out->lines_total = n;
    size_t most = q->max_lines < PLOT_LABELS ? q->max_lines : PLOT_LABELS;
    size_t keep = n < most ? n : most;
    for (size_t k = 0; k < keep; k++) {
        size_t pick = keep > 1 ? k * (n - 1) / (keep - 1) : 0;
        out->labels[k] = all[pick];
        all[pick] = NULL;
    }
    out->line_count = keep;
    for (size_t i = 0; i < n; i++)
        free(all[i]);
    free(all);
    if (rc == SQLITE_ROW)
        return util_fail(err, "%s: cannot read the plot: out of memory", s->path);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int line_of(const store_plot_data *d, const char *label)
{
    for (size_t k = 0; k < d->line_count; k++)
        if (d->labels[k] && label && strcmp(d->labels[k], label) == 0)
            return (int)k;
    return -1;
}

/* Reads (group, x, y) rows into d->points, skipping lines not drawn. */
static int collect(store *s, sqlite3_stmt *st, store_plot_data *d, size_t *capacity, char **err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int line = line_of(d, (const char *)sqlite3_column_text(st, 0));
        double x = sqlite3_column_double(st, 1), y = sqlite3_column_double(st, 2);
        if (line >= 0 && storei_plot_push(s, d, capacity, (size_t)line, x, y, err) != 0)
            return -1;
    }
    return rc == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "cannot read the plot");
}

/* The points: all of them when few, else each line's lowest and highest y
 * per x-column (SQLite's min()/max() take x from the same row). */
static int read_points(store *s, const store_plot_query *q, store_plot_data *d, char **err)
{
    strbuf sql = { 0 };
    double x_min = 0, x_scale = 0;
    size_t capacity = 0;
    if (d->reduced) {
        strbuf_str(&sql, "SELECT min(");
        storei_append_ident(&sql, q->x);
        strbuf_str(&sql, "), max(");
        storei_append_ident(&sql, q->x);
        strbuf_str(&sql, ")");
        append_numeric_rows(&sql, q);
        sqlite3_stmt *st = prepare(s, &sql, q, err);
        if (!st)
            return -1;
        if (sqlite3_step(st) == SQLITE_ROW) {
            x_min = sqlite3_column_double(st, 0);
            double span = sqlite3_column_double(st, 1) - x_min;
            x_scale = span > 0 && isfinite(span) ? (double)q->x_columns / span : 0;
        }
        sqlite3_finalize(st);
    }
    for (int pass = 0; pass < (d->reduced ? 2 : 1); pass++) {
        strbuf_str(&sql, "SELECT ");
        append_group(&sql, q);
        strbuf_str(&sql, ", ");
        storei_append_ident(&sql, q->x);
        strbuf_str(&sql, d->reduced ? (pass ? ", max(" : ", min(") : ", ");
        storei_append_ident(&sql, q->y);
        strbuf_str(&sql, d->reduced ? ")" : "");
        append_numeric_rows(&sql, q);
        if (d->reduced) {
            strbuf_str(&sql, " GROUP BY 1, CAST((");
            storei_append_ident(&sql, q->x);
            strbuf_str(&sql, " - ?3) * ?4 AS INTEGER)");
        }
        sqlite3_stmt *st = prepare(s, &sql, q, err);
        if (!st)
            return -1;
        sqlite3_bind_double(st, 3, x_min);
        sqlite3_bind_double(st, 4, x_scale);
        int rc = collect(s, st, d, &capacity, err);
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int store_plot_read(store *s, const store_plot_query *q, store_plot_data *out, char **err)
{
    memset(out, 0, sizeof *out);
    /* by, x, y (the numbers among them picked in C): read twice by store_plot_scan.c, which counts
     * and, for a big section, cuts it down without a sort. */
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT ");
    if (q->by)
        storei_append_ident(&sql, q->by);
    else
        strbuf_str(&sql, "NULL");
    strbuf_str(&sql, ", ");
    storei_append_ident(&sql, q->x);
    strbuf_str(&sql, ", ");
    storei_append_ident(&sql, q->y);
    strbuf_str(&sql, " FROM ");
    storei_append_ident(&sql, q->plugin);
    strbuf_str(&sql, " WHERE \"sweep_id\" = ?1 AND \"section_id\" = ?2");
    int chosen = 0, rc = sql.oom
                             ? util_fail(err, "%s: cannot read the plot: out of memory", s->path)
                             : storei_plot_scan(s, q, sql.data, out, PLOT_LABELS, &chosen, err);
    strbuf_free(&sql);
    if (rc != 0 ||
        (!chosen && (choose_lines(s, q, out, err) != 0 || read_points(s, q, out, err) != 0))) {
        store_plot_data_clear(out);
        return -1;
    }
    return 0;
}

void store_plot_data_clear(store_plot_data *d)
{
    if (!d)
        return;
    for (size_t k = 0; k < d->line_count; k++)
        free(d->labels[k]);
    free(d->points);
    memset(d, 0, sizeof *d);
}
