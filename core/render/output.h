/* output: prints tables for people (aligned text with units), for tools
 * (CSV, RFC 4180) and for programs (JSON through jansson). */
#ifndef RUNNER_OUTPUT_H
#define RUNNER_OUTPUT_H

#include <stdio.h>
#include "base/table.h"

typedef enum output_format {
    OUTPUT_TABLE,
    OUTPUT_CSV,
    OUTPUT_JSON
} output_format;

/* Parses "table", "csv" or "json"; returns 0 or -1. */
int output_parse_format(const char *name, output_format *format);
/* Aligned text: the title, parameters that are the same on every row on one
 * line ("base = 30 s, trials = 0"), then a header "name [unit]" and the rows.
 * Reals are shown with 6 significant digits; integers exactly. Text (title,
 * names, cells) is escaped for the terminal by util_printable: control
 * characters and bytes that are not UTF-8 as \n, \xNN. */
void output_table_text(FILE *out, const table *t);
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
/* output_table's bytes for count rows that no table holds: row(ctx, i,
 * cells) fills cells[0 .. column_count) with row i, its text borrowed
 * (never cleared), as often as the format reads the row (the aligned text
 * twice). `columns` is read for its title and columns only. Returns 0, or
 * -1 (out of memory, or JSON's write failed). */
typedef void (*output_row_fn)(void *ctx, size_t index, value *cells);
int output_rows(FILE *out, const table *columns, output_format format, size_t count,
                output_row_fn row, void *ctx);

/* The same renderings a row at a time, for tables too big to hold (runner
 * show, a section's printed head). `columns` is a table whose columns (and
 * title) describe the rows; its rows are not read. */

/* Aligned text needs every row twice: first noted (which parameters are the
 * same on every row) and widened (column widths), then printed after the
 * head. A layout keeps per-column state only. */
/* Significant digits of a real in the aligned text unless a layout's
 * digits say fewer (table_view.h: the precision that tells a column's
 * values apart). CSV and JSON always print them in full. */
#define OUTPUT_DIGITS 6

typedef struct output_text_layout {
    const table *columns;          /* borrowed */
    size_t row_count;              /* rows noted */
    value *first;                  /* per column: the first noted row's value */
    int *varies;                   /* per column: a noted row differs from the first */
    int *shown;                    /* per column: printed as a column (set by print_head) */
    size_t *width;                 /* per column: the widest cell widened so far */
    struct output_cell_memo *memo; /* per column: the last cell formatted, its text */
    /* Set by output_text_layout_set_view; order NULL: every column, with
     * the parameters fixed on every row on one line. */
    const size_t *order; /* borrowed: the columns shown, in this order */
    size_t order_count;
    const char *const *folded; /* borrowed: "name = value unit" per folded column */
    size_t folded_count;
    size_t max_width;      /* 0: no limit */
    size_t fitted;         /* columns of order that fit in max_width (set by print_head) */
    const char *wide_hint; /* what shows the columns left out; NULL: "--wide" */
    const int *digits;     /* borrowed: per column, a real's significant digits; NULL: 6 */
} output_text_layout;
int output_text_layout_init(output_text_layout *l, const table *columns); /* 0 or -1 (memory) */
void output_text_layout_clear(output_text_layout *l);
void output_text_layout_note(output_text_layout *l, const value *row);
void output_text_layout_widen(output_text_layout *l, const value *row);
/* Shows the columns order[0 .. order_count) in that order and, on the line
 * under the title, the folded settings joined by " · " (section_view.h
 * chooses both). With max_width > 0 the table fits in max_width characters:
 * the folded line wraps between settings, and the columns that do not fit
 * (the first always does) are left out and named on a line above the
 * header. The arrays are borrowed until the layout is cleared. */
void output_text_layout_set_view(output_text_layout *l, const size_t *order, size_t order_count,
                                 const char *const *folded, size_t folded_count, size_t max_width);
/* The title, the line of fixed parameters and the header. */
void output_text_layout_print_head(FILE *out, output_text_layout *l);
void output_text_layout_print_row(FILE *out, const output_text_layout *l, const value *row);
/* "... N more rows (all are stored: runner show prints them)" */
void output_text_more_rows(FILE *out, size_t more);

/* Sets the layout's digits (per column; borrowed) after its rows were
 * widened at OUTPUT_DIGITS, and widens again each column printed with
 * fewer from every value it holds: seen(ctx, c, i) is column c's ith
 * distinct value, NULL past the last (table_view_digits_of_facts gives
 * fewer digits only to a column whose every distinct value is known). */
typedef const value *(*table_facts_seen_fn)(void *ctx, size_t column, size_t index);
void output_text_layout_set_digits(output_text_layout *l, const int *digits,
                                   const table_facts_seen_fn seen, void *ctx);

/* The width a table printed to out fits in: on a terminal, $COLUMNS, else
 * the terminal's own width, else 80; to a pipe or a file, or with wide, no
 * limit (0), so what a script reads keeps every column. */
size_t output_terminal_width(FILE *out, int wide);

/* text and a newline on lines of at most max_width characters (0: one
 * line), broken between words, the lines after the first indented by two
 * spaces: a table's title, and the lines printed under a table. text is
 * printed as it is (the caller escapes what a user named). */
void output_wrapped(FILE *out, const char *text, size_t max_width);

void output_csv_header(FILE *out, const table *columns);
void output_csv_row(FILE *out, const table *columns, const value *row);

/* output_table_json's document a row at a time: begin, each row (index 0,
 * 1, ...), end. Returns 0, or -1 when out of memory. */
int output_json_begin(FILE *out, const table *columns);
int output_json_row(FILE *out, const table *columns, const value *row, size_t index);
void output_json_end(FILE *out, size_t rows_written);

#endif
