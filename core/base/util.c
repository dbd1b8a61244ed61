/* util: small shared helpers (see util.h). */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *util_vformat(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *util_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    return s;
}

int util_fail(char **err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    *err = util_vformat(fmt, ap);
    va_end(ap);
    return -1;
}

char *util_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

double util_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double util_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void util_nap_s(double seconds)
{
    if (!(seconds > 0))
        return;
    if (seconds > 86400)
        seconds = 86400;
    double whole = floor(seconds);
    struct timespec t = { (time_t)whole, (long)((seconds - whole) * 1e9) };
    nanosleep(&t, NULL);
}

size_t util_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return la > lb ? la : lb;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[lb];
}

int util_read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int failed = !buf || ferror(f);
    int saved = errno;
    fclose(f);
    if (failed) {
        free(buf);
        errno = buf ? saved : ENOMEM;
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    if (len)
        *len = n;
    return 0;
}

int util_is_identifier(const char *s)
{
    if (!s || !(*s >= 'a' && *s <= 'z'))
        return 0;
    size_t n = 0;
    for (; *s; s++, n++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return n <= 63;
}

const char *util_number(double x, char buf[32])
{
    if (isnan(x))
        snprintf(buf, 32, "nan");
    else
        snprintf(buf, 32, "%g", x);
    return buf;
}

size_t util_utf8_sequence(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (p[0] < 0x80)
        return p[0] ? 1 : 0;
    size_t len;
    uint32_t code;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2, code = p[0] & 0x1f;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        len = 3, code = p[0] & 0x0f;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        len = 4, code = p[0] & 0x07;
    else
        return 0; /* a continuation byte, an overlong lead (c0, c1) or past f4 */
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0; /* also stops at the NUL */
        code = code << 6 | (p[i] & 0x3f);
    }
    /* the shortest form only, no surrogates, nothing past U+10FFFF */
    static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (code < least[len] || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff)
        return 0;
    return len;
}

int util_utf8_valid(const char *s)
{
    while (*s) {
        size_t n = util_utf8_sequence(s);
        if (!n)
            return 0;
        s += n;
    }
    return 1;
}

const char *util_printable(const char *s, char *buf, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    if (!size)
        return buf;
    const char *p = s ? s : "";
    while (*p && n + 5 < size) {
        unsigned char c = (unsigned char)*p;
        size_t seq = util_utf8_sequence(p);
        if (c == '\n' || c == '\t') {
            buf[n++] = '\\';
            buf[n++] = c == '\n' ? 'n' : 't';
        } else if (c < 0x20 || c == 0x7f || !seq) {
            /* control characters, and bytes that are not UTF-8, by value */
            buf[n++] = '\\';
            buf[n++] = 'x';
            buf[n++] = hex[c >> 4];
            buf[n++] = hex[c & 15];
        } else {
            /* n + 5 < size leaves room for a whole character: never split */
            memcpy(buf + n, p, seq);
            n += seq;
            p += seq;
            continue;
        }
        p++;
    }
    buf[n] = '\0';
    return buf;
}

int util_positive_seconds(const char *text, double max_s, double *seconds)
{
    size_t digits = strspn(text, "0123456789");
    const char *rest = text + digits;
    size_t fraction = 0;
    if (*rest == '.') {
        fraction = strspn(rest + 1, "0123456789");
        rest += 1 + fraction;
    }
    errno = 0;
    double value = digits + fraction > 0 && !*rest ? strtod(text, NULL) : -1;
    if (errno != 0 || !(value > 0) || value > max_s)
        return -1;
    *seconds = value;
    return 0;
}
