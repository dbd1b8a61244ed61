/* pareto_data: the front of one stored section, what `runner pareto` and
 * Lua's pareto{} print and store. One pass of a store cursor reads the
 * objectives and each row's key (k numbers and a key a row, not the rows);
 * the front's whole rows are then read by seeking to their keys. */
#include "pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/budget.h"
#include "base/util.h"

void pareto_answer_clear(pareto_answer *a)
{
    if (!a)
        return;
    table_free(a->front);
    free(a->members);
    memset(a, 0, sizeof *a);
}

/* Refuses a missing, non-numeric or repeated objective (one line). */
static int check_objectives(const pareto_question *q, const table *all, char **err)
{
    for (size_t i = 0; i < q->objective_count; i++) {
        long c = table_find_column(all, q->names[i]);
        const char *why = c < 0                                          ? "no such column"
                          : !value_type_is_numeric(all->columns[c].type) ? "not numeric"
                                                                         : NULL;
        if (why)
            return util_fail(err, "column '%s' of section %d of sweep %lld: %s", q->names[i],
                             q->ordinal, (long long)q->sweep_id, why);
        for (size_t o = 0; o < i; o++)
            if (strcmp(q->names[o], q->names[i]) == 0)
                return util_fail(err, "column '%s' is named twice", q->names[i]);
    }
    return 0;
}

/* An empty table: the parameters that are not objectives (when
 * with_params), then the objectives in the order given. */
static table *front_columns(const pareto_question *q, const table *all, int with_params,
                            const char *title)
{
    table *t = table_new(title);
    int bad = !t;
    for (size_t c = 0; !bad && with_params && c < all->column_count; c++) {
        const table_column *col = &all->columns[c];
        int objective = 0; /* a parameter may be an objective (workers: the cost) */
        for (size_t i = 0; i < q->objective_count; i++)
            objective |= strcmp(q->names[i], col->name) == 0;
        if (col->is_param && !objective)
            bad = table_add_column(t, col->name, col->unit, col->type, 1) != 0;
    }
    for (size_t i = 0; !bad && i < q->objective_count; i++) {
        const table_column *col = &all->columns[table_find_column(all, q->names[i])];
        bad = table_add_column(t, col->name, col->unit, col->type, 0) != 0;
    }
    if (bad) {
        table_free(t);
        return NULL;
    }
    return t;
}

/* The single pass: every row's objectives (maxima negated) and key. */
static int read_objectives(store *s, const pareto_question *q, const char *plugin,
                           const table *columns, double **values, store_row_key **keys, size_t *n,
                           char **err)
{
    store_cursor *cursor = NULL;
    size_t k = q->objective_count, capacity = 0;
    value *row = calloc(k, sizeof *row);
    int rc = -1, step = 0;
    *n = 0;
    if (!row)
        goto oom;
    if (store_cursor_open(s, q->section_id, plugin, columns, NULL, NULL, 0, &cursor, err) != 0)
        goto done;
    store_row_key key;
    while ((step = store_cursor_next(cursor, row, &key, err)) == 1) {
        if (budget_check(err) != BUDGET_OK)
            goto done;
        if (*n == capacity) {
            size_t more_rows = capacity ? capacity : 4096;
            if (budget_spend(more_rows * (k * sizeof(double) + sizeof(store_row_key)), err) !=
                BUDGET_OK)
                goto done;
            capacity += more_rows;
            double *grown = realloc(*values, capacity * k * sizeof *grown);
            if (grown)
                *values = grown;
            store_row_key *more = grown ? realloc(*keys, capacity * sizeof *more) : NULL;
            if (!more)
                goto oom;
            *keys = more;
        }
        for (size_t i = 0; i < k; i++) {
            double x = value_number(&row[i]);
            (*values)[*n * k + i] = q->maximize[i] ? -x : x;
            value_clear(&row[i]);
        }
        (*keys)[(*n)++] = key;
    }
    rc = step < 0 ? -1 : 0;
    goto done;
oom:
    rc = util_fail(err, "out of memory reading the section's rows");
done:
    for (size_t i = 0; row && i < k; i++)
        value_clear(&row[i]);
    free(row);
    store_cursor_close(cursor);
    return rc;
}

static int compare_keys(const void *pa, const void *pb)
{
    const store_row_key *a = pa, *b = pb;
    if (a->point_id != b->point_id)
        return a->point_id < b->point_id ? -1 : 1;
    return (a->row_id > b->row_id) - (a->row_id < b->row_id);
}

/* The members' whole rows (members sorted by key) appended to out: a seek
 * to each member's point, then forward through that point's rows. */
static int read_members(store *s, const pareto_question *q, const char *plugin, table *out,
                        const store_row_key *members, size_t count, char **err)
{
    store_cursor *cursor = NULL;
    size_t width = out->column_count;
    value *row = calloc(width ? width : 1, sizeof *row);
    if (!row)
        return util_fail(err, "out of memory");
    int rc = store_cursor_open(s, q->section_id, plugin, out, NULL, NULL, 0, &cursor, err);
    int64_t at_point = INT64_MIN; /* the point the cursor is in */
    for (size_t m = 0; rc == 0 && m < count;) {
        if (members[m].point_id != at_point) {
            store_cursor_seek(cursor, members[m], err);
            at_point = members[m].point_id;
        }
        store_row_key key;
        int step = store_cursor_next(cursor, row, &key, err);
        if (step <= 0) {
            rc = step < 0 ? -1 : util_fail(err, "the section changed while it was read");
            break;
        }
        at_point = key.point_id;
        if (compare_keys(&key, &members[m]) == 0) {
            rc = table_append_row(out, row) == 0 ? 0 : util_fail(err, "out of memory");
            m++;
        } else if (compare_keys(&key, &members[m]) > 0) {
            rc = util_fail(err, "the section changed while it was read");
        }
        for (size_t c = 0; c < width; c++)
            value_clear(&row[c]);
    }
    free(row);
    store_cursor_close(cursor);
    return rc;
}

