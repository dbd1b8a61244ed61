/* test_output_stream: output.c's row-at-a-time renderings (what `runner
 * show` streams and a section's printed head use) write exactly the bytes
 * of the whole-table ones, for every format, on awkward values: NaN, both
 * infinities, -0, huge and tiny reals, text that CSV must quote and JSON
 * must escape, booleans, NULL, a parameter fixed on every row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/output.h"
#include "base/table.h"

static table *awkward_table(size_t rows)
{
    table *t = table_new("awkward, \"quoted\"");
    table_add_column(t, "fixed", "s", RUNNER_INTEGER, 1);
    table_add_column(t, "jitter", "s", RUNNER_REAL, 1);
    table_add_column(t, "label", "", RUNNER_TEXT, 1);
    table_add_column(t, "x", "bytes", RUNNER_REAL, 0);
    table_add_column(t, "ok", "", RUNNER_BOOLEAN, 0);
    table_add_column(t, "note", "", RUNNER_TEXT, 0);
    static const double reals[] = { 0.1, NAN, INFINITY, -INFINITY, -0.0, 1e300, 5e-324, 1.0 / 3 };
    static const char *const notes[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "tab\there" };
    for (size_t r = 0; r < rows; r++) {
        value row[6] = {
            value_integer(30),
            value_real(0.5 + (double)(r % 3)),
            value_text(r % 2 ? "b" : "a"),
            value_real(reals[r % 8]),
            value_boolean(r % 2 == 0),
            r % 7 == 6 ? VALUE_NULL : value_text(notes[r % 5]),
        };
        table_append_row(t, row);
    }
    return t;
}

typedef struct rendering {
    char *text;
    size_t size;
    FILE *out;
} rendering;

static FILE *begin(rendering *r)
{
    r->text = NULL;
    r->size = 0;
    r->out = open_memstream(&r->text, &r->size);
    return r->out;
}

static void same(rendering *whole, rendering *streamed, const char *what)
{
    fclose(whole->out);
    fclose(streamed->out);
    if (strcmp(whole->text, streamed->text) != 0)
        fprintf(stderr, "  %s differs:\n--- whole:\n%s--- streamed:\n%s", what, whole->text,
                streamed->text);
    CHECK(strcmp(whole->text, streamed->text) == 0);
    free(whole->text);
    free(streamed->text);
}

static void check_formats(const table *t)
{
    rendering whole, streamed;

    output_table_csv(begin(&whole), t);
    output_csv_header(begin(&streamed), t);
    for (size_t r = 0; r < t->row_count; r++)
        output_csv_row(streamed.out, t, table_cell(t, r, 0));
    same(&whole, &streamed, "csv");

    output_table_json(begin(&whole), t);
    CHECK_INT_EQ(output_json_begin(begin(&streamed), t), 0);
    for (size_t r = 0; r < t->row_count; r++)
        CHECK_INT_EQ(output_json_row(streamed.out, t, table_cell(t, r, 0), r), 0);
    output_json_end(streamed.out, t->row_count);
    same(&whole, &streamed, "json");

    /* The aligned table: a first pass for widths and fixed parameters. */
    output_table_text(begin(&whole), t);
    output_text_layout layout;
    CHECK_INT_EQ(output_text_layout_init(&layout, t), 0);
    for (size_t r = 0; r < t->row_count; r++) {
        output_text_layout_note(&layout, table_cell(t, r, 0));
        output_text_layout_widen(&layout, table_cell(t, r, 0));
    }
    output_text_layout_print_head(begin(&streamed), &layout);
    for (size_t r = 0; r < t->row_count; r++)
        output_text_layout_print_row(streamed.out, &layout, table_cell(t, r, 0));
    output_text_layout_clear(&layout);
    same(&whole, &streamed, "table");
}

int main(void)
{
    for (size_t rows = 0; rows <= 41; rows += rows < 3 ? 1 : 19) {
        table *t = awkward_table(rows);
        check_formats(t);
        table_free(t);
    }
    /* No columns at all: the JSON rows are empty arrays. */
    table *empty = table_new(NULL);
    check_formats(empty);
    table_free(empty);
    return check_done("test_output_stream");
}
