/* sensitivity_data: a stored section read as a Saltelli design — the
 * parameters that vary, checked block by block against design.saltelli's
 * layout, and the output per point. */
#include "sensitivity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/budget.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "analysis_int.h"

void sensitivity_data_free(sensitivity_data *d)
{
    if (!d)
        return;
    for (size_t i = 0; d->names && i < d->d; i++)
        free(d->names[i]);
    for (size_t i = 0; d->units && i < d->d; i++)
        free(d->units[i]);
    free(d->names);
    free(d->units);
    free(d->y_unit);
    free(d->y);
    memset(d, 0, sizeof *d);
}

/* Every row's parameters (p values a row) and y, as read. */
typedef struct rows_read {
    size_t n, capacity, p;
    value *params;
    double *y;
} rows_read;

static void rows_read_free(rows_read *r)
{
    for (size_t i = 0; r->params && i < r->n * r->p; i++)
        value_clear(&r->params[i]);
    free(r->params);
    free(r->y);
}

static int rows_append(rows_read *r, value *row, double y)
{
    if (r->n == r->capacity) {
        size_t cap = r->capacity ? 2 * r->capacity : 256;
        if (budget_spend((cap - r->capacity) * ((r->p ? r->p : 1) * sizeof(value) + sizeof(double)),
                         NULL) != BUDGET_OK)
            return -1;
        value *np = realloc(r->params, cap * (r->p ? r->p : 1) * sizeof *np);
        if (np)
            r->params = np;
        double *ny = realloc(r->y, cap * sizeof *ny);
        if (ny)
            r->y = ny;
        if (!np || !ny)
            return -1;
        r->capacity = cap;
    }
    memcpy(&r->params[r->n * r->p], row, r->p * sizeof *row);
    memset(row, 0, r->p * sizeof *row); /* moved */
    r->y[r->n++] = y;
    return 0;
}

static int by_name(const void *a, const void *b, void *names)
{
    const table *t = names;
    return strcmp(t->columns[*(const size_t *)a].name, t->columns[*(const size_t *)b].name);
}

/* Insertion sort of the varying columns by name: d is small. */
static void sort_by_name(size_t *order, size_t d, const table *t)
{
    for (size_t i = 1; i < d; i++)
        for (size_t k = i; k > 0 && by_name(&order[k - 1], &order[k], (void *)t) > 0; k--) {
            size_t tmp = order[k];
            order[k] = order[k - 1];
            order[k - 1] = tmp;
        }
}

/* Checks the layout (A, B, then A with one coordinate of B per varying
 * parameter in order) and fills out->y; -1 with *err naming the first row
 * that breaks it. */
static int check_blocks(const rows_read *r, const table *read, const size_t *order, size_t d,
                        sensitivity_data *out, char **err)
{
    size_t width = d + 2;
    if (r->n % width != 0)
        return util_fail(err,
                         "%zu rows over %zu varying parameters are not blocks of %zu (A, B and one "
                         "row per parameter): was the section made by design.saltelli, alone and "
                         "one row per point?",
                         r->n, d, width);
    size_t blocks = r->n / width;
    if (!(out->y = malloc((blocks ? blocks : 1) * width * sizeof *out->y)))
        return util_fail(err, "out of memory");
    for (size_t j = 0; j < blocks; j++) {
        const value *a = &r->params[j * width * r->p], *b = a + r->p;
        for (size_t i = 0; i < d; i++) {
            const value *ab = a + (2 + i) * r->p;
            for (size_t k = 0; k < d; k++) {
                size_t c = order[k];
                if (!value_equal(&ab[c], k == i ? &b[c] : &a[c]))
                    return util_fail(err,
                                     "row %zu breaks the Saltelli layout (its %s should equal "
                                     "row %zu's): was the section made by design.saltelli, "
                                     "alone and one row per point?",
                                     j * width + 3 + i, read->columns[c].name,
                                     j * width + (k == i ? 2 : 1));
            }
        }
        int finite = 1;
        for (size_t w = 0; w < width; w++)
            finite &= isfinite(r->y[j * width + w]) != 0;
        if (!finite) {
            out->excluded++;
            continue;
        }
        memcpy(&out->y[out->n_base * width], &r->y[j * width], width * sizeof *out->y);
        out->n_base++;
    }
    return 0;
}

