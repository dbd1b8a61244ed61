/* strbuf: a growable text string, always NUL-terminated, for SQL built from
 * plugin metadata, webhook text, gnuplot's output. Out of memory, or a size
 * that would not fit in size_t, is sticky (oom set, later appends do
 * nothing), so a caller checks once at the end. Start with `strbuf b = {0}`;
 * the caller frees data (strbuf_free).
 *
 * One of two buffers on purpose: strbuf holds text (printf, a terminator
 * always there), wire.h's wire_writer holds binary messages (no terminator;
 * sent with their exact length). Both grow by strbuf_grown_capacity(), and
 * both check `len + n` before adding it. */
#ifndef RUNNER_STRBUF_H
#define RUNNER_STRBUF_H

#include <stddef.h>
#include "runner/plugin.h"

typedef struct strbuf {
    char *data; /* NULL until the first append */
    size_t len, cap;
    int oom;
} strbuf;

void strbuf_add(strbuf *b, const void *bytes, size_t n);
void strbuf_str(strbuf *b, const char *s);
void strbuf_printf(strbuf *b, const char *fmt, ...) RUNNER_PRINTF(2, 3);
/* Empties the string, keeping its memory. */
void strbuf_reset(strbuf *b);
void strbuf_free(strbuf *b); /* frees data; the buffer may be reused */

/* The capacity a buffer of capacity cap grows to so that need bytes fit:
 * doubling from cap (256 when 0), or exactly need when doubling would wrap
 * size_t. Always >= need. */
size_t strbuf_grown_capacity(size_t cap, size_t need);

#endif
