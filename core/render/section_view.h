/* section_view: the one rule for what matters in a section, shared by
 * `runner show`, `runner report`, `runner plot`'s defaults and the
 * dashboard (docs/plots.md, "What a section shows first"). From the facts
 * of every row (table_facts.h, one streaming pass):
 *   shown  = the parameters that vary, then the results that vary (the
 *            result named after the plugin first), each in table order;
 *   folded = every column that is the same on every row, for one line above
 *            the table ("base = 30 s · trials = 4000 rounds");
 *   plot   = x the varying numeric parameter with the most distinct values,
 *            y the first varying numeric result, by the next varying
 *            parameter with 2 to 12 values (else a varying text or boolean
 *            result), log on an axis whose values are all positive and span
 *            two decades or more.
 * A section of fewer than two rows has nothing to compare: every column is
 * shown (parameters, then results) and nothing folded or plotted. */
#ifndef RUNNER_SECTION_VIEW_H
#define RUNNER_SECTION_VIEW_H

#include <stddef.h>

#include "base/table.h"
#include "plot.h"
#include "store/store.h"
#include "table_facts.h"

/* Distinct values a by column may have: more lines make no readable legend. */
#define SECTION_VIEW_MAX_LINES 12
/* An axis is drawn in log scale when max/min reaches this (two decades). */
#define SECTION_VIEW_LOG_RATIO 100.0
/* The separator of the folded line. */
#define SECTION_VIEW_SEPARATOR " \xc2\xb7 "

typedef struct section_view {
    size_t *shown; /* column indices, in the order shown */
    size_t shown_count;
    size_t *folded; /* constant columns, in table order */
    size_t folded_count;
    long x, y, by; /* the default plot's columns; -1: none (x, y: no plot) */
    int logx, logy;
    char why[160]; /* when there is no plot: why ("nothing varies across the 4 rows") */
} section_view;

/* Applies the rule to the columns of cols (its rows are not read) whose
 * every row facts holds; plugin names the section's result table (NULL:
 * none). v is the caller's (section_view_clear). Returns 0, or -1 (no
 * memory; v is then cleared). */
int section_view_init(section_view *v, const table *cols, const table_facts *facts,
                      const char *plugin);
void section_view_clear(section_view *v); /* accepts a cleared or zeroed v */

/* The axis rule: 1 when a column's values are all positive and span two
 * decades or more (SECTION_VIEW_LOG_RATIO), so its axis is drawn in log
 * scale: the default plot's, and the dashboard's for any plot of the
 * column (a fit's too, serve_view.c). */
int section_view_log_axis(const column_facts *f);

/* "name = value unit" for column c at value v (6 significant digits; the
 * unit left out when empty or equal to the name; "name = none" for NULL),
 * into buf, not escaped. */
void section_view_setting(const table *cols, size_t c, const value *v, char *buf, size_t size);

/* The folded line: each folded column's setting, joined by
 * SECTION_VIEW_SEPARATOR. malloc'd (caller frees); "" when nothing is
 * folded; NULL on no memory. Not escaped. */
char *section_view_folded_line(const section_view *v, const table *cols, const table_facts *facts);

/* The folded columns' settings, one string each (section_view_setting),
 * as output_text_layout_set_view takes them: a malloc'd array of
 * v->folded_count malloc'd strings (section_view_free_settings), or NULL
 * on no memory. */
char **section_view_settings(const section_view *v, const table *cols, const table_facts *facts);
void section_view_free_settings(char **settings, size_t count); /* accepts NULL */

/* Fills spec's x, y, by, logx and logy (borrowing cols' names) with the
 * default plot. Returns 0, or -1 when there is none (v->why says why). */
int section_view_plot(const section_view *v, const table *cols, plot_spec *spec);

/* The facts of every row of a stored section (plugin: its result table;
 * cols: the columns to read, as store_section_columns gives them), read as
 * one stream. facts is the caller's (table_facts_clear). Returns 0, or -1
 * with *err (facts is then cleared). */
int section_view_read_facts(store *s, int64_t section_id, const char *plugin, const table *cols,
                            table_facts *facts, char **err);

#endif
