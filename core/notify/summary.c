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

#include "base/strbuf.h"
#include "base/table.h"
#include "base/util.h"
#include "base/value.h"

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

static json_t *json_number(double x)
{
    value v = value_real(x);
    return value_to_json(&v);
}

static size_t dumped_size(const json_t *j) { return json_dumpb(j, NULL, 0, BODY_FLAGS); }

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
    value_json_put(o, "ordinal", json_integer(d->ordinal), ok);
    value_json_put(o, "plugin", value_json_text(d->plugin), ok);
    value_json_put(o, "title", value_json_text(d->title), ok);
    value_json_put(o, "points_ok", json_integer(d->points_ok), ok);
    value_json_put(o, "points_failed", json_integer(d->points_failed), ok);
    value_json_put(o, "row_count", json_integer(d->row_count), ok);
    for (size_t c = 0; c < d->head->column_count; c++) {
        const table_column *col = &d->head->columns[c];
        json_t *cj = json_object();
        if (!cj) {
            *ok = 0;
            continue;
        }
        value_json_put(cj, "name", value_json_text(col->name), ok);
        value_json_put(cj, "unit", value_json_text(col->unit), ok);
        value_json_put(cj, "type", json_string(value_type_name(col->type)), ok);
        value_json_put(cj, "role", json_string(col->is_param ? "param" : "output"), ok);
        value_json_push(columns, cj, ok);
        if (!value_type_is_numeric(col->type))
            continue;
        json_t *fig = json_object();
        if (!fig) {
            *ok = 0;
            continue;
        }
        value_json_put(fig, "min", value_to_json_shown(&d->min[c]), ok);
        value_json_put(fig, "max", value_to_json_shown(&d->max[c]), ok);
        value_json_put(fig, "nan", json_integer(d->nan_count[c]), ok);
        value_json_put(figures, col->name, fig, ok);
    }
    value_json_put(o, "columns", columns, ok);
    value_json_put(o, "figures", figures, ok);
    value_json_put(o, "rows", json_array(), ok);
    value_json_put(o, "rows_omitted", json_integer(d->row_count), ok);
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
        value_json_push(row, value_to_json_shown(table_cell(t, r, c)), ok);
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
    value_json_put(doc, "summary_version", json_integer(SUMMARY_VERSION), ok);
    value_json_put(doc, "sweep_id", json_integer(w->id), ok);
    value_json_put(doc, "script", value_json_text(w->script_path), ok);
    value_json_put(doc, "status", value_json_text(w->status), ok);
    value_json_put(doc, "points_ok", json_integer(w->points_ok), ok);
    value_json_put(doc, "points_failed", json_integer(w->points_failed), ok);
    value_json_put(doc, "started_at", value_json_text(w->started_at), ok);
    value_json_put(doc, "ended_at", value_json_text(w->ended_at), ok);
    value_json_put(doc, "duration_s", json_number(w->duration_s), ok);
    value_json_put(doc, "database", value_json_text(o->db_path), ok);
    value_json_put(doc, "host", value_json_text(w->host), ok);
    value_json_put(doc, "runner_version", value_json_text(w->runner_version), ok);
    value_json_put(doc, "sections", sections, ok);
    /* Measured with the largest count it could hold, so it only shrinks. */
    value_json_put(doc, "sections_omitted", json_integer((json_int_t)f->section_count), ok);

    size_t used = dumped_size(doc), kept = 0;
    for (size_t i = 0; i < f->section_count; i++) {
        skeletons[i] = section_skeleton(&f->sections[i], ok);
        size_t need = skeletons[i] ? dumped_size(skeletons[i]) + (i ? 1 : 0) : 0;
        if (!skeletons[i] || used + need > max_bytes)
            break;
        value_json_push(sections, json_incref(skeletons[i]), ok);
        used += need;
        kept++;
    }
    value_json_put(doc, "sections_omitted", json_integer((json_int_t)(f->section_count - kept)),
                   ok);

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
            value_json_push(rows, row, ok);
            used += need;
            included++;
        }
        value_json_put(skeletons[i], "rows_omitted",
                       json_integer(d->row_count - (json_int_t)included), ok);
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

static json_t *slack_doc(const sweep_facts *f, const summary_options *o, size_t max_chars, int *ok)
{
    const store_sweep_digest *w = &f->sweep;
    strbuf b = { 0 }, section = { 0 };
    char head[1024];
    snprintf(head, sizeof head,
             "runner sweep %lld %s: %s, %lld points ok, %lld failed, %.3f s "
             "(%s on %s)\n",
             (long long)w->id, w->status ? w->status : "?", w->script_path ? w->script_path : "?",
             (long long)w->points_ok, (long long)w->points_failed,
             isfinite(w->duration_s) ? w->duration_s : 0.0, o->db_path ? o->db_path : "?",
             w->host ? w->host : "?");
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
        value_json_put(doc, "text", value_json_text(b.data), ok);
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
    size_t max_bytes = o->max_bytes                 ? o->max_bytes
                       : o->format == SUMMARY_SLACK ? SUMMARY_SLACK_MAX_CHARS
                                                    : SUMMARY_MAX_BYTES;
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
