/* exec_parse: a command's stdout to typed result rows: JSON lines (one
 * object, one row), key=value lines (a row ends at a blank line or when a
 * key comes again), or one POSIX regular expression per column (one row). A
 * value that is missing or of the wrong type is an error naming the column
 * and quoting the line. */
#ifndef RUNNER_EXEC_PARSE_H
#define RUNNER_EXEC_PARSE_H

#include <stddef.h>

#include "base/value.h"
#include "runner/plugin.h"

typedef enum exec_output_kind {
    EXEC_OUTPUT_JSONL = 0,
    EXEC_OUTPUT_KEYVALUE,
    EXEC_OUTPUT_PATTERN
} exec_output_kind;

typedef struct exec_parser exec_parser;

/* A parser for columns[0 .. count-1] (borrowed: they must outlive it). For
 * EXEC_OUTPUT_PATTERN, patterns[i] is column i's extended regular
 * expression with one capture group (copied); otherwise patterns is NULL.
 * Returns 0, or -1 with *err naming the bad pattern. */
int exec_parser_new(exec_output_kind kind, const runner_column *columns, size_t count,
                    const char *const *patterns, exec_parser **out, char **err);
void exec_parser_free(exec_parser *p); /* accepts NULL */

/* Parses text into *rows (row-major, count values a row, malloc'd; free
 * each value then the array) and *row_count. Lines that are not rows
 * (JSON: not starting with '{'; key=value: without '=') are skipped, so a
 * program may log to stdout. Returns 0, or -1 with *err (no rows kept). */
int exec_parse(const exec_parser *p, const char *text, value **rows, size_t *row_count, char **err);

/* text as a value of type t: integers and reals in full (nan, inf
 * allowed), booleans as true/false/1/0. Returns 0 or -1. */
int exec_parse_value(runner_type t, const char *text, value *out);

#endif
