/* strbuf: a growable byte string, always NUL-terminated, for SQL built from
 * plugin metadata, webhook text, gnuplot's output. Out of memory is sticky
 * (oom set, later appends do nothing), so a caller checks once at the end.
 * Start with `strbuf b = {0}`; the caller frees data (strbuf_free). */
#ifndef RUNNER_STRBUF_H
#define RUNNER_STRBUF_H

#include <stddef.h>
#include "runner/plugin.h"

typedef struct strbuf {
    char *data;     /* NULL until the first append */
    size_t len, cap;
    int oom;
} strbuf;

void strbuf_add(strbuf *b, const void *bytes, size_t n);
void strbuf_str(strbuf *b, const char *s);
void strbuf_printf(strbuf *b, const char *fmt, ...) RUNNER_PRINTF(2, 3);
/* Empties the string, keeping its memory. */
void strbuf_reset(strbuf *b);
void strbuf_free(strbuf *b);  /* frees data; the buffer may be reused */

#endif
