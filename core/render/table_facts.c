/* table_facts: a section's columns summed up in one streaming pass
 * (table_facts.h). */
#include "table_facts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int table_facts_init(table_facts *f, size_t column_count)
{
    memset(f, 0, sizeof *f);
    f->columns = calloc(column_count ? column_count : 1, sizeof *f->columns);
    if (!f->columns)
        return -1;
    f->column_count = column_count;
    for (size_t c = 0; c < column_count; c++) {
        f->columns[c].min = INFINITY;
        f->columns[c].max = -INFINITY;
    }
    return 0;
}

static int note_distinct(column_facts *c, const value *v)
{
    if (c->distinct >= FACTS_DISTINCT_CAP)
        return 0;
    size_t i =
        c->last_seen < c->distinct && value_equal(&c->seen[c->last_seen], v) ? c->last_seen : 0;
    while (i < c->distinct && !value_equal(&c->seen[i], v))
        i++;
    if (i == c->distinct && value_copy(&c->seen[c->distinct++], v) != 0)
        return -1;
    c->last_seen = i;
    return 0;
}

int table_facts_add(table_facts *f, const value *row, facts_where where)
{
    for (size_t k = 0; k < f->column_count; k++) {
        column_facts *c = &f->columns[k];
        const value *v = &row[k];
        if (f->rows == 0) {
            if (value_copy(&c->first, v) != 0)
                return -1;
        } else if (!c->varies && !value_equal(&c->first, v)) {
            c->varies = 1;
        }
        if (note_distinct(c, v) != 0)
            return -1;
        double x = value_number(v);
        if (!isfinite(x)) {
            c->nonfinite++;
            continue;
        }
        c->finite++;
        c->nonpositive |= x <= 0;
        if (x < c->min) {
            c->min = x;
            c->min_at = where;
        }
        if (x > c->max) {
            c->max = x;
            c->max_at = where;
        }
    }
    f->rows++;
    return 0;
}

int table_facts_of_table(table_facts *f, const table *t)
{
    if (table_facts_init(f, t->column_count) != 0)
        return -1;
    for (size_t r = 0; r < t->row_count; r++)
        if (table_facts_add(f, table_cell(t, r, 0), (facts_where){ 0, (int64_t)r }) != 0) {
            table_facts_clear(f);
            return -1;
        }
    return 0;
}

void table_facts_clear(table_facts *f)
{
    for (size_t k = 0; f->columns && k < f->column_count; k++) {
        value_clear(&f->columns[k].first);
        for (size_t i = 0; i < f->columns[k].distinct; i++)
            value_clear(&f->columns[k].seen[i]);
    }
    free(f->columns);
    memset(f, 0, sizeof *f);
}
