/* report's private header: what report.c, report_fit.c and report_html.c
 * share. */
#ifndef RUNNER_REPORT_INT_H
#define RUNNER_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/table.h"
#include "store/store.h"

/* Writes text with &, <, >, " and ' escaped, and control characters other
 * than newline and tab replaced by U+FFFD: safe in element content and in
 * quoted attribute values. (report_html.c, as report_put_svg) */
void report_escape_html(FILE *out, const char *text);

/* Copies gnuplot's SVG from its <svg> element on, prefixing every id and
 * reference to one with prefix, so that several SVGs share a page. */
void report_put_svg(FILE *out, const char *svg, const char *prefix);

/* Under a section: each group of fits `runner fit` stored for it (the
 * newest per model and columns): a plot of its points with the fitted
 * curves, and per fit its quantities with their intervals. head is the
 * section's columns. A plot that cannot be drawn is a note on the page
 * (*gnuplot_missing set when gnuplot is the reason). Returns 0, or -1 with
 * *err (malloc'd) when the fits cannot be read. */
int report_write_fits(FILE *out, store *s, int64_t sweep_id, int64_t section_id, const char *plugin,
                      const table *head, size_t ordinal, int *gnuplot_missing, char **err);

#endif
