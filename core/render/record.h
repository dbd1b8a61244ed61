/* record: fields and their values (a sweep's provenance, the machine it ran
 * on) printed for a person as aligned "name  value" lines, each value
 * broken between words to fit the terminal. */
#ifndef RUNNER_RECORD_H
#define RUNNER_RECORD_H

#include <stddef.h>
#include <stdio.h>

#include "base/table.h"

/* Prints text (escaped for a terminal: quote_terminal) from column column,
 * where the caller left the line, broken between words so that no line
 * passes width (0: never broken); each line after the first starts with
 * indent blanks. A word longer than a line stays whole. Ends the line. */
void record_wrap(FILE *out, const char *text, size_t column, size_t indent, size_t width);
/* Prints t's rows, its first column as names aligned to the longest and
 * its second as values (record_wrap; NULL as "-"), under t's title when it
 * has one. */
void record_print(FILE *out, const table *t, size_t width);

#endif
