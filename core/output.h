/* output: prints tables for people (aligned text with units), for tools
 * (CSV, RFC 4180) and for programs (JSON through jansson). */
#ifndef RUNNER_OUTPUT_H
#define RUNNER_OUTPUT_H

#include <stdio.h>
#include "table.h"

typedef enum output_format { OUTPUT_TABLE, OUTPUT_CSV, OUTPUT_JSON } output_format;

/* Parses "table", "csv" or "json"; returns 0 or -1. */
int output_parse_format(const char *name, output_format *format);
/* Aligned text: the title, parameters that are the same on every row on one
 * line ("base = 30 s, trials = 0"), then a header "name [unit]" and the rows.
 * Reals are shown with 6 significant digits; integers exactly. Text (title,
 * names, cells) is escaped for the terminal by util_printable: control
 * characters and bytes that are not UTF-8 as \n, \xNN. */
void output_table_text(FILE *out, const table *t);
/* The same, printing at most max_rows rows and a line saying how many more
 * there are. */
void output_table_text_head(FILE *out, const table *t, size_t max_rows);
/* CSV with a header row of column names; reals with 17 significant digits
 * so the numbers round-trip; NaN, inf, -inf spelled out; text byte for byte
 * as stored (also when it is not UTF-8). */
void output_table_csv(FILE *out, const table *t);
/* A JSON object {"title", "columns": [{name, unit, type, role}], "rows": [[...]]};
 * NaN and infinities, which JSON lacks, as the strings "NaN", "inf", "-inf";
 * text through value_json_text (bytes that are not UTF-8 as U+FFFD, never
 * dropped). Prints the whole document or nothing: returns 0, or -1 (out of
 * memory, or the write failed). */
int output_table_json(FILE *out, const table *t);
/* One of the three by format; returns what output_table_json returns, or 0. */
int output_table(FILE *out, const table *t, output_format format);

#endif