int sensitivity_load(store *s, int64_t section_id, const char *y_column, sensitivity_data *out,
                     char **err)
{
    memset(out, 0, sizeof *out);
    table *cols = NULL, *read = NULL;
    char *plugin = NULL;
    store_cursor *cursor = NULL;
    rows_read rows = { 0 };
    value *row = NULL;
    size_t *order = NULL;
    int rc = -1;
    if (store_section_columns(s, section_id, &cols, &plugin, err) != 0)
        return -1;
    long yc = table_find_column(cols, y_column);
    if (yc < 0) {
        char *list = table_column_list(cols);
        util_fail(err, "--y %s: the section has no such column; its columns: %s", y_column,
                  list ? list : "(out of memory)");
        free(list);
        goto done;
    }
    if (!value_type_is_numeric(cols->columns[yc].type)) {
        util_fail(err, "--y %s: not a numeric column (it holds %s)", y_column,
                  value_type_name(cols->columns[yc].type));
        goto done;
    }
    /* The parameters (but y), then y. */
    if (!(read = table_new(NULL)))
        goto oom;
    for (size_t c = 0; c < cols->column_count; c++)
        if (cols->columns[c].is_param && (long)c != yc &&
            table_add_column(read, cols->columns[c].name, cols->columns[c].unit,
                             cols->columns[c].type, 1) != 0)
            goto oom;
    rows.p = read->column_count;
    if (table_add_column(read, y_column, cols->columns[yc].unit, cols->columns[yc].type, 0) != 0)
        goto oom;
    if (!(row = calloc(read->column_count, sizeof *row)) ||
        !(order = malloc((rows.p ? rows.p : 1) * sizeof *order)))
        goto oom;
    if (store_cursor_open(s, section_id, plugin, read, NULL, NULL, 0, &cursor, err) != 0)
        goto done;
    int step;
    while ((step = store_cursor_next(cursor, row, NULL, err)) == 1) {
        if (budget_check(err) != BUDGET_OK)
            goto done;
        double y = value_number(&row[rows.p]);
        value_clear(&row[rows.p]);
        if (rows_append(&rows, row, y) != 0)
            goto oom;
    }
    if (step < 0)
        goto done;
    out->rows = rows.n;
    if (rows.n == 0) {
        util_fail(err, "the section has no rows");
        goto done;
    }
    for (size_t c = 0; c < rows.p; c++)
        for (size_t i = 1; i < rows.n; i++)
            if (!value_equal(&rows.params[i * rows.p + c], &rows.params[c])) {
                order[out->d++] = c;
                break;
            }
    if (out->d == 0) {
        util_fail(err, "no parameter varies over the section's %zu rows", rows.n);
        goto done;
    }
    if (out->d > SENSITIVITY_MAX_PARAMS) {
        util_fail(err, "%zu parameters vary; at most %d can be analysed", out->d,
                  SENSITIVITY_MAX_PARAMS);
        goto done;
    }
    sort_by_name(order, out->d, read);
    if (check_blocks(&rows, read, order, out->d, out, err) != 0)
        goto done;
    out->names = calloc(out->d, sizeof *out->names);
    out->units = calloc(out->d, sizeof *out->units);
    out->y_unit = util_strdup(cols->columns[yc].unit);
    if (!out->names || !out->units || !out->y_unit)
        goto oom;
    for (size_t k = 0; k < out->d; k++)
        if (!(out->names[k] = util_strdup(read->columns[order[k]].name)) ||
            !(out->units[k] = util_strdup(read->columns[order[k]].unit)))
            goto oom;
    rc = 0;
    goto done;
oom:
    util_fail(err, "out of memory reading the section's rows");
done:
    for (size_t c = 0; row && read && c < read->column_count; c++)
        value_clear(&row[c]);
    free(row);
    free(order);
    rows_read_free(&rows);
    store_cursor_close(cursor);
    table_free(read);
    table_free(cols);
    free(plugin);
    if (rc != 0)
        sensitivity_data_free(out);
    return rc;
}

void sensitivity_answer_clear(sensitivity_answer *a)
{
    if (!a)
        return;
    sensitivity_data_free(&a->data);
    sensitivity_result_clear(&a->result);
    a->id = 0;
}

int sensitivity_answer_section(store *s, int64_t sweep_id, int64_t section_id, const char *y_column,
                               const sensitivity_options *options, int again,
                               sensitivity_answer *out, char **err)
{
    memset(out, 0, sizeof *out);
    store_sensitivity_index *rows = NULL;
    char *rows_key = NULL;
    int rc = -1;
    /* taken before the rows are read (fit_answer.c says why) */
    if (store_rows_key(s, sweep_id, section_id, &rows_key, err) != 0 ||
        sensitivity_load(s, section_id, y_column, &out->data, err) != 0 ||
        sensitivity_estimate(out->data.y, out->data.n_base, out->data.d, options, &out->result,
                             err) != 0)
        goto done;
    if (!(rows = calloc(out->data.d, sizeof *rows))) {
        util_fail(err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < out->data.d; i++) {
        const sensitivity_index *x = &out->result.indices[i];
        rows[i] = (store_sensitivity_index){ .parameter = out->data.names[i],
                                             .unit = out->data.units[i],
                                             .first = x->first,
                                             .first_low = x->first_low,
                                             .first_high = x->first_high,
                                             .total = x->total,
                                             .total_low = x->total_low,
                                             .total_high = x->total_high };
    }
    store_sensitivity head = { .sweep_id = sweep_id,
                               .section_id = section_id,
                               .y_column = y_column,
                               .y_unit = out->data.y_unit,
                               .base_samples = (int64_t)out->result.n_base,
                               .excluded = (int64_t)out->data.excluded,
                               .bootstrap = (int64_t)out->result.bootstrap,
                               .seed = options ? options->seed : 0,
                               .confidence = out->result.confidence,
                               .y_mean = out->result.mean,
                               .y_variance = out->result.variance,
                               .count = out->data.d,
                               .indices = rows,
                               .rows_key = rows_key };
    rc = store_sensitivity_write(s, &head, again, &out->id, &out->kept, err);
done:
    free(rows_key);
    free(rows);
    if (rc != 0)
        sensitivity_answer_clear(out);
    return rc;
}
