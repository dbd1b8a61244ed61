/* summary: the body of a finished sweep's webhook, read back from the
 * database and built with jansson, never pasted together: a JSON document
 * bounded in rows and bytes, or a Slack message with a table in a code block. */
#include "summary.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "table.h"
#include "util.h"
#include "value.h"

/* Compact, so the byte bound is the size on the wire; 17 digits round-trip. */
#define BODY_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
#define SUMMARY_VERSION 1

int summary_parse_format(const char *name, summary_format *format)
{
    if (strcmp(name, "generic") == 0)
        *format = SUMMARY_GENERIC;
    else if (strcmp(name, "slack") == 0)
        *format = SUMMARY_SLACK;
    else
        return -1;
    return 0;
}

const char *summary_format_name(summary_format format)
{
    return format == SUMMARY_SLACK ? "slack" : "generic";
}

/* --- what the database says ----------------------------------------------- */

typedef struct sweep_facts {
    store_sweep_digest sweep;
    store_section_digest *sections;
    size_t section_count;
} sweep_facts;

static void facts_clear(sweep_facts *f)
{
    store_sweep_digest_clear(&f->sweep);
    for (size_t i = 0; i < f->section_count; i++)
        store_section_digest_clear(&f->sections[i]);
    free(f->sections);
    memset(f, 0, sizeof *f);
}

