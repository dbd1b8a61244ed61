/* table_view: the one width rule for a printed table (table_view.h). */
#include "table_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/realtext.h"
#include "section_view.h"
#include "render_int.h"

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Distinct texts of sorted values at digits: equal texts are neighbours,
 * as rounding keeps the order. */
static size_t distinct_texts(const double *values, size_t count, int digits)
{
    char last[REALTEXT_SIZE], text[REALTEXT_SIZE];
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        realtext_g(values[i], digits, text);
        if (i == 0 || strcmp(text, last) != 0)
            n++;
        memcpy(last, text, sizeof last);
    }
    return n;
}

int table_view_digits(double *values, size_t count)
{
    size_t finite = 0;
    for (size_t i = 0; i < count; i++)
        if (isfinite(values[i]))
            values[finite++] = values[i];
    qsort(values, finite, sizeof *values, compare_double);
    size_t full = distinct_texts(values, finite, OUTPUT_DIGITS);
    for (int digits = TABLE_VIEW_MIN_DIGITS; digits < OUTPUT_DIGITS; digits++)
        if (distinct_texts(values, finite, digits) == full)
            return digits;
    return OUTPUT_DIGITS;
}

void table_view_digits_of_facts(const table *cols, const table_facts *facts, int *digits)
{
    for (size_t c = 0; c < cols->column_count; c++) {
        const column_facts *f = &facts->columns[c];
        digits[c] = OUTPUT_DIGITS;
        if (cols->columns[c].type != RUNNER_REAL || f->distinct >= FACTS_DISTINCT_CAP)
            continue;
        double values[FACTS_DISTINCT_CAP];
        size_t n = 0;
        for (size_t i = 0; i < f->distinct; i++)
            if (f->seen[i].type == RUNNER_REAL)
                values[n++] = f->seen[i].as.real;
        digits[c] = table_view_digits(values, n);
    }
}

static const value *facts_seen(void *ctx, size_t column, size_t index)
{
    const column_facts *f = &((const table_facts *)ctx)->columns[column];
    return index < f->distinct ? &f->seen[index] : NULL;
}

void table_view_layout_digits(output_text_layout *l, const table_facts *facts, int *digits)
{
    table_view_digits_of_facts(l->columns, facts, digits);
    output_text_layout_set_digits(l, digits, facts_seen, (void *)facts);
}

/* Every real column's digits from all count rows (not only the first
 * FACTS_DISTINCT_CAP distinct values): a table printed whole is small. */
static int digits_of_rows(const table *columns, size_t count, output_row_fn row, void *ctx,
                          value *cells, int *digits)
{
    size_t n = columns->column_count;
    double *values = malloc((count ? count : 1) * sizeof *values);
    if (!values)
        return -1;
    for (size_t c = 0; c < n; c++) {
        digits[c] = OUTPUT_DIGITS;
        if (columns->columns[c].type != RUNNER_REAL)
            continue;
        size_t k = 0;
        for (size_t r = 0; r < count; r++) {
            row(ctx, r, cells);
            if (cells[c].type == RUNNER_REAL)
                values[k++] = cells[c].as.real;
        }
        digits[c] = table_view_digits(values, k);
    }
    free(values);
    return 0;
}

/* The aligned text: rows read four times (facts, digits, widths, print);
 * the row function only points at values the caller holds. */
static int print_text(FILE *out, const table *columns, size_t count, output_row_fn row, void *ctx,
                      size_t max_width, value *cells)
{
    size_t n = columns->column_count;
    output_text_layout layout;
    table_facts facts;
    section_view view;
    char **folded = NULL;
    int *digits = calloc(n ? n : 1, sizeof *digits);
    if (!digits)
        return -1;
    if (output_text_layout_init(&layout, columns) != 0) {
        free(digits);
        return -1;
    }
    int rc = table_facts_init(&facts, n);
    for (size_t r = 0; rc == 0 && r < count; r++) {
        row(ctx, r, cells);
        output_text_layout_note(&layout, cells);
        rc = table_facts_add(&facts, cells, (facts_where){ 0, (int64_t)r });
    }
    if (rc == 0)
        rc = digits_of_rows(columns, count, row, ctx, cells, digits);
    if (rc == 0 && (rc = section_view_init(&view, columns, &facts, NULL)) == 0 &&
        !(folded = section_view_settings(&view, columns, &facts))) {
        section_view_clear(&view);
        rc = -1;
    }
    /* A column empty on every row says nothing: not folded as "unit = ". */
    size_t kept = 0;
    for (size_t i = 0; rc == 0 && i < view.folded_count; i++) {
        const value *first = &facts.columns[view.folded[i]].first;
        if (!(first->type == RUNNER_TEXT && first->as.text && !*first->as.text))
            folded[kept++] = folded[i];
        else
            free(folded[i]);
    }
    size_t folded_count = kept;
    if (rc == 0) {
        layout.digits = digits;
        for (size_t r = 0; r < count; r++) {
            row(ctx, r, cells);
            output_text_layout_widen(&layout, cells);
        }
        output_text_layout_set_view(&layout, view.shown, view.shown_count,
                                    (const char *const *)folded, folded_count, max_width);
        output_text_layout_print_head(out, &layout);
        for (size_t r = 0; r < count; r++) {
            row(ctx, r, cells);
            output_text_layout_print_row(out, &layout, cells);
        }
        section_view_free_settings(folded, folded_count);
        section_view_clear(&view);
    }
    table_facts_clear(&facts);
    output_text_layout_clear(&layout);
    free(digits);
    return rc;
}

int table_view_rows(FILE *out, const table *columns, output_format format, size_t count,
                    output_row_fn row, void *ctx, size_t max_width)
{
    if (format != OUTPUT_TABLE || columns->column_count == 0)
        return output_rows(out, columns, format, count, row, ctx);
    value *cells = calloc(columns->column_count, sizeof *cells);
    if (!cells)
        return -1;
    int rc = print_text(out, columns, count, row, ctx, max_width, cells);
    free(cells);
    return rc;
}

/* output_row_fn over a table in memory: its cells, borrowed. */
static void table_row(void *ctx, size_t index, value *cells)
{
    const table *t = ctx;
    memcpy(cells, table_cell(t, index, 0), t->column_count * sizeof *cells);
}

int table_view_print(FILE *out, const table *t, output_format format, size_t max_width)
{
    return table_view_rows(out, t, format, t->row_count, table_row, (void *)t, max_width);
}