/* The front's row order: by the objectives as given, best first, then by
 * key (the order the rows are stored in). */
typedef struct front_order {
    const double *values; /* the row's objectives, maxima negated */
    size_t k;
    store_row_key key;
    size_t row; /* in out, before sorting */
} front_order;

static int compare_front(const void *pa, const void *pb)
{
    const front_order *a = pa, *b = pb;
    for (size_t i = 0; i < a->k; i++)
        if (a->values[i] != b->values[i])
            return a->values[i] < b->values[i] ? -1 : 1;
    return compare_keys(&a->key, &b->key);
}

/* Sorts out's rows (in key order, as members are) best first, and members
 * along. values and keys: every row's, in key order. */
static int sort_front(table *out, store_row_key *members, const double *values,
                      const store_row_key *keys, size_t n, size_t k, char **err)
{
    size_t f = out->row_count, width = out->column_count;
    if (f == 0) /* an empty front (no rows): nothing to sort, and qsort and
                 * memcpy may not be given its NULL cells */
        return 0;
    front_order *order = malloc(f * sizeof *order);
    value *cells = malloc((f * width + 1) * sizeof *cells);
    if (!order || !cells) {
        free(order);
        free(cells);
        return util_fail(err, "out of memory");
    }
    /* members are a subsequence of keys, both in key order */
    for (size_t r = 0, i = 0; r < f; r++, i++) {
        while (i < n && compare_keys(&keys[i], &members[r]) != 0)
            i++;
        order[r] = (front_order){ values + i * k, k, members[r], r };
    }
    qsort(order, f, sizeof *order, compare_front);
    /* the cells move, their text with them (a plain copy, no double free) */
    memcpy(cells, out->cells, f * width * sizeof *cells);
    for (size_t r = 0; r < f; r++) {
        memcpy(&out->cells[r * width], &cells[order[r].row * width], width * sizeof *cells);
        members[r] = order[r].key;
    }
    free(order);
    free(cells);
    return 0;
}

int pareto_answer_section(store *s, const pareto_question *q, const char *title, pareto_answer *out,
                          char **err)
{
    memset(out, 0, sizeof *out);
    table *all = NULL, *objectives = NULL;
    char *plugin = NULL;
    double *values = NULL;
    store_row_key *keys = NULL;
    unsigned char *on_front = NULL;
    store_pareto_objective *stored = NULL;
    char *rows_key = NULL;
    size_t n = 0, k = q->objective_count;
    int rc = -1;
    if (k < 2) {
        util_fail(err, "two or more objectives are needed");
        goto done;
    }
    /* taken before the rows are read (fit_answer.c says why) */
    if (store_rows_key(s, q->sweep_id, q->section_id, &rows_key, err) != 0)
        goto done;
    if (store_section_columns(s, q->section_id, &all, &plugin, err) != 0 ||
        check_objectives(q, all, err) != 0)
        goto done;
    if (!(objectives = front_columns(q, all, 0, NULL)) ||
        !(out->front = front_columns(q, all, 1, title))) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (read_objectives(s, q, plugin, objectives, &values, &keys, &n, err) != 0)
        goto done;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < k; i++)
            if (isnan(values[r * k + i])) {
                out->excluded++;
                break;
            }
    out->rows = n;
    long size = (on_front = malloc(n + 1)) ? pareto_front(values, n, k, on_front) : -1;
    if (size < 0 || !(out->members = malloc(((size_t)size + 1) * sizeof *out->members))) {
        if (budget_check(err) == BUDGET_OK) /* else the budget ran out inside */
            util_fail(err, "out of memory");
        goto done;
    }
    size_t f = 0;
    for (size_t r = 0; r < n; r++)
        if (on_front[r])
            out->members[f++] = keys[r];
    if (read_members(s, q, plugin, out->front, out->members, f, err) != 0 ||
        sort_front(out->front, out->members, values, keys, n, k, err) != 0)
        goto done;
    if (!(stored = calloc(k, sizeof *stored))) {
        util_fail(err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < k; i++)
        stored[i] = (store_pareto_objective){
            .column = q->names[i],
            .unit = out->front->columns[out->front->column_count - k + i].unit,
            .maximize = q->maximize[i],
        };
    store_pareto head = { .sweep_id = q->sweep_id,
                          .section_id = q->section_id,
                          .rows = (int64_t)n,
                          .excluded = (int64_t)out->excluded,
                          .objective_count = k,
                          .objectives = stored,
                          .member_count = f,
                          .members = out->members,
                          .rows_key = rows_key };
    rc = store_pareto_write(s, &head, q->again, &out->id, &out->kept, err);
done:
    free(rows_key);
    free(stored);
    free(on_front);
    free(values);
    free(keys);
    table_free(objectives);
    table_free(all);
    free(plugin);
    if (rc != 0)
        pareto_answer_clear(out);
    return rc;
}