static int read_facts(store *s, int64_t sweep_id, size_t max_rows, sweep_facts *f, char **err)
{
    memset(f, 0, sizeof *f);
    int64_t *ids = NULL;
    size_t count = 0;
    if (store_sweep_digest_read(s, sweep_id, &f->sweep, err) != 0 ||
        store_sweep_sections(s, sweep_id, &ids, &count, err) != 0)
        goto fail;
    if (count && !(f->sections = calloc(count, sizeof *f->sections))) {
        util_fail(err, "cannot build the webhook summary: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < count; i++) {
        if (store_section_digest_read(s, ids[i], max_rows, &f->sections[i], err) != 0)
            goto fail;
        f->section_count = i + 1;
    }
    free(ids);
    return 0;
fail:
    free(ids);
    facts_clear(f);
    return -1;
}

/* --- JSON pieces ----------------------------------------------------------- */

/* A JSON string of text that may not be valid UTF-8 (a path, a plugin's
 * text): then its non-ASCII bytes become '?', so the body stays valid JSON.
 * NULL text gives null. */
static json_t *json_text(const char *text)
{
    if (!text)
        return json_null();
    json_t *j = json_string(text);
    if (j)
        return j;
    char *copy = util_strdup(text);
    if (!copy)
        return NULL;
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

/* As output.c's JSON (value_to_json), with text that may not be UTF-8. */
static json_t *json_cell(const value *v)
{
    return v->type == RUNNER_TEXT ? json_text(v->as.text) : value_to_json(v);
}

static json_t *json_number(double x)
{
    value v = value_real(x);
    return json_cell(&v);
}

/* jansson's *_new calls take the reference even when they fail; one flag
 * per document records any failure (out of memory). */
static void put(json_t *object, const char *key, json_t *v, int *ok)
{
    if (!v || json_object_set_new(object, key, v) != 0)
        *ok = 0;
}

static void push(json_t *array, json_t *v, int *ok)
{
    if (!v || json_array_append_new(array, v) != 0)
        *ok = 0;
}

static size_t dumped_size(const json_t *j)
{
    return json_dumpb(j, NULL, 0, BODY_FLAGS);
}

/* --- generic --------------------------------------------------------------- */

/* A section without its rows ("rows": [], every row counted as omitted). */
static json_t *section_skeleton(const store_section_digest *d, int *ok)
{
    json_t *o = json_object(), *columns = json_array(), *figures = json_object();
    if (!o || !columns || !figures) {
        json_decref(o);
        json_decref(columns);
        json_decref(figures);
        *ok = 0;
        return NULL;
    }
    put(o, "ordinal", json_integer(d->ordinal), ok);
    put(o, "plugin", json_text(d->plugin), ok);
    put(o, "title", json_text(d->title), ok);
    put(o, "points_ok", json_integer(d->points_ok), ok);
    put(o, "points_failed", json_integer(d->points_failed), ok);
    put(o, "row_count", json_integer(d->row_count), ok);
    for (size_t c = 0; c < d->head->column_count; c++) {
        const table_column *col = &d->head->columns[c];
        json_t *cj = json_object();
        if (!cj) {
            *ok = 0;
            continue;
        }
        put(cj, "name", json_text(col->name), ok);
        put(cj, "unit", json_text(col->unit), ok);
        put(cj, "type", json_string(value_type_name(col->type)), ok);
        put(cj, "role", json_string(col->is_param ? "param" : "output"), ok);
        push(columns, cj, ok);
        if (!value_type_is_numeric(col->type))
            continue;
        json_t *fig = json_object();
        if (!fig) {
            *ok = 0;
            continue;
        }
        put(fig, "min", json_cell(&d->min[c]), ok);
        put(fig, "max", json_cell(&d->max[c]), ok);
        put(fig, "nan", json_integer(d->nan_count[c]), ok);
        put(figures, col->name, fig, ok);
    }
    put(o, "columns", columns, ok);
    put(o, "figures", figures, ok);
    put(o, "rows", json_array(), ok);
    put(o, "rows_omitted", json_integer(d->row_count), ok);
    return o;
}

static json_t *row_json(const table *t, size_t r, int *ok)
{
    json_t *row = json_array();
    if (!row) {
        *ok = 0;
        return NULL;
    }
    for (size_t c = 0; c < t->column_count; c++)
        push(row, json_cell(table_cell(t, r, c)), ok);
    return row;
}

/* Sections in order while their skeletons fit in max_bytes; then rows, in
 * section order, while the body stays under max_bytes. What is left out is
 * counted: "sections_omitted", and per section "rows_omitted". */
static json_t *generic_doc(const sweep_facts *f, const summary_options *o, size_t max_bytes,
                           int *ok)
{
    const store_sweep_digest *w = &f->sweep;
    json_t *doc = json_object(), *sections = json_array();
    json_t **skeletons = calloc(f->section_count + 1, sizeof *skeletons);
    if (!doc || !sections || !skeletons) {
        json_decref(doc);
        json_decref(sections);
        free(skeletons);
        *ok = 0;
        return NULL;
    }
    put(doc, "summary_version", json_integer(SUMMARY_VERSION), ok);
    put(doc, "sweep_id", json_integer(w->id), ok);
    put(doc, "script", json_text(w->script_path), ok);
    put(doc, "status", json_text(w->status), ok);
    put(doc, "points_ok", json_integer(w->points_ok), ok);
    put(doc, "points_failed", json_integer(w->points_failed), ok);
    put(doc, "started_at", json_text(w->started_at), ok);
    put(doc, "ended_at", json_text(w->ended_at), ok);
    put(doc, "duration_s", json_number(w->duration_s), ok);
    put(doc, "database", json_text(o->db_path), ok);
    put(doc, "host", json_text(w->host), ok);
    put(doc, "runner_version", json_text(w->runner_version), ok);
    put(doc, "sections", sections, ok);
    /* Measured with the largest count it could hold, so it only shrinks. */
    put(doc, "sections_omitted", json_integer((json_int_t)f->section_count), ok);

    size_t used = dumped_size(doc), kept = 0;
    for (size_t i = 0; i < f->section_count; i++) {
        skeletons[i] = section_skeleton(&f->sections[i], ok);
        size_t need = skeletons[i] ? dumped_size(skeletons[i]) + (i ? 1 : 0) : 0;
        if (!skeletons[i] || used + need > max_bytes)
            break;
        push(sections, json_incref(skeletons[i]), ok);
        used += need;
        kept++;
    }
    put(doc, "sections_omitted", json_integer((json_int_t)(f->section_count - kept)), ok);

    int full = 0;
    for (size_t i = 0; i < kept; i++) {
        const store_section_digest *d = &f->sections[i];
        json_t *rows = json_object_get(skeletons[i], "rows");
        size_t included = 0;
        for (size_t r = 0; rows && r < d->head->row_count && !full; r++) {
            json_t *row = row_json(d->head, r, ok);
            size_t need = row ? dumped_size(row) + (included ? 1 : 0) : 0;
            if (!row || used + need > max_bytes) {
                json_decref(row);
                full = 1;
                break;
            }
            push(rows, row, ok);
            used += need;
            included++;
        }
        put(skeletons[i], "rows_omitted", json_integer(d->row_count - (json_int_t)included), ok);
    }
    for (size_t i = 0; i < f->section_count; i++)
        json_decref(skeletons[i]);
    free(skeletons);
    return doc;
}

/* --- slack ----------------------------------------------------------------- */

/* Slack reads &, < and > as control characters, even in code blocks. */
static void tb_escaped(strbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': strbuf_add(b, "&amp;", 5); break;
        case '<': strbuf_add(b, "&lt;", 4); break;
        case '>': strbuf_add(b, "&gt;", 4); break;
        default: strbuf_add(b, s, 1);
        }
    }
}

