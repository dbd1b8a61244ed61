/* wire: growing byte buffers with sticky errors, and typed cells in them. */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

void wire_put(wire_writer *w, const void *bytes, size_t len)
{
    if (w->failed || len == 0)
        return;
    if (len > SIZE_MAX - w->len) { /* len + w->len would wrap */
        w->failed = 1;
        return;
    }
    if (w->len + len > w->cap) {
        size_t cap = strbuf_grown_capacity(w->cap, w->len + len);
        char *bigger = realloc(w->data, cap);
        if (!bigger) {
            w->failed = 1;
            return;
        }
        w->data = bigger;
        w->cap = cap;
    }
    memcpy(w->data + w->len, bytes, len);
    w->len += len;
}

void wire_put_u8(wire_writer *w, uint8_t v) { wire_put(w, &v, sizeof v); }
void wire_put_u32(wire_writer *w, uint32_t v) { wire_put(w, &v, sizeof v); }
void wire_put_u64(wire_writer *w, uint64_t v) { wire_put(w, &v, sizeof v); }
void wire_put_f64(wire_writer *w, double v) { wire_put(w, &v, sizeof v); }

void wire_put_text(wire_writer *w, const char *text)
{
    size_t len = text ? strlen(text) : 0;
    if (len > UINT32_MAX) {
        w->failed = 1;
        return;
    }
    wire_put_u32(w, (uint32_t)len);
    wire_put(w, text, len);
}

void wire_put_cells(wire_writer *w, const value *cells, size_t count)
{
    for (size_t i = 0; i < count && !w->failed; i++) {
        const value *v = &cells[i];
        wire_put_u8(w, (uint8_t)v->type);
        switch (v->type) {
        case RUNNER_INTEGER: wire_put(w, &v->as.integer, sizeof v->as.integer); break;
        case RUNNER_REAL: wire_put_f64(w, v->as.real); break;
        case RUNNER_BOOLEAN: wire_put(w, &v->as.boolean, sizeof v->as.boolean); break;
        case RUNNER_TEXT: wire_put_text(w, v->as.text); break;
        default: break;
        }
    }
}

void wire_writer_free(wire_writer *w)
{
    free(w->data);
    memset(w, 0, sizeof *w);
}

wire_reader wire_reader_of(const void *data, size_t len)
{
    wire_reader r = { .data = data, .len = len };
    return r;
}

static int take(wire_reader *r, void *out, size_t len)
{
    if (r->failed || r->len - r->pos < len) {
        r->failed = 1;
        memset(out, 0, len);
        return -1;
    }
    memcpy(out, r->data + r->pos, len);
    r->pos += len;
    return 0;
}

uint8_t wire_get_u8(wire_reader *r)
{
    uint8_t v;
    take(r, &v, sizeof v);
    return v;
}
uint32_t wire_get_u32(wire_reader *r)
{
    uint32_t v;
    take(r, &v, sizeof v);
    return v;
}
uint64_t wire_get_u64(wire_reader *r)
{
    uint64_t v;
    take(r, &v, sizeof v);
    return v;
}
double wire_get_f64(wire_reader *r)
{
    double v;
    take(r, &v, sizeof v);
    return v;
}

char *wire_get_text(wire_reader *r)
{
    uint32_t len = wire_get_u32(r);
    if (r->failed || r->len - r->pos < len) {
        r->failed = 1;
        return NULL;
    }
    char *text = malloc((size_t)len + 1);
    if (!text) {
        r->failed = 1;
        return NULL;
    }
    memcpy(text, r->data + r->pos, len);
    text[len] = '\0';
    r->pos += len;
    return text;
}

int wire_get_cells(wire_reader *r, value *out, size_t count)
{
    size_t i = 0;
    for (; i < count && !r->failed; i++) {
        value *v = &out[i];
        *v = VALUE_NULL;
        uint8_t type = wire_get_u8(r);
        switch (type) {
        case 0: break;
        case RUNNER_INTEGER: take(r, &v->as.integer, sizeof v->as.integer); break;
        case RUNNER_REAL: v->as.real = wire_get_f64(r); break;
        case RUNNER_BOOLEAN: take(r, &v->as.boolean, sizeof v->as.boolean); break;
        case RUNNER_TEXT: v->as.text = wire_get_text(r); break;
        default: r->failed = 1; break;
        }
        if (!r->failed)
            v->type = (runner_type)type;
    }
    if (!r->failed)
        return 0;
    for (size_t j = 0; j < i && j < count; j++)
        value_clear(&out[j]);
    return -1;
}

void wire_put_outcome(wire_writer *w, int failed, const char *error, const value *rows,
                      size_t row_count, size_t columns)
{
    wire_put_u8(w, failed != 0);
    wire_put_text(w, error);
    wire_put_u64(w, failed ? 0 : (uint64_t)row_count);
    if (!failed)
        wire_put_cells(w, rows, row_count * columns);
}

int wire_get_outcome(wire_reader *r, size_t columns, int *failed, char **error, value **rows,
                     size_t *row_count)
{
    *failed = wire_get_u8(r) != 0;
    *error = wire_get_text(r);
    uint64_t count = wire_get_u64(r);
    *rows = NULL;
    *row_count = 0;
    /* Every cell takes at least its type byte: more cells than bytes left
     * is a corrupt message, not a reason to allocate. */
    if (r->failed || (columns && count > (r->len - r->pos) / columns))
        goto fail;
    if (*error && !**error) {
        free(*error);
        *error = NULL;
    }
    if (count > 0) {
        *rows = calloc((size_t)count * columns + 1, sizeof **rows);
        if (!*rows || wire_get_cells(r, *rows, (size_t)count * columns) != 0)
            goto fail;
    }
    *row_count = (size_t)count;
    return 0;
fail:
    r->failed = 1;
    free(*error);
    free(*rows);
    *error = NULL;
    *rows = NULL;
    return -1;
}
