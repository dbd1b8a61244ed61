/* fit_data: the rows a fit reads — x, y and, when given, the --by and
 * --weights columns of one stored section, through a store cursor (four
 * columns of a million rows, not the whole table), grouped by --by. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/budget.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "analysis_int.h"

void fit_group_set_free(fit_group_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++) {
        fit_group *g = &set->groups[i];
        value_clear(&g->by);
        free(g->x);
        free(g->y);
        free(g->sd);
        free(g->keys);
    }
    free(set->groups);
    free(set->x_unit);
    free(set->y_unit);
    memset(set, 0, sizeof *set);
}

static int check_column(const table *cols, const char *option, const char *name, int numeric,
                        char **err)
{
    if (!name)
        return 0;
    long c = table_find_column(cols, name);
    if (c < 0) {
        char *list = table_column_list(cols);
        util_fail(err, "%s %s: the section has no such column; its columns: %s", option, name,
                  list ? list : "(out of memory)");
        free(list);
        return -1;
    }
    if (numeric && !value_type_is_numeric(cols->columns[c].type))
        return util_fail(err, "%s %s: not a numeric column (it holds %s)", option, name,
                         value_type_name(cols->columns[c].type));
    return 0;
}

static fit_group *find_group(fit_group_set *set, const value *by, size_t *last)
{
    if (*last < set->count && value_equal(&set->groups[*last].by, by))
        return &set->groups[*last];
    for (size_t i = 0; i < set->count; i++)
        if (value_equal(&set->groups[i].by, by)) {
            *last = i;
            return &set->groups[i];
        }
    fit_group *grown = realloc(set->groups, (set->count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    set->groups = grown;
    fit_group *g = &set->groups[set->count];
    memset(g, 0, sizeof *g);
    if (value_copy(&g->by, by) != 0)
        return NULL;
    *last = set->count++;
    return g;
}

static int group_append(fit_group *g, double x, double y, double sd, int weighted,
                        store_row_key key)
{
    if (g->n == g->capacity) {
        size_t cap = g->capacity ? 2 * g->capacity : 256;
        if (budget_spend((cap - g->capacity) * (3 * sizeof(double) + sizeof(store_row_key)),
                         NULL) != BUDGET_OK)
            return -1;
        double *nx = realloc(g->x, cap * sizeof *nx);
        if (nx)
            g->x = nx;
        double *ny = realloc(g->y, cap * sizeof *ny);
        if (ny)
            g->y = ny;
        double *nsd = weighted ? realloc(g->sd, cap * sizeof *nsd) : NULL;
        if (nsd)
            g->sd = nsd;
        store_row_key *nk = realloc(g->keys, cap * sizeof *nk);
        if (nk)
            g->keys = nk;
        if (!nx || !ny || !nk || (weighted && !nsd))
            return -1;
        g->capacity = cap;
    }
    g->x[g->n] = x;
    g->y[g->n] = y;
    if (weighted)
        g->sd[g->n] = sd;
    g->keys[g->n] = key;
    g->n++;
    return 0;
}

int fit_groups_load(store *s, int64_t section_id, const fit_columns *columns, fit_group_set *out,
                    char **err)
{
    memset(out, 0, sizeof *out);
    table *cols = NULL, *read = NULL;
    char *plugin = NULL;
    store_cursor *cursor = NULL;
    value row[4] = { VALUE_NULL, VALUE_NULL, VALUE_NULL, VALUE_NULL };
    int rc = -1;
    if (store_section_columns(s, section_id, &cols, &plugin, err) != 0)
        return -1;
    if (check_column(cols, "--x", columns->x, 1, err) != 0 ||
        check_column(cols, "--y", columns->y, 1, err) != 0 ||
        check_column(cols, "--by", columns->by, 0, err) != 0 ||
        check_column(cols, "--weights", columns->weights, 1, err) != 0)
        goto done;
    /* The cursor reads x, y, then by and the weights when given. */
    const char *names[4] = { columns->x, columns->y, columns->by, columns->weights };
    int slot[4] = { 0, 1, -1, -1 };
    if (!(read = table_new(NULL)))
        goto oom;
    for (int i = 0; i < 4; i++) {
        if (!names[i])
            continue;
        long again = table_find_column(read, names[i]);
        if (again >= 0) { /* --x and --y may name one column */
            slot[i] = (int)again;
            continue;
        }
        const table_column *c = &cols->columns[table_find_column(cols, names[i])];
        slot[i] = (int)read->column_count;
        if (table_add_column(read, c->name, c->unit, c->type, c->is_param) != 0)
            goto oom;
    }
    out->x_unit = util_strdup(cols->columns[table_find_column(cols, columns->x)].unit);
    out->y_unit = util_strdup(cols->columns[table_find_column(cols, columns->y)].unit);
    if (!out->x_unit || !out->y_unit)
        goto oom;
    if (store_cursor_open(s, section_id, plugin, read, NULL, NULL, 0, &cursor, err) != 0)
        goto done;
    int weighted = columns->weights != NULL;
    size_t last = 0;
    store_row_key key;
    int step;
    while ((step = store_cursor_next(cursor, row, &key, err)) == 1) {
        if (budget_check(err) != BUDGET_OK)
            goto done;
        value none = VALUE_NULL;
        fit_group *g = find_group(out, slot[2] >= 0 ? &row[slot[2]] : &none, &last);
        if (!g)
            goto oom;
        double x = value_number(&row[slot[0]]), y = value_number(&row[slot[1]]);
        double sd = weighted ? value_number(&row[slot[3]]) : 1;
        if (!isfinite(x) || !isfinite(y) || !isfinite(sd) || !(sd > 0))
            g->excluded++;
        else if (group_append(g, x, y, sd, weighted, key) != 0)
            goto oom;
        for (size_t c = 0; c < read->column_count; c++)
            value_clear(&row[c]);
    }
    if (step < 0)
        goto done;
    rc = 0;
    goto done;
oom:
    util_fail(err, "out of memory reading the section's rows");
done:
    for (size_t c = 0; c < 4; c++)
        value_clear(&row[c]);
    store_cursor_close(cursor);
    table_free(read);
    table_free(cols);
    free(plugin);
    if (rc != 0)
        fit_group_set_free(out);
    return rc;
}