/* "name [unit]", as the text tables print it. */
static void column_label(const table_column *c, char *buf, size_t size)
{
    if (*c->unit && strcmp(c->unit, c->name) != 0)
        snprintf(buf, size, "%s [%s]", c->name, c->unit);
    else
        snprintf(buf, size, "%s", c->name);
}

/* One section: a line naming it, then its numeric columns' min and max. */
static void slack_section(strbuf *b, const store_section_digest *d)
{
    char line[512];
    snprintf(line, sizeof line, "%d. %s%s%s%s: %lld rows, %lld points ok, %lld failed\n",
             d->ordinal, d->title ? d->title : d->plugin, d->title ? " [" : "",
             d->title ? d->plugin : "", d->title ? "]" : "", (long long)d->row_count,
             (long long)d->points_ok, (long long)d->points_failed);
    tb_escaped(b, line);
    int width = 6;
    char label[160], lo[32], hi[32];
    for (size_t c = 0; c < d->head->column_count; c++) {
        if (!value_type_is_numeric(d->head->columns[c].type))
            continue;
        column_label(&d->head->columns[c], label, sizeof label);
        if ((int)strlen(label) > width)
            width = (int)strlen(label);
    }
    snprintf(line, sizeof line, "   %-*s  %12s  %12s\n", width, "column", "min", "max");
    tb_escaped(b, line);
    for (size_t c = 0; c < d->head->column_count; c++) {
        if (!value_type_is_numeric(d->head->columns[c].type))
            continue;
        column_label(&d->head->columns[c], label, sizeof label);
        value_format(&d->min[c], 6, lo, sizeof lo);
        value_format(&d->max[c], 6, hi, sizeof hi);
        snprintf(line, sizeof line, "   %-*s  %12s  %12s", width, label, *lo ? lo : "-",
                 *hi ? hi : "-");
        tb_escaped(b, line);
        if (d->nan_count[c])
            strbuf_printf(b, "  (%lld NaN)", (long long)d->nan_count[c]);
        strbuf_add(b, "\n", 1);
    }
}

static json_t *slack_doc(const sweep_facts *f, const summary_options *o, size_t max_chars,
                         int *ok)
{
    const store_sweep_digest *w = &f->sweep;
    strbuf b = { 0 }, section = { 0 };
    char head[1024];
    snprintf(head, sizeof head, "runner sweep %lld %s: %s, %lld points ok, %lld failed, %.3f s "
             "(%s on %s)\n", (long long)w->id, w->status ? w->status : "?",
             w->script_path ? w->script_path : "?", (long long)w->points_ok,
             (long long)w->points_failed, isfinite(w->duration_s) ? w->duration_s : 0.0,
             o->db_path ? o->db_path : "?", w->host ? w->host : "?");
    tb_escaped(&b, head);
    strbuf_add(&b, "```\n", 4);
    size_t shown = 0;
    for (; shown < f->section_count; shown++) {
        section.len = 0;
        slack_section(&section, &f->sections[shown]);
        if (section.oom || (shown > 0 && b.len + section.len > max_chars))
            break;
        strbuf_add(&b, section.data, section.len);
    }
    if (shown < f->section_count)
        strbuf_printf(&b, "... %zu more sections: runner show %lld prints every row\n",
                  f->section_count - shown, (long long)w->id);
    strbuf_add(&b, "```", 3);
    json_t *doc = json_object();
    if (!doc || b.oom || section.oom)
        *ok = 0;
    else
        put(doc, "text", json_text(b.data), ok);
    free(b.data);
    free(section.data);
    return doc;
}

/* --- the body -------------------------------------------------------------- */

int summary_build(store *s, int64_t sweep_id, void *ctx, char **body, char **err)
{
    const summary_options *o = ctx;
    *body = NULL;
    size_t max_rows = o->max_rows ? o->max_rows : SUMMARY_MAX_ROWS;
    size_t max_bytes = o->max_bytes ? o->max_bytes
                     : o->format == SUMMARY_SLACK ? SUMMARY_SLACK_MAX_CHARS : SUMMARY_MAX_BYTES;
    sweep_facts f;
    /* A slack body shows figures only: no rows to read. */
    if (read_facts(s, sweep_id, o->format == SUMMARY_SLACK ? 0 : max_rows, &f, err) != 0)
        return -1;
    int ok = 1;
    json_t *doc = o->format == SUMMARY_SLACK ? slack_doc(&f, o, max_bytes, &ok)
                                             : generic_doc(&f, o, max_bytes, &ok);
    if (doc && ok)
        *body = json_dumps(doc, BODY_FLAGS);
    json_decref(doc);
    facts_clear(&f);
    if (!*body)
        return util_fail(err, "cannot build the webhook summary of sweep %lld: out of memory",
                         (long long)sweep_id);
    return 0;
}
