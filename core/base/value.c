/* value: one typed cell. The only owned resource is text, so copying and
 * clearing are the whole lifecycle. */
#include "value.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

value value_integer(int64_t v)
{
    value out = { .type = RUNNER_INTEGER, .as.integer = v };
    return out;
}

value value_real(double v)
{
    value out = { .type = RUNNER_REAL, .as.real = v };
    return out;
}

value value_boolean(int v)
{
    value out = { .type = RUNNER_BOOLEAN, .as.boolean = v != 0 };
    return out;
}

value value_text(const char *text)
{
    if (!text)
        return VALUE_NULL;
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    if (!copy)
        return VALUE_NULL;
    memcpy(copy, text, n);
    value out = { .type = RUNNER_TEXT, .as.text = copy };
    return out;
}

int value_copy(value *dst, const value *src)
{
    if (src->type != RUNNER_TEXT) {
        *dst = *src;
        return 0;
    }
    *dst = value_text(src->as.text);
    return dst->type == RUNNER_TEXT ? 0 : -1;
}

void value_clear(value *v)
{
    if (!v)
        return;
    if (v->type == RUNNER_TEXT)
        free(v->as.text);
    *v = VALUE_NULL;
}

double value_number(const value *v)
{
    switch (v->type) {
    case RUNNER_INTEGER: return (double)v->as.integer;
    case RUNNER_REAL: return v->as.real;
    case RUNNER_BOOLEAN: return v->as.boolean ? 1.0 : 0.0;
    default: return NAN;
    }
}

/* digits outside 1..17 fall back to 17, the count that round-trips a double.
 * Text longer than the buffer is truncated (always NUL-terminated). */
void value_format(const value *v, int digits, char *buf, size_t size)
{
    if (size == 0)
        return;
    if (digits < 1 || digits > 17)
        digits = 17;
    switch (v->type) {
    case RUNNER_INTEGER: snprintf(buf, size, "%" PRId64, v->as.integer); break;
    case RUNNER_REAL:
        if (isnan(v->as.real))
            snprintf(buf, size, "NaN");
        else if (isinf(v->as.real))
            snprintf(buf, size, "%s", v->as.real < 0 ? "-inf" : "inf");
        else
            snprintf(buf, size, "%.*g", digits, v->as.real);
        break;
    case RUNNER_TEXT: snprintf(buf, size, "%s", v->as.text ? v->as.text : ""); break;
    case RUNNER_BOOLEAN: snprintf(buf, size, "%s", v->as.boolean ? "true" : "false"); break;
    default: buf[0] = '\0'; break;
    }
}

int value_type_is_numeric(runner_type type)
{
    return type == RUNNER_INTEGER || type == RUNNER_REAL;
}

const char *value_type_name(runner_type type)
{
    switch (type) {
    case RUNNER_INTEGER: return "integer";
    case RUNNER_REAL: return "real";
    case RUNNER_TEXT: return "text";
    case RUNNER_BOOLEAN: return "boolean";
    default: return type == 0 ? "null" : "unknown";
    }
}

/* Same type and same value. NaN equals NaN here: this compares stored
 * values (round trips, duplicate detection), not arithmetic results. */
int value_equal(const value *a, const value *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case RUNNER_INTEGER: return a->as.integer == b->as.integer;
    case RUNNER_REAL:
        if (isnan(a->as.real) || isnan(b->as.real))
            return isnan(a->as.real) && isnan(b->as.real);
        return a->as.real == b->as.real;
    case RUNNER_TEXT: return strcmp(a->as.text, b->as.text) == 0;
    case RUNNER_BOOLEAN: return (a->as.boolean != 0) == (b->as.boolean != 0);
    default: return 1;
    }
}

json_t *value_to_json(const value *v)
{
    switch (v->type) {
    case RUNNER_INTEGER: return json_integer(v->as.integer);
    case RUNNER_REAL:
        if (isnan(v->as.real))
            return json_string("NaN");
        if (isinf(v->as.real))
            return json_string(v->as.real > 0 ? "inf" : "-inf");
        return json_real(v->as.real);
    case RUNNER_BOOLEAN: return json_boolean(v->as.boolean);
    case RUNNER_TEXT: return json_string(v->as.text);
    }
    return json_null();
}

json_t *value_json_text(const char *text)
{
    if (!text)
        return json_null();
    if (util_utf8_valid(text))
        return json_string(text);
    /* Each byte that starts no UTF-8 character becomes U+FFFD (3 bytes). */
    size_t len = strlen(text);
    char *shown = malloc(len * 3 + 1), *out = shown;
    if (!shown)
        return NULL;
    for (const char *p = text; *p;) {
        size_t n = util_utf8_sequence(p);
        if (n) {
            memcpy(out, p, n);
            out += n;
            p += n;
        } else {
            memcpy(out, "\xef\xbf\xbd", 3);
            out += 3;
            p++;
        }
    }
    *out = '\0';
    json_t *j = json_string(shown);
    free(shown);
    return j;
}

json_t *value_to_json_shown(const value *v)
{
    return v->type == RUNNER_TEXT ? value_json_text(v->as.text) : value_to_json(v);
}

void value_json_put(json_t *object, const char *key, json_t *v, int *ok)
{
    if (!v || json_object_set_new(object, key, v) != 0)
        *ok = 0;
}

void value_json_push(json_t *array, json_t *v, int *ok)
{
    if (!v || json_array_append_new(array, v) != 0)
        *ok = 0;
}
