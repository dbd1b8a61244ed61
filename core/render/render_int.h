/* render_int.h: what the files of render/ share and no other folder calls
 * (moved out of their modules' headers, which render.h gathers as the
 * folder's face). Private to render/. */
#ifndef RUNNER_RENDER_INT_H
#define RUNNER_RENDER_INT_H

#include "json_text.h"
#include "machine_note.h"
#include "output.h"
#include "plot_reduce.h"
#include "section_columns.h"
#include "table_view.h"

/* Writes one cell's json_text_value text into buf (size bytes, no NUL)
 * and returns its length; 0 when it does not fit or is text that needs
 * escaping or checking (json_text_value then). */
size_t json_text_cell(const value *v, char *buf, size_t size);

/* The facts both sweeps recorded whose values differ and that say the
 * machine or its settings changed (machine_field_is_setting: the load does
 * not), in a's order, joined by ", " into *fields (malloc'd; NULL when
 * there are none). A field only one sweep recorded (a newer runner's) is
 * not compared. *missing: the sweep that recorded no machine at all (a,
 * b, or 0). Returns 0, or -1 with *err. */
int machine_note_fields(store *s, int64_t a, int64_t b, char **fields, int64_t *missing,
                        char **err);

/* The same, printing at most max_rows rows and a line saying how many more
 * there are. */
void output_table_text_head(FILE *out, const table *t, size_t max_rows);

/* The x-columns per line plot_reduce_points uses for lines_drawn lines
 * (at least 1, at most width when width > 0). */
size_t plot_reduce_column_count(size_t lines_drawn, int width);
/* The x-column of x (log10 x when logx) among columns spanning x_min to
 * x_min + span (in log10 when logx). */
size_t plot_reduce_column_of(double x, int logx, double x_min, double span, size_t columns);

/* A new table titled like cols with the columns named in names[0 ..
 * count) as section_columns_load chooses them, and no rows. 0, or -1 with
 * *err. */
int section_columns_head(const table *cols, const char *const *names, size_t count, table **out,
                         char **err);

/* digits[c] for every real column of cols from facts' distinct values
 * (OUTPUT_DIGITS where a column has more than FACTS_DISTINCT_CAP of them,
 * so not all are known). */
void table_view_digits_of_facts(const table *cols, const table_facts *facts, int *digits);

#endif
