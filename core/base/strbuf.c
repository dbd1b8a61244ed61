/* strbuf: growable byte strings (see strbuf.h). */
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t strbuf_grown_capacity(size_t cap, size_t need)
{
    if (cap == 0)
        cap = 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return need;
        cap *= 2;
    }
    return cap;
}

/* Room for n more bytes and the NUL; 0, or -1 (and oom set). */
static int reserve(strbuf *b, size_t n)
{
    if (b->oom)
        return -1;
    if (n >= SIZE_MAX - b->len) { /* len + n + 1 would wrap */
        b->oom = 1;
        return -1;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = strbuf_grown_capacity(b->cap, need);
    char *data = realloc(b->data, cap);
    if (!data) {
        b->oom = 1;
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

void strbuf_add(strbuf *b, const void *bytes, size_t n)
{
    if (reserve(b, n) != 0)
        return;
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void strbuf_str(strbuf *b, const char *s) { strbuf_add(b, s, strlen(s)); }

void strbuf_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (reserve(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void strbuf_reset(strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void strbuf_free(strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}
