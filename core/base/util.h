/* util: the few helpers every module needs: formatted allocation, time,
 * edit distance for "did you mean", UTF-8 checks and text escaped for a
 * terminal. */
#ifndef RUNNER_UTIL_H
#define RUNNER_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include "runner/plugin.h"

/* printf into a new malloc'd string (caller frees); NULL on no memory. */
char *util_format(const char *fmt, ...) RUNNER_PRINTF(1, 2);
/* The same with a va_list (ap is used once). */
__attribute__((format(printf, 1, 0))) char *util_vformat(const char *fmt, va_list ap);
/* Sets *err (freeing nothing) to a formatted message; returns -1. Use as
 * `return util_fail(err, "...")`. err may be NULL. */
int util_fail(char **err, const char *fmt, ...) RUNNER_PRINTF(2, 3);
char *util_strdup(const char *s); /* NULL-safe strdup */
double util_now(void);            /* wall clock, unix seconds */
double util_monotonic(void);      /* monotonic seconds */
/* Sleeps seconds (at most a day); a signal cuts it short, so a caller
 * looping on a stop flag sees it at once. */
void util_nap_s(double seconds);
/* Levenshtein distance, for suggestions. */
size_t util_edit_distance(const char *a, const char *b);
/* Reads a whole file into a NUL-terminated malloc'd buffer. Returns 0, or -1
 * with errno set. */
int util_read_file(const char *path, char **text, size_t *len);
/* A number of seconds as an environment variable gives it: digits with an
 * optional fraction only (strtod alone would take "inf", "0x10" or " 5"),
 * above 0 and at most max_s. 0 with *seconds, or -1 (the caller says why
 * in its own words). */
int util_positive_seconds(const char *text, double max_s, double *seconds);
/* x with %g, but NaN as "nan" whatever its sign bit (glibc prints "-nan"). */
const char *util_number(double x, char buf[32]);
/* s for a one-line message on a terminal: control characters (newlines,
 * tabs, escapes) written as \n, \t, \xNN, and so is each byte that is not
 * part of valid UTF-8 (caf\xe9), so an error never spans two lines nor
 * garbles the terminal. Truncates to size. Returns buf. */
const char *util_printable(const char *s, char *buf, size_t size);
/* The length (1 to 4) of the well-formed UTF-8 character s starts with,
 * or 0 at the NUL or at a byte that starts none (a stray continuation
 * byte, an overlong form, a surrogate, past U+10FFFF). */
size_t util_utf8_sequence(const char *s);
/* 1 if s is well-formed UTF-8 throughout: text JSON can hold. */
int util_utf8_valid(const char *s);
/* 1 if s is a lower_snake_case identifier ([a-z][a-z0-9_]*, <= 63 chars). */
int util_is_identifier(const char *s);

#endif
