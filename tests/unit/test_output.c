/* test_output: what `runner show` prints: the aligned text table (fixed
 * parameters on one line, units in the header), CSV that round-trips every
 * number, and JSON that a JSON library reads back. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/output.h"
#include "base/table.h"

typedef void (*printer)(FILE *out, const table *t);

/* Whatever the printer wrote, as a malloc'd string. */
static char *printed(printer print, const table *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    print(out, t);
    fclose(out);
    return text;
}

static void json_printer(FILE *out, const table *t) { output_table_json(out, t); }
static void csv_via_dispatch(FILE *out, const table *t) { output_table(out, t, OUTPUT_CSV); }

/* A speedup section: workers and mode vary, base_s and trials are the same on
 * every row; round_s and moved_bytes are outputs (moved_bytes constant, but
 * outputs are always columns). */
static table *speedup_table(void)
{
    table *t = table_new("speedup");
    table_add_column(t, "workers", "", RUNNER_INTEGER, 1);
    table_add_column(t, "mode", "", RUNNER_TEXT, 1);
    table_add_column(t, "base_s", "s", RUNNER_REAL, 1);
    table_add_column(t, "trials", NULL, RUNNER_INTEGER, 1);
    table_add_column(t, "round_s", "s", RUNNER_REAL, 0);
    table_add_column(t, "moved_bytes", "bytes", RUNNER_INTEGER, 0);
    static const int64_t workers[] = { 1, 2, 4 };
    static const char *const modes[] = { "ring", "tree", "ring" };
    static const double round_s[] = { 30, 15.5, 7.751234567 };
    for (int r = 0; r < 3; r++) {
        value row[6] = {
            value_integer(workers[r]), value_text(modes[r]),   value_real(30),
            value_integer(0),          value_real(round_s[r]), value_integer(1024),
        };
        table_append_row(t, row);
    }
    return t;
}

static void test_text(void)
{
    table *t = speedup_table();
    char *text = printed(output_table_text, t);
    /* Numbers right-aligned, text left-aligned, reals to 6 digits. */
    CHECK_STR_EQ(text, "speedup\n"
                       "  base_s = 30 s, trials = 0\n"
                       "workers  mode  round_s [s]  moved_bytes [bytes]\n"
                       "      1  ring           30                 1024\n"
                       "      2  tree         15.5                 1024\n"
                       "      4  ring      7.75123                 1024\n");
    free(text);
    table_free(t);
}

/* One row: nothing is "the same on every row" yet, so every column shows;
 * no title, no title line. */
static void test_text_single_row(void)
{
    table *t = table_new(NULL);
    table_add_column(t, "base_s", "s", RUNNER_REAL, 1);
    table_add_column(t, "converged", "", RUNNER_BOOLEAN, 0);
    table_add_column(t, "speedup", "", RUNNER_REAL, 0);
    value row[3] = { value_real(30), value_boolean(1), value_real(NAN) };
    table_append_row(t, row);
    char *text = printed(output_table_text, t);
    CHECK_STR_EQ(text, "base_s [s]  converged  speedup\n"
                       "        30  true           NaN\n");
    free(text);
    table_free(t);
}

/* Every type, with the awkward cases: separators and quotes in text,
 * non-finite reals, a value that needs 17 digits, a NULL cell. */
static table *mixed_table(void)
{
    table *t = table_new("mixed");
    table_add_column(t, "label", "", RUNNER_TEXT, 1);
    table_add_column(t, "x", "s", RUNNER_REAL, 0);
    table_add_column(t, "n", "bytes", RUNNER_INTEGER, 0);
    table_add_column(t, "ok", "", RUNNER_BOOLEAN, 0);
    value rows[5][4] = {
        { value_text("plain"), value_real(0.1), value_integer(3), value_boolean(1) },
        { value_text("a,b"), value_real(NAN), value_integer(-7), value_boolean(0) },
        { value_text("say \"hi\""), value_real(INFINITY), VALUE_NULL, value_boolean(1) },
        { value_text("two\nlines"), value_real(-INFINITY), value_integer(0), value_boolean(0) },
        { value_text(""), value_real(1.0 / 3.0), value_integer(INT64_MAX), VALUE_NULL },
    };
    for (int r = 0; r < 5; r++)
        table_append_row(t, rows[r]);
    return t;
}

