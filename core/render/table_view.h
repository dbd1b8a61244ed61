/* table_view: the one width rule for every table runner prints for people
 * (`sweeps`, `fit`, `pareto`, `sensitivity`, `diff`, `diff --stat`, and
 * `show` through section_view.h's same choices):
 *   - columns the same on every row folded onto one line above the table
 *     ("model = usl · x = workers"), the varying ones shown, parameters
 *     first (section_view.h);
 *   - a real printed to the fewest significant digits (4 to 6) that keep
 *     its column's values as distinct as 6 digits do (table_view_digits):
 *     1.33333 reads 1.333 beside 1.6, 30.25 stays 30.25;
 *   - at max_width characters (output_terminal_width: the terminal's, or
 *     no limit to a pipe or a file) no line is longer: the columns that
 *     do not fit are named on a "(N more columns, --wide shows them: ...)"
 *     line.
 * CSV and JSON are output_table's, every column at full precision. */
#ifndef RUNNER_TABLE_VIEW_H
#define RUNNER_TABLE_VIEW_H

#include <stddef.h>
#include <stdio.h>

#include "base/table.h"
#include "output.h"
#include "table_facts.h"

/* Never fewer: 3 would show 30.25 as 30.3 beside an interval 30.2 .. 30.3. */
#define TABLE_VIEW_MIN_DIGITS 4

/* The fewest significant digits, TABLE_VIEW_MIN_DIGITS to OUTPUT_DIGITS, at which the count
 * distinct finite values keep as many different texts as at OUTPUT_DIGITS.
 * values is reordered (sorted). */
int table_view_digits(double *values, size_t count);

/* A stored section's layout, widened over every row at OUTPUT_DIGITS,
 * given the digits of table_view_digits_of_facts (digits: column_count
 * ints, the caller's, borrowed by the layout until it is cleared). */
void table_view_layout_digits(output_text_layout *l, const table_facts *facts, int *digits);

/* count rows of `columns` (row(ctx, i, cells) as output_rows takes it)
 * in format; the aligned text by the rule above, fitted to max_width
 * (0: no limit). Returns 0, or -1 (out of memory, or JSON's write
 * failed). */
int table_view_rows(FILE *out, const table *columns, output_format format, size_t count,
                    output_row_fn row, void *ctx, size_t max_width);
/* The same for a table in memory. */
int table_view_print(FILE *out, const table *t, output_format format, size_t max_width);

#endif
