/* report: the page `runner report SWEEP -o FILE.html` writes (cli_show.c),
 * one self-contained HTML page for a stored sweep: its provenance, then per
 * section the table (units in the headers), headline figures and a gnuplot
 * SVG drawn inline. No scripts,
 * no external fetches (the page's Content-Security-Policy forbids them). */
#ifndef RUNNER_REPORT_H
#define RUNNER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/* Rows shown per section; the rest are counted, not printed. */
#define REPORT_MAX_ROWS 200

/* Renders the page of sweep sweep_id, whose sections are ids[0..count),
 * reading tables from s and provenance from db_path (opened read-only).
 * Returns 0 with *html (malloc'd, caller frees) of *html_size bytes and
 * *gnuplot_missing set when the page has no plots for lack of gnuplot;
 * or -1 with *err (malloc'd). */
int report_render(store *s, const char *db_path, int64_t sweep_id, const int64_t *ids, size_t count,
                  char **html, size_t *html_size, int *gnuplot_missing, char **err);

#endif
