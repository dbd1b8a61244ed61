/* store_plot_scan.c: a big section's plot in two reads of its rows and no
 * sort. SQLite's GROUP BY sorts its rows (10^6 of them, twice, took
 * seconds); here one read counts the points, finds x's range and the
 * distinct by values (hashed, then sorted as ORDER BY sorts them), and a
 * second keeps the lowest and highest y of each x-column per line drawn,
 * what store_plot.c's GROUP BY passes kept: the same points, in the same
 * order. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One distinct by value: its label (CAST AS TEXT; NULL for NULL) and how
 * ORDER BY ranks it: NULL, then numbers, then text, then blobs. */
typedef struct by_value {
    char *label;
    int rank; /* 0 NULL, 1 number, 2 text, 3 blob */
    int is_integer;
    int64_t integer;
    double real;
    uint64_t hash;
} by_value;

typedef struct by_set {
    by_value *values; /* malloc'd, each label too */
    size_t count, capacity;
    size_t *slots; /* open addressing: index + 1; 0 free */
    size_t slot_count;
} by_set;

static uint64_t hash_bytes(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) /* FNV-1a */
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The column's value as a key: its rank with its number or text. */
static by_value key_of(sqlite3_stmt *st, int column)
{
    by_value v = { 0 };
    switch (sqlite3_column_type(st, column)) {
    case SQLITE_NULL: break;
    case SQLITE_INTEGER:
        v.rank = 1;
        v.is_integer = 1;
        v.integer = sqlite3_column_int64(st, column);
        v.real = (double)v.integer;
        break;
    case SQLITE_FLOAT:
        v.rank = 1;
        v.real = sqlite3_column_double(st, column);
        if (v.real == 0)
            v.real = 0; /* -0.0 groups with 0.0 */
        break;
    case SQLITE_TEXT:
        v.rank = 2;
        v.label = (char *)sqlite3_column_text(st, column); /* borrowed */
        break;
    default:
        v.rank = 3;
        v.label = (char *)sqlite3_column_text(st, column);
        break;
    }
    return v;
}

static uint64_t hash_key(const by_value *v)
{
    uint64_t h = hash_bytes(&v->rank, sizeof v->rank, 1469598103934665603ull);
    if (v->rank == 1 && v->is_integer)
        return hash_bytes(&v->integer, sizeof v->integer, h);
    if (v->rank == 1)
        return hash_bytes(&v->real, sizeof v->real, h);
    return v->label ? hash_bytes(v->label, strlen(v->label), h) : h;
}

static int same_key(const by_value *a, const by_value *b)
{
    if (a->rank != b->rank || a->is_integer != b->is_integer)
        return 0;
    if (a->rank == 1)
        return a->is_integer ? a->integer == b->integer : a->real == b->real;
    if (a->rank == 0)
        return 1;
    return a->label && b->label && strcmp(a->label, b->label) == 0;
}

static void by_set_clear(by_set *b)
{
    for (size_t i = 0; i < b->count; i++)
        free(b->values[i].label);
    free(b->values);
    free(b->slots);
    memset(b, 0, sizeof *b);
}

static int grow_slots(by_set *b)
{
    size_t n = b->slot_count ? 2 * b->slot_count : 1024;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < b->count; i++) {
        size_t at = b->values[i].hash & (n - 1);
        while (slots[at])
            at = (at + 1) & (n - 1);
        slots[at] = i + 1;
    }
    free(b->slots);
    b->slots = slots;
    b->slot_count = n;
    return 0;
}

/* Adds the by value of st's row (column 0) unless known, labelled as CAST
 * AS TEXT spells it; 0, or -1 out of memory. */
static int by_set_add(by_set *b, sqlite3_stmt *st)
{
    by_value v = key_of(st, 0);
    v.hash = hash_key(&v);
    if (2 * (b->count + 1) > b->slot_count && grow_slots(b) != 0)
        return -1;
    size_t at = v.hash & (b->slot_count - 1);
    for (; b->slots[at]; at = (at + 1) & (b->slot_count - 1))
        if (same_key(&b->values[b->slots[at] - 1], &v))
            return 0;
    if (b->count == b->capacity) {
        size_t cap = b->capacity ? 2 * b->capacity : 64;
        by_value *grown = realloc(b->values, cap * sizeof *grown);
        if (!grown)
            return -1;
        b->values = grown;
        b->capacity = cap;
    }
    /* A number's text made now, once per value (column_text converts it as
     * CAST does). */
    const char *text = (const char *)sqlite3_column_text(st, 0);
    v.label = text ? util_strdup(text) : NULL;
    if (text && !v.label)
        return -1;
    b->slots[at] = b->count + 1;
    b->values[b->count++] = v;
    return 0;
}

/* ORDER BY's order (BINARY collation for text). */
static int by_order(const void *pa, const void *pb)
{
    const by_value *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->rank == 1) {
        if (a->is_integer && b->is_integer)
            return a->integer < b->integer ? -1 : a->integer > b->integer;
        return a->real < b->real ? -1 : a->real > b->real;
    }
    if (a->rank == 0)
        return 0;
    return strcmp(a->label, b->label);
}

static int numeric(sqlite3_stmt *st, int column)
{
    int type = sqlite3_column_type(st, column);
    return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

/* The first read: points, x's range, the distinct by values (at most
 * max_groups: more, *too_many and the caller asks SQL for them). */
static int scan_first(store *s, sqlite3_stmt *st, const store_plot_query *q, by_set *by,
                      int *too_many, double *x_min, double *x_max, int64_t *points, char **err)
{
    int rc;
    *x_min = INFINITY;
    *x_max = -INFINITY;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!numeric(st, 1) || !numeric(st, 2))
            continue;
        double x = sqlite3_column_double(st, 1);
        (*points)++;
        *x_min = fmin(*x_min, x);
        *x_max = fmax(*x_max, x);
        if (!q->by || *too_many)
            continue;
        if (by_set_add(by, st) != 0)
            return util_fail(err, "%s: cannot read the plot: out of memory", s->path);
        *too_many = by->count > q->max_groups;
    }
    return rc == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "cannot read the plot");
}

