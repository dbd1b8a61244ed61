/* output: text, CSV and JSON renderings of a table. */
#include "output.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int output_parse_format(const char *name, output_format *format)
{
    if (strcmp(name, "table") == 0)
        *format = OUTPUT_TABLE;
    else if (strcmp(name, "csv") == 0)
        *format = OUTPUT_CSV;
    else if (strcmp(name, "json") == 0)
        *format = OUTPUT_JSON;
    else
        return -1;
    return 0;
}

/* A cell as the text table shows it: text escaped for the terminal
 * (util_printable: a newline, an escape code or a byte that is not UTF-8
 * never breaks the layout or reaches the terminal raw). */
static void format_cell(const value *v, char *cell, size_t size)
{
    if (v->type != RUNNER_TEXT) {
        value_format(v, 6, cell, size);
        return;
    }
    util_printable(v->as.text, cell, size);
}

static int column_is_constant(const table *t, size_t c)
{
    for (size_t r = 1; r < t->row_count; r++)
        if (!value_equal(table_cell(t, r, c), table_cell(t, 0, c)))
            return 0;
    return 1;
}

/* "name [unit]"; the unit is left out when it only repeats the name
 * ("workers [workers]"). */
static void column_header(const table_column *c, char *buf, size_t size)
{
    char name[64], unit[64];
    util_printable(c->name, name, sizeof name);
    util_printable(c->unit, unit, sizeof unit);
    if (*c->unit && strcmp(c->unit, c->name) != 0)
        snprintf(buf, size, "%s [%s]", name, unit);
    else
        snprintf(buf, size, "%s", name);
}

void output_table_text(FILE *out, const table *t)
{
    output_table_text_head(out, t, (size_t)-1);
}

void output_table_text_head(FILE *out, const table *t, size_t max_rows)
{
    size_t shown_rows = t->row_count < max_rows ? t->row_count : max_rows;
    size_t n = t->column_count;
    int *shown = calloc(n ? n : 1, sizeof *shown);
    size_t *width = calloc(n ? n : 1, sizeof *width);
    char cell[64], header[160], title[256];
    if (!shown || !width)
        goto done;
    if (t->title)
        fprintf(out, "%s\n", util_printable(t->title, title, sizeof title));
    /* Parameters fixed for the whole section go on one line, not in columns. */
    int fixed_printed = 0;
    for (size_t c = 0; c < n; c++) {
        shown[c] = !(t->columns[c].is_param && t->row_count > 1 && column_is_constant(t, c));
        if (!shown[c]) {
            format_cell(table_cell(t, 0, c), cell, sizeof cell);
            char name[64], unit[64];
            fprintf(out, "%s%s = %s%s%s", fixed_printed ? ", " : "  ",
                    util_printable(t->columns[c].name, name, sizeof name), cell,
                    *t->columns[c].unit ? " " : "",
                    util_printable(t->columns[c].unit, unit, sizeof unit));
            fixed_printed = 1;
        }
    }
    if (fixed_printed)
        fputc('\n', out);
    for (size_t c = 0; c < n; c++) {
        if (!shown[c])
            continue;
        column_header(&t->columns[c], header, sizeof header);
        width[c] = strlen(header);
        for (size_t r = 0; r < shown_rows; r++) {
            format_cell(table_cell(t, r, c), cell, sizeof cell);
            if (strlen(cell) > width[c])
                width[c] = strlen(cell);
        }
    }
    const char *sep = "";
    for (size_t c = 0; c < n; c++) {
        if (!shown[c])
            continue;
        column_header(&t->columns[c], header, sizeof header);
        /* Quantities right-aligned, words (text, true/false) left-aligned. */
        fprintf(out, value_type_is_numeric(t->columns[c].type) ? "%s%*s" : "%s%-*s", sep,
                (int)width[c], header);
        sep = "  ";
    }
    fputc('\n', out);
    for (size_t r = 0; r < shown_rows; r++) {
        sep = "";
        for (size_t c = 0; c < n; c++) {
            if (!shown[c])
                continue;
            format_cell(table_cell(t, r, c), cell, sizeof cell);
            fprintf(out, value_type_is_numeric(t->columns[c].type) ? "%s%*s" : "%s%-*s", sep,
                    (int)width[c], cell);
            sep = "  ";
        }
        fputc('\n', out);
    }
    if (shown_rows < t->row_count)
        fprintf(out, "... %zu more rows (all are stored: runner show prints them)\n",
                t->row_count - shown_rows);
done:
    free(shown);
    free(width);
}

static void csv_field(FILE *out, const char *text)
{
    if (strpbrk(text, ",\"\n\r") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void output_table_csv(FILE *out, const table *t)
{
    char cell[64];
    for (size_t c = 0; c < t->column_count; c++) {
        if (c)
            fputc(',', out);
        csv_field(out, t->columns[c].name);
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->row_count; r++) {
        for (size_t c = 0; c < t->column_count; c++) {
            const value *v = table_cell(t, r, c);
            if (c)
                fputc(',', out);
            if (v->type == RUNNER_TEXT) {
                csv_field(out, v->as.text);
            } else {
                value_format(v, 17, cell, sizeof cell);
                fputs(cell, out);
            }
        }
        fputc('\n', out);
    }
}

int output_table_json(FILE *out, const table *t)
{
    json_t *doc = json_object(), *columns = json_array(), *rows = json_array();
    int ok = doc && columns && rows;
    for (size_t c = 0; ok && c < t->column_count; c++) {
        json_t *col = json_object();
        if (col) {
            value_json_put(col, "name", value_json_text(t->columns[c].name), &ok);
            value_json_put(col, "unit", value_json_text(t->columns[c].unit), &ok);
            value_json_put(col, "type", json_string(value_type_name(t->columns[c].type)), &ok);
            value_json_put(col, "role", json_string(t->columns[c].is_param ? "param" : "output"),
                           &ok);
        }
        value_json_push(columns, col, &ok);
    }
    for (size_t r = 0; ok && r < t->row_count; r++) {
        json_t *row = json_array();
        for (size_t c = 0; row && c < t->column_count; c++)
            value_json_push(row, value_to_json_shown(table_cell(t, r, c)), &ok);
        value_json_push(rows, row, &ok);
    }
    if (ok) {
        value_json_put(doc, "title", value_json_text(t->title), &ok);
        value_json_put(doc, "columns", columns, &ok);
        value_json_put(doc, "rows", rows, &ok);
        columns = rows = NULL;
    }
    int rc = -1;
    /* All or nothing: a document missing a member would misplace values. */
    if (ok && json_dumpf(doc, out, JSON_PRESERVE_ORDER | JSON_INDENT(2) |
                                       JSON_REAL_PRECISION(17)) == 0) {
        fputc('\n', out);
        rc = 0;
    }
    json_decref(doc);
    json_decref(columns);
    json_decref(rows);
    return rc;
}

int output_table(FILE *out, const table *t, output_format format)
{
    switch (format) {
    case OUTPUT_TABLE: output_table_text(out, t); break;
    case OUTPUT_CSV: output_table_csv(out, t); break;
    case OUTPUT_JSON: return output_table_json(out, t);
    }
    return 0;
}