static void test_csv(void)
{
    table *t = mixed_table();
    char *csv = printed(output_table_csv, t);
    CHECK_STR_EQ(csv, "label,x,n,ok\n"
                      "plain,0.10000000000000001,3,true\n"
                      "\"a,b\",NaN,-7,false\n"
                      "\"say \"\"hi\"\"\",inf,,true\n"
                      "\"two\nlines\",-inf,0,false\n"
                      ",0.33333333333333331,9223372036854775807,\n");
    /* 17 significant digits read back as the same double. */
    CHECK(strtod("0.33333333333333331", NULL) == 1.0 / 3.0);
    CHECK(strtod("0.10000000000000001", NULL) == 0.1);

    /* output_table() with OUTPUT_CSV prints the same. */
    char *again = printed(csv_via_dispatch, t);
    CHECK_STR_EQ(again, csv);
    free(again);
    free(csv);
    table_free(t);
}

static void test_json(void)
{
    table *t = mixed_table();
    char *text = printed(json_printer, t);
    json_error_t error;
    json_t *doc = text ? json_loads(text, 0, &error) : NULL;
    CHECK(doc != NULL);
    if (!doc) {
        fprintf(stderr, "  not JSON (%s): %s\n", text ? error.text : "no output", text ? text : "");
        free(text);
        table_free(t);
        return;
    }
    CHECK_STR_EQ(json_string_value(json_object_get(doc, "title")), "mixed");

    json_t *columns = json_object_get(doc, "columns");
    CHECK_INT_EQ(json_array_size(columns), 4);
    json_t *x = json_array_get(columns, 1);
    CHECK_STR_EQ(json_string_value(json_object_get(x, "name")), "x");
    CHECK_STR_EQ(json_string_value(json_object_get(x, "unit")), "s");
    CHECK_STR_EQ(json_string_value(json_object_get(x, "type")), "real");
    CHECK_STR_EQ(json_string_value(json_object_get(x, "role")), "output");
    json_t *label = json_array_get(columns, 0);
    CHECK_STR_EQ(json_string_value(json_object_get(label, "type")), "text");
    CHECK_STR_EQ(json_string_value(json_object_get(label, "role")), "param");
    CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(columns, 3), "type")), "boolean");

    json_t *rows = json_object_get(doc, "rows");
    CHECK_INT_EQ(json_array_size(rows), 5);
    json_t *r0 = json_array_get(rows, 0), *r1 = json_array_get(rows, 1),
           *r2 = json_array_get(rows, 2), *r3 = json_array_get(rows, 3),
           *r4 = json_array_get(rows, 4);
    CHECK_STR_EQ(json_string_value(json_array_get(r0, 0)), "plain");
    CHECK(json_is_real(json_array_get(r0, 1)));
    CHECK(json_real_value(json_array_get(r0, 1)) == 0.1); /* round-trips exactly */
    CHECK(json_is_integer(json_array_get(r0, 2)));
    CHECK_INT_EQ(json_integer_value(json_array_get(r0, 2)), 3);
    CHECK(json_is_true(json_array_get(r0, 3)));

    /* JSON has no NaN or infinity: they come as strings. */
    CHECK_STR_EQ(json_string_value(json_array_get(r1, 1)), "NaN");
    CHECK_STR_EQ(json_string_value(json_array_get(r2, 1)), "inf");
    CHECK_STR_EQ(json_string_value(json_array_get(r3, 1)), "-inf");

    CHECK_STR_EQ(json_string_value(json_array_get(r1, 0)), "a,b");
    CHECK_STR_EQ(json_string_value(json_array_get(r2, 0)), "say \"hi\"");
    CHECK_STR_EQ(json_string_value(json_array_get(r3, 0)), "two\nlines");
    CHECK(json_is_null(json_array_get(r2, 2))); /* a NULL cell */
    CHECK(json_is_false(json_array_get(r1, 3)));
    CHECK(json_real_value(json_array_get(r4, 1)) == 1.0 / 3.0);
    CHECK_INT_EQ(json_integer_value(json_array_get(r4, 2)), INT64_MAX);
    CHECK(json_is_null(json_array_get(r4, 3)));

    json_decref(doc);
    free(text);
    table_free(t);

    /* No title: null, not a missing key. */
    t = table_new(NULL);
    table_add_column(t, "y", "", RUNNER_REAL, 0);
    text = printed(json_printer, t);
    doc = text ? json_loads(text, 0, &error) : NULL;
    CHECK(doc != NULL);
    CHECK(json_is_null(json_object_get(doc, "title")));
    CHECK_INT_EQ(json_array_size(json_object_get(doc, "rows")), 0);
    json_decref(doc);
    free(text);
    table_free(t);
}

