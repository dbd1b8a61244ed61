/* plot_load: the rows a plot of a stored section draws, cut down while they
 * are read (plot_load.h). Two passes of a store cursor over the plotted
 * columns: the first finds the lines (and each one's x range and count),
 * the second keeps what plot_reduce would keep of the drawn lines. */
#include "plot_load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "section_columns.h"
#include "render_int.h"

#define DEFAULT_WIDTH 800 /* plot.c's */

typedef struct line_facts {
    value key;            /* the by value (NULL value: one line) */
    size_t count;         /* drawable points */
    double x_low, x_high; /* of its points, log10 on a log axis */
} line_facts;

/* One end of an x-column's envelope: the point with the lowest (highest)
 * y, the first in x order among equals, as plot_reduce_points keeps it. */
typedef struct pick {
    int set;
    size_t line;  /* its place in the drawing order */
    size_t order; /* row index in the section */
    value x, y;
} pick;

/* The x values of a line seen so far, to tell whether one repeats: an open
 * addressing set of their bits (x is finite, so a NaN's bits mark empty). */
typedef struct x_set {
    uint64_t *slots;
    size_t cap, used;
} x_set;

#define EMPTY_SLOT 0x7ff8000000000001ULL

/* 1: x was there already; 0: added; -1: out of memory. */
static int x_set_add(x_set *s, double x)
{
    if (x == 0)
        x = 0; /* -0 == 0, as plot.c compares */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (2 * (s->used + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        uint64_t *slots = malloc(cap * sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < cap; i++)
            slots[i] = EMPTY_SLOT;
        for (size_t i = 0; i < s->cap; i++) {
            if (s->slots[i] == EMPTY_SLOT)
                continue;
            size_t at = (size_t)((s->slots[i] * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
            while (slots[at] != EMPTY_SLOT)
                at = (at + 1) & (cap - 1);
            slots[at] = s->slots[i];
        }
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    size_t at = (size_t)((bits * 0x9e3779b97f4a7c15ULL) >> 20) & (s->cap - 1);
    for (; s->slots[at] != EMPTY_SLOT; at = (at + 1) & (s->cap - 1))
        if (s->slots[at] == bits)
            return 1;
    s->slots[at] = bits;
    s->used++;
    return 0;
}

static void x_set_free(x_set *s)
{
    free(s->slots);
    memset(s, 0, sizeof *s);
}

typedef struct loader {
    const plot_spec *spec;
    size_t xc, yc, bc;   /* columns of the read row; bc unused without by */
    runner_type by_type; /* the by column's */
    line_facts *lines;
    size_t line_count, line_cap, last_line;
    size_t drawn[PLOT_MAX_LINES]; /* indexes into lines, in drawing order */
    size_t drawn_count;
    long *rank; /* per line: its place in drawn, or -1 */
    double x_min, span;
    size_t columns; /* 0: every point of the drawn lines is kept */
    pick *picks;    /* reduced: drawn_count x columns x {low, high} */
    pick *kept;     /* not reduced: the points, in row order */
    size_t kept_count;
    x_set seen[PLOT_MAX_LINES];
} loader;

static void loader_clear(loader *l)
{
    for (size_t i = 0; i < l->line_count; i++)
        value_clear(&l->lines[i].key);
    free(l->lines);
    free(l->rank);
    free(l->picks);
    free(l->kept);
    for (size_t i = 0; i < PLOT_MAX_LINES; i++)
        x_set_free(&l->seen[i]);
}

/* The row's x and y when it is drawn; 0 and a count in pre otherwise. */
static int drawable(const loader *l, const value *row, double *x, double *y, plot_preload *pre)
{
    *x = value_number(&row[l->xc]);
    *y = value_number(&row[l->yc]);
    if (!isfinite(*x) || !isfinite(*y)) {
        if (pre)
            pre->skipped_nonfinite++;
        return 0;
    }
    if ((l->spec->logx && *x <= 0) || (l->spec->logy && *y <= 0)) {
        if (pre)
            pre->skipped_nonpositive++;
        return 0;
    }
    return 1;
}

/* The line of row (plot.c's grouping: value_equal, the last one tried
 * first), added when new; SIZE_MAX out of memory. */
static size_t line_of(loader *l, const value *row, int add)
{
    static const value no_key = VALUE_NULL;
    const value *key = l->spec->by ? &row[l->bc] : &no_key;
    if (l->last_line < l->line_count && value_equal(&l->lines[l->last_line].key, key))
        return l->last_line;
    size_t g = 0;
    while (g < l->line_count && !value_equal(&l->lines[g].key, key))
        g++;
    if (g == l->line_count) {
        if (!add)
            return SIZE_MAX;
        if (l->line_count == l->line_cap) {
            size_t cap = l->line_cap ? 2 * l->line_cap : 64;
            line_facts *grown = realloc(l->lines, cap * sizeof *grown);
            if (!grown)
                return SIZE_MAX;
            l->lines = grown;
            l->line_cap = cap;
        }
        line_facts *f = &l->lines[l->line_count];
        *f = (line_facts){ .x_low = INFINITY, .x_high = -INFINITY };
        if (value_copy(&f->key, key) != 0)
            return SIZE_MAX;
        l->line_count++;
    }
    l->last_line = g;
    return g;
}

static const line_facts *sort_lines_base;

static int compare_lines(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = value_number(&sort_lines_base[i].key), y = value_number(&sort_lines_base[j].key);
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    return i < j ? -1 : i > j;
}

/* The drawn lines, as plot.c and plot_reduce_lines choose them: numeric by
 * values ascending, others as they come; at most PLOT_MAX_LINES evenly
 * spaced. Then whether and how the points are cut (plot_reduce_points). */
static int choose(loader *l, plot_preload *pre)
{
    size_t n = l->line_count;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order || !(l->rank = malloc((n ? n : 1) * sizeof *l->rank))) {
        free(order);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        l->rank[i] = -1;
    }
    if (l->spec->by && (value_type_is_numeric(l->by_type) || l->by_type == RUNNER_BOOLEAN) &&
        n > 1) {
        sort_lines_base = l->lines;
        qsort(order, n, sizeof *order, compare_lines);
    }
    l->drawn_count = n < PLOT_MAX_LINES ? n : PLOT_MAX_LINES;
    for (size_t k = 0; k < l->drawn_count; k++) {
        size_t pick = n <= PLOT_MAX_LINES
                          ? k
                          : (k * (n - 1) + (PLOT_MAX_LINES - 1) / 2) / (PLOT_MAX_LINES - 1);
        l->drawn[k] = order[pick];
        l->rank[order[pick]] = (long)k;
    }
    free(order);
    size_t points = 0;
    double low = INFINITY, high = -INFINITY;
    for (size_t k = 0; k < l->drawn_count; k++) {
        const line_facts *f = &l->lines[l->drawn[k]];
        points += f->count;
        low = fmin(low, f->x_low);
        high = fmax(high, f->x_high);
    }
    pre->reduced = (plot_reduction){ .lines_total = n,
                                     .lines_drawn = l->drawn_count,
                                     .points_total = points,
                                     .points_drawn = points };
    if (points > PLOT_MAX_POINTS && l->drawn_count > 0) {
        int width = l->spec->width > 0 ? l->spec->width : DEFAULT_WIDTH;
        l->columns = plot_reduce_column_count(l->drawn_count, width);
        l->x_min = low;
        l->span = high - low;
        l->picks = calloc(l->drawn_count * l->columns * 2, sizeof *l->picks);
        return l->picks ? 0 : -1;
    }
    l->kept = malloc((points ? points : 1) * sizeof *l->kept);
    return l->kept ? 0 : -1;
}

/* y lower (higher) than the pick's, or equal at a smaller x: the pick
 * plot_reduce_points makes from the points sorted by x, then row. */
static int better(const pick *p, double x, double y, int lowest)
{
    if (!p->set)
        return 1;
    double py = value_number(&p->y);
    if (lowest ? y < py : y > py)
        return 1;
    return y == py && x < value_number(&p->x);
}

/* Second pass: one row, with its index order. 0, or -1 out of memory. */
static int keep_row(loader *l, const value *row, size_t order, plot_preload *pre)
{
    double x, y;
    if (!drawable(l, row, &x, &y, NULL))
        return 0;
    size_t g = line_of(l, row, 0);
    if (g == SIZE_MAX || l->rank[g] < 0)
        return 0;
    size_t k = (size_t)l->rank[g];
    if (!pre->repeats[k]) {
        int seen = x_set_add(&l->seen[k], x);
        if (seen < 0)
            return -1;
        if (seen) {
            pre->repeats[k] = 1;
            x_set_free(&l->seen[k]);
        }
    }
    pick p = { .set = 1, .line = k, .order = order, .x = row[l->xc], .y = row[l->yc] };
    if (!l->columns) {
        l->kept[l->kept_count++] = p;
        return 0;
    }
    size_t column = plot_reduce_column_of(x, l->spec->logx, l->x_min, l->span, l->columns);
    pick *ends = &l->picks[(k * l->columns + column) * 2];
    if (better(&ends[0], x, y, 1))
        ends[0] = p;
    if (better(&ends[1], x, y, 0))
        ends[1] = p;
    return 0;
}

/* A kept point as a row of t (x, y and by may share a column: then they
 * hold the same value). */
static int append(table *t, const loader *l, size_t k, const pick *p)
{
    value row[3];
    row[l->xc] = p->x;
    row[l->yc] = p->y;
    /* table_append_row takes the row's text: the line's key is copied */
    if (l->spec->by && value_copy(&row[l->bc], &l->lines[l->drawn[k]].key) != 0)
        return -1;
    if (table_append_row(t, row) == 0)
        return 0;
    value_clear(&row[l->bc]);
    return -1;
}

/* The kept points into t: line by line in drawing order (so that plot.c
 * finds text lines in that order), in x order within a reduced line. */
static int fill(table *t, loader *l, plot_preload *pre)
{
    size_t rows = 0;
    for (size_t k = 0; k < l->drawn_count; k++) {
        if (!l->columns) {
            for (size_t i = 0; i < l->kept_count; i++)
                if (l->kept[i].line == k && append(t, l, k, &l->kept[i]) != 0)
                    return -1;
            continue;
        }
        for (size_t c = 0; c < l->columns; c++) {
            const pick *ends = &l->picks[(k * l->columns + c) * 2];
            if (!ends[0].set)
                continue;
            const pick *first = ends[0].order < ends[1].order ? &ends[0] : &ends[1];
            const pick *second = first == &ends[0] ? &ends[1] : &ends[0];
            /* plot_reduce_points' order: the earlier in x order first */
            if (value_number(&second->x) < value_number(&first->x)) {
                const pick *swap = first;
                first = second;
                second = swap;
            }
            if (append(t, l, k, first) != 0)
                return -1;
            rows++;
            if (ends[0].order != ends[1].order) {
                if (append(t, l, k, second) != 0)
                    return -1;
                rows++;
            }
        }
    }
    if (l->columns) {
        pre->reduced.points_drawn = rows;
        pre->reduced.columns = l->columns;
    }
    return 0;
}

int plot_load_section(store *s, int64_t section_id, const char *plugin, const table *cols,
                      const plot_spec *spec, table **out, plot_preload *pre, char **err)
{
    *out = NULL;
    memset(pre, 0, sizeof *pre);
    loader l = { .spec = spec };
    store_cursor *cursor = NULL;
    value row[3] = { VALUE_NULL, VALUE_NULL, VALUE_NULL };
    const char *names[3] = { spec->x, spec->y, spec->by };
    table *t = NULL;
    int rc = -1;
    if (section_columns_head(cols, names, 3, &t, err) != 0)
        goto done;
    long xc = table_find_column(t, spec->x), yc = table_find_column(t, spec->y),
         bc = spec->by ? table_find_column(t, spec->by) : 0;
    if (xc < 0 || yc < 0 || bc < 0) {
        util_fail(err, "no column x, y or by in the section");
        goto done;
    }
    l.xc = (size_t)xc;
    l.yc = (size_t)yc;
    l.bc = (size_t)bc;
    l.by_type = t->columns[l.bc].type;
    if (store_cursor_open(s, section_id, plugin, t, NULL, NULL, 0, &cursor, err) != 0)
        goto done;
    int step;
    while ((step = store_cursor_next(cursor, row, NULL, err)) == 1) {
        pre->rows++;
        double x, y;
        if (drawable(&l, row, &x, &y, pre)) {
            size_t g = line_of(&l, row, 1);
            if (g == SIZE_MAX) {
                step = util_fail(err, "out of memory");
                break;
            }
            line_facts *f = &l.lines[g];
            double at = spec->logx ? log10(x) : x;
            f->count++;
            f->x_low = fmin(f->x_low, at);
            f->x_high = fmax(f->x_high, at);
        }
        for (size_t c = 0; c < 3; c++)
            value_clear(&row[c]);
    }
    if (step != 0)
        goto done;
    if (choose(&l, pre) != 0) {
        util_fail(err, "out of memory");
        goto done;
    }
    store_cursor_rewind(cursor);
    size_t order = 0;
    while ((step = store_cursor_next(cursor, row, NULL, err)) == 1) {
        if (keep_row(&l, row, order++, pre) != 0)
            step = util_fail(err, "out of memory");
        for (size_t c = 0; c < 3; c++)
            value_clear(&row[c]);
        if (step < 0)
            break;
    }
    if (step != 0)
        goto done;
    if (fill(t, &l, pre) != 0) {
        util_fail(err, "out of memory");
        goto done;
    }
    *out = t;
    t = NULL;
    rc = 0;
done:
    for (size_t c = 0; c < 3; c++)
        value_clear(&row[c]);
    store_cursor_close(cursor);
    loader_clear(&l);
    table_free(t);
    return rc;
}
