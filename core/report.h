/* report: `runner report SWEEP -o FILE.html`, one self-contained HTML page
 * for a stored sweep: its provenance, then per section the table (units in
 * the headers), headline figures and a gnuplot SVG drawn inline. No scripts,
 * no external fetches (the page's Content-Security-Policy forbids them). */
#ifndef RUNNER_REPORT_H
#define RUNNER_REPORT_H

#include <stdio.h>

/* Rows shown per section; the rest are counted, not printed. */
#define REPORT_MAX_ROWS 200

/* Writes text with &, <, >, " and ' escaped, and control characters other
 * than newline and tab replaced by U+FFFD: safe in element content and in
 * quoted attribute values. */
void report_escape_html(FILE *out, const char *text);

/* `runner report SWEEP -o FILE.html [--db FILE]`. Returns the exit status:
 * 0 (also when gnuplot is missing: the page then has no plots, and stderr
 * says how to install it) or 2. */
int report_command(int argc, char **argv);

#endif
