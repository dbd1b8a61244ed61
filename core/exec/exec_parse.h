/* exec_parse: a command's stdout to typed result rows: JSON lines (one
 * object, one row), key=value lines (a row ends at a blank line or when a
 * key comes again), or one POSIX regular expression per column (one row). A
 * value that is missing or of the wrong type is an error naming the column
 * and quoting the line. */
#ifndef RUNNER_EXEC_PARSE_H
#define RUNNER_EXEC_PARSE_H

#include <signal.h>
#include <stddef.h>

#include "base/value.h"
#include "runner/plugin.h"

typedef enum exec_output_kind {
    EXEC_OUTPUT_JSONL = 0,
    EXEC_OUTPUT_KEYVALUE,
    EXEC_OUTPUT_PATTERN
} exec_output_kind;

typedef struct exec_parser exec_parser;

/* Patterns are matched one line at a time, on lines of at most this many
 * bytes (longer ones are not searched), and may not grow past this many
 * positions once their repetitions ({m,n}, +) are expanded: glibc's regexec
 * costs up to about the line length squared times the positions, so these
 * two bound one line's match (docs/command-experiments.md gives the
 * measured worst case). */
#define EXEC_PATTERN_LINE_MAX_BYTES 4096
#define EXEC_PATTERN_MAX_POSITIONS 256
/* Parsing's own time bound when the command has no timeout. */
#define EXEC_PARSE_DEFAULT_MAX_S 60.0

/* What ends a parse early: checked before each line. */
typedef struct exec_parse_bounds {
    double deadline;                   /* util_monotonic() past it: fail; 0: none */
    double limit_s;                    /* the bound, for the message */
    const volatile sig_atomic_t *stop; /* non-zero: fail at once; NULL: none */
} exec_parse_bounds;

/* A parser for columns[0 .. count-1] (borrowed: they must outlive it). For
 * EXEC_OUTPUT_PATTERN, patterns[i] is column i's extended regular
 * expression with one capture group (copied), within
 * EXEC_PATTERN_MAX_POSITIONS; otherwise patterns is NULL. Returns 0, or -1
 * with *err naming the bad pattern. */
int exec_parser_new(exec_output_kind kind, const runner_column *columns, size_t count,
                    const char *const *patterns, exec_parser **out, char **err);
void exec_parser_free(exec_parser *p); /* accepts NULL */

/* Parses text into *rows (row-major, count values a row, malloc'd; free
 * each value then the array) and *row_count. Lines that are not rows
 * (JSON: not starting with '{'; key=value: without '=') are skipped, so a
 * program may log to stdout. Returns 0, or -1 with *err (no rows kept). */
int exec_parse(const exec_parser *p, const char *text, value **rows, size_t *row_count, char **err);
/* The same within bounds (NULL: none): -1 with *err when the deadline
 * passes ("parsing stdout took longer than ...") or stop is set ("stopped
 * by a stop request while parsing stdout"). */
int exec_parse_within(const exec_parser *p, const char *text, const exec_parse_bounds *bounds,
                      value **rows, size_t *row_count, char **err);

/* text as a value of type t: integers and reals in full (nan, inf
 * allowed), booleans as true/false/1/0. Returns 0 or -1. */
int exec_parse_value(runner_type t, const char *text, value *out);

#endif