static void text_printer(FILE *out, const table *t) { output_table_text(out, t); }

/* A title and a cell that are not UTF-8 (a Latin-1 file name), in all three
 * formats: the text table escapes them, CSV keeps the bytes, and JSON shows
 * U+FFFD but never drops a field (values stayed under their columns). */
static void test_not_utf8(void)
{
    table *t = table_new("caf\xe9 title");
    table_add_column(t, "id", "", RUNNER_INTEGER, 0);
    table_add_column(t, "script", "", RUNNER_TEXT, 0);
    table_add_column(t, "status", "", RUNNER_TEXT, 0);
    value row[] = { value_integer(7), value_text("caf\xe9.lua"), value_text("ok\033[31m") };
    table_append_row(t, row);

    char *text = printed(text_printer, t);
    CHECK(text && strstr(text, "caf\\xe9 title\n"));
    CHECK(text && strstr(text, " 7  caf\\xe9.lua  ok\\x1b[31m"));
    free(text);

    text = printed(output_table_csv, t);
    CHECK_STR_EQ(text, "id,script,status\n7,caf\xe9.lua,ok\033[31m\n");
    free(text);

    text = printed(json_printer, t);
    json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
    CHECK(doc != NULL);
    CHECK_STR_EQ(json_string_value(json_object_get(doc, "title")), "caf\xef\xbf\xbd title");
    json_t *r0 = json_array_get(json_object_get(doc, "rows"), 0);
    CHECK_INT_EQ(json_array_size(r0), 3);
    CHECK_INT_EQ(json_integer_value(json_array_get(r0, 0)), 7);
    CHECK_STR_EQ(json_string_value(json_array_get(r0, 1)), "caf\xef\xbf\xbd.lua");
    CHECK_STR_EQ(json_string_value(json_array_get(r0, 2)), "ok\033[31m");
    json_decref(doc);
    free(text);
    table_free(t);
}

static void test_parse_format(void)
{
    output_format format = OUTPUT_JSON;
    CHECK_INT_EQ(output_parse_format("table", &format), 0);
    CHECK_INT_EQ(format, OUTPUT_TABLE);
    CHECK_INT_EQ(output_parse_format("csv", &format), 0);
    CHECK_INT_EQ(format, OUTPUT_CSV);
    CHECK_INT_EQ(output_parse_format("json", &format), 0);
    CHECK_INT_EQ(format, OUTPUT_JSON);

    CHECK_INT_EQ(output_parse_format("CSV", &format), -1); /* exact names only */
    CHECK_INT_EQ(output_parse_format("tsv", &format), -1);
    CHECK_INT_EQ(output_parse_format("", &format), -1);
    CHECK_INT_EQ(format, OUTPUT_JSON); /* untouched on failure */
}

int main(void)
{
    test_text();
    test_text_single_row();
    test_csv();
    test_json();
    test_not_utf8();
    test_parse_format();
    return check_done("test_output");
}
