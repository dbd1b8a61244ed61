/* output: text, CSV and JSON renderings of a table. */
#include "output.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    if (*c->unit && strcmp(c->unit, c->name) != 0)
        snprintf(buf, size, "%s [%s]", c->name, c->unit);
    else
        snprintf(buf, size, "%s", c->name);
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
    char cell[64], header[160];
    if (!shown || !width)
        goto done;
    if (t->title)
        fprintf(out, "%s\n", t->title);
    /* Parameters fixed for the whole section go on one line, not in columns. */
    int fixed_printed = 0;
    for (size_t c = 0; c < n; c++) {
        shown[c] = !(t->columns[c].is_param && t->row_count > 1 && column_is_constant(t, c));
        if (!shown[c]) {
            value_format(table_cell(t, 0, c), 6, cell, sizeof cell);
            fprintf(out, "%s%s = %s%s%s", fixed_printed ? ", " : "  ", t->columns[c].name, cell,
                    *t->columns[c].unit ? " " : "", t->columns[c].unit);
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
            value_format(table_cell(t, r, c), 6, cell, sizeof cell);
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
            value_format(table_cell(t, r, c), 6, cell, sizeof cell);
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
    if (!doc || !columns || !rows) {
        json_decref(doc);
        json_decref(columns);
        json_decref(rows);
        return -1;
    }
    json_object_set_new(doc, "title", t->title ? json_string(t->title) : json_null());
    for (size_t c = 0; c < t->column_count; c++) {
        json_t *col = json_object();
        json_object_set_new(col, "name", json_string(t->columns[c].name));
        json_object_set_new(col, "unit", json_string(t->columns[c].unit));
        json_object_set_new(col, "type", json_string(value_type_name(t->columns[c].type)));
        json_object_set_new(col, "role", json_string(t->columns[c].is_param ? "param" : "output"));
        json_array_append_new(columns, col);
    }
    for (size_t r = 0; r < t->row_count; r++) {
        json_t *row = json_array();
        for (size_t c = 0; c < t->column_count; c++)
            json_array_append_new(row, value_to_json(table_cell(t, r, c)));
        json_array_append_new(rows, row);
    }
    json_object_set_new(doc, "columns", columns);
    json_object_set_new(doc, "rows", rows);
    int rc = json_dumpf(doc, out, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    fputc('\n', out);
    json_decref(doc);
    return rc;
}

void output_table(FILE *out, const table *t, output_format format)
{
    switch (format) {
    case OUTPUT_TABLE: output_table_text(out, t); break;
    case OUTPUT_CSV: output_table_csv(out, t); break;
    case OUTPUT_JSON: output_table_json(out, t); break;
    }
}