/* One x-column of one line: its lowest and highest y, with their x. */
typedef struct plot_cell {
    int seen;
    double low_x, low_y, high_x, high_y;
} plot_cell;

int storei_plot_push(store *s, store_plot_data *d, size_t *capacity, size_t line, double x,
                     double y, char **err)
{
    if (!isfinite(x) || !isfinite(y))
        return 0;
    if (d->count == *capacity) {
        size_t cap = *capacity ? 2 * *capacity : 1024;
        store_plot_point *grown = realloc(d->points, cap * sizeof *grown);
        if (!grown)
            return util_fail(err, "%s: cannot read the plot: out of memory", s->path);
        d->points = grown;
        *capacity = cap;
    }
    d->points[d->count] = (store_plot_point){ .line = line, .order = d->count + 1, .x = x, .y = y };
    d->count++;
    return 0;
}

/* The second read: each drawn line's lowest and highest y per x-column
 * (x-column: (x - x_min) * x_scale, cut to an integer as CAST does); then
 * the lowest of every line and column, then the highest, as the two GROUP
 * BY passes gave them. */
static int scan_columns(store *s, sqlite3_stmt *st, const store_plot_query *q, store_plot_data *d,
                        const by_value *lines, double x_min, double x_scale, char **err)
{
    size_t columns = q->x_columns + 1, capacity = 0;
    plot_cell *cells = calloc(d->line_count * columns + 1, sizeof *cells);
    if (!cells)
        return util_fail(err, "%s: cannot read the plot: out of memory", s->path);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!numeric(st, 1) || !numeric(st, 2))
            continue;
        size_t line = 0;
        if (lines) { /* else one line */
            by_value v = key_of(st, 0);
            if (v.rank == 0)
                continue; /* a NULL by: its line, unnamed, stays empty */
            while (line < d->line_count && !same_key(&lines[line], &v))
                line++;
            if (line == d->line_count)
                continue;
        }
        double x = sqlite3_column_double(st, 1), y = sqlite3_column_double(st, 2);
        double at = (x - x_min) * x_scale;
        size_t column = isnan(at) || at <= 0         ? 0
                        : at >= (double)q->x_columns ? q->x_columns
                                                     : (size_t)at;
        plot_cell *c = &cells[line * columns + column];
        if (!c->seen || y < c->low_y) {
            c->low_x = x;
            c->low_y = y;
        }
        if (!c->seen || y > c->high_y) {
            c->high_x = x;
            c->high_y = y;
        }
        c->seen = 1;
    }
    int out = rc == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "cannot read the plot");
    for (int high = 0; out == 0 && high < 2; high++)
        for (size_t line = 0; out == 0 && line < d->line_count; line++)
            for (size_t k = 0; out == 0 && k < columns; k++) {
                const plot_cell *c = &cells[line * columns + k];
                if (c->seen)
                    out = storei_plot_push(s, d, &capacity, line, high ? c->high_x : c->low_x,
                                           high ? c->high_y : c->low_y, err);
            }
    free(cells);
    return out;
}

int storei_plot_scan(store *s, const store_plot_query *q, const char *rows_sql, store_plot_data *d,
                     size_t max_labels, int *lines_chosen, char **err)
{
    sqlite3_stmt *st = NULL;
    by_set by = { 0 };
    by_value chosen[64];
    int too_many = 0, rc = -1;
    if (max_labels > sizeof chosen / sizeof chosen[0])
        max_labels = sizeof chosen / sizeof chosen[0];
    double x_min, x_max;
    *lines_chosen = 0;
    if (sqlite3_prepare_v2(s->db, rows_sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the plot");
    sqlite3_bind_int64(st, 1, q->sweep_id);
    sqlite3_bind_int64(st, 2, q->section_id);
    if (scan_first(s, st, q, &by, &too_many, &x_min, &x_max, &d->points_total, err) != 0)
        goto done;
    d->reduced = d->points_total > q->max_points;
    rc = 0;
    if (too_many || !d->reduced)
        goto done; /* store_plot.c chooses the lines, or reads every point */
    if (!q->by && d->points_total > 0) {
        d->labels[0] = util_strdup("");
        d->lines_total = d->line_count = d->labels[0] ? 1 : 0;
    } else if (q->by) {
        if (by.count)
            qsort(by.values, by.count, sizeof *by.values, by_order);
        size_t n = by.count, most = q->max_lines < max_labels ? q->max_lines : max_labels;
        size_t keep = n < most ? n : most;
        for (size_t k = 0; k < keep; k++) {
            size_t pick = keep > 1 ? k * (n - 1) / (keep - 1) : 0;
            chosen[k] = by.values[pick]; /* its label borrowed from d */
            d->labels[k] = by.values[pick].label;
            by.values[pick].label = NULL;
        }
        d->lines_total = n;
        d->line_count = keep;
    }
    *lines_chosen = 1;
    double span = x_max - x_min;
    double x_scale = span > 0 && isfinite(span) ? (double)q->x_columns / span : 0;
    sqlite3_reset(st);
    rc = scan_columns(s, st, q, d, q->by ? chosen : NULL, x_min, x_scale, err);
done:
    sqlite3_finalize(st);
    by_set_clear(&by);
    return rc;
}
