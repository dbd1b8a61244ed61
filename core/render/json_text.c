/* json_text: JSON text of values, jansson's bytes with the shortest reals
 * (json_text.h). `runner show --format json` spends its time here. */
#include "json_text.h"

#include <math.h>
#include <string.h>

#include "base/realtext.h"
#include "base/util.h"
#include "render_int.h"

size_t json_text_real(double x, char *buf)
{
    if (isnan(x) || isinf(x)) {
        const char *s = isnan(x) ? "\"NaN\"" : x > 0 ? "\"inf\"" : "\"-inf\"";
        size_t n = strlen(s);
        memcpy(buf, s, n + 1);
        return n;
    }
    size_t len = realtext_shortest(x, buf);
    /* jansson's style: a real that reads as an integer gets ".0"; an
     * exponent loses its '+' and leading zeros ("1e+20" -> "1e20"). */
    char *e = memchr(buf, 'e', len);
    if (!e) {
        if (!memchr(buf, '.', len)) {
            memcpy(buf + len, ".0", 3);
            len += 2;
        }
        return len;
    }
    char *from = e + 1, *to = e + 1;
    if (*from == '-')
        from = ++to;
    else if (*from == '+')
        from++;
    while (*from == '0' && from[1])
        from++;
    memmove(to, from, (size_t)(buf + len - from) + 1);
    return len - (size_t)(from - to);
}

static void put_escaped(strbuf *b, const char *p, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *run = p, *end = p + n;
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        strbuf_add(b, run, (size_t)(p - run));
        run = p + 1;
        char esc[6] = { '\\', 0 };
        size_t len = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            len = 6;
        }
        strbuf_add(b, esc, len);
    }
    strbuf_add(b, run, (size_t)(end - run));
}

void json_text_string(strbuf *b, const char *text)
{
    strbuf_add(b, "\"", 1);
    if (util_utf8_valid(text)) {
        put_escaped(b, text, strlen(text));
    } else {
        while (*text) {
            size_t n = util_utf8_sequence(text);
            if (n) {
                put_escaped(b, text, n);
                text += n;
            } else {
                strbuf_add(b, "\xef\xbf\xbd", 3);
                text++;
            }
        }
    }
    strbuf_add(b, "\"", 1);
}

void json_text_value(strbuf *b, const value *v)
{
    char buf[JSON_TEXT_REAL_SIZE];
    switch (v->type) {
    case RUNNER_INTEGER: strbuf_add(b, buf, realtext_int64(v->as.integer, buf)); return;
    case RUNNER_REAL: strbuf_add(b, buf, json_text_real(v->as.real, buf)); return;
    case RUNNER_BOOLEAN: strbuf_str(b, v->as.boolean ? "true" : "false"); return;
    case RUNNER_TEXT:
        if (v->as.text) {
            json_text_string(b, v->as.text);
            return;
        }
        break;
    }
    strbuf_str(b, "null");
}

size_t json_text_cell(const value *v, char *buf, size_t size)
{
    if (size < JSON_TEXT_REAL_SIZE)
        return 0;
    switch (v->type) {
    case RUNNER_INTEGER: return realtext_int64(v->as.integer, buf);
    case RUNNER_REAL: return json_text_real(v->as.real, buf);
    case RUNNER_BOOLEAN:
        memcpy(buf, v->as.boolean ? "true" : "false", 5);
        return v->as.boolean ? 4 : 5;
    case RUNNER_TEXT:
        if (v->as.text) {
            /* Printable ASCII without a quote or backslash is its own JSON
             * text; anything else goes to json_text_string. */
            size_t n = 0;
            for (const unsigned char *p = (const unsigned char *)v->as.text; *p; p++, n++)
                if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\' || n + 2 >= size)
                    return 0;
            buf[0] = '"';
            memcpy(buf + 1, v->as.text, n);
            buf[n + 1] = '"';
            return n + 2;
        }
        break;
    }
    memcpy(buf, "null", 4);
    return 4;
}
