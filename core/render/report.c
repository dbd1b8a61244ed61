/* report: renders one stored sweep as a single HTML page. Section rows come
 * through store cursors: read once as a stream (table_facts, the first
 * rows), and again for the plotted columns only; the provenance (the sweep
 * row, its plugins and sections, failed points, column docs) through the
 * store's read-only queries (store_query.h). */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/table.h"
#include "base/util.h"
#include "plot.h"
#include "report_int.h"
#include "plot_load.h"
#include "section_columns.h"
#include "section_view.h"
#include "store/store.h"
#include "store/store_query.h"
#include "table_facts.h"

#define REPORT_MAX_FAILED 20       /* failed points listed per section */
#define REPORT_FAILED_BY_INDEX 200 /* up to this many, found through point_index */
#define REPORT_PLOT_WIDTH 900
#define REPORT_PLOT_HEIGHT 480

static const char report_css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "margin:0 auto;max-width:1150px;padding:1.5em;color:#1b1b1b;background:#fff;"
    "line-height:1.4}\n"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.3em;margin-top:2em;"
    "border-bottom:2px solid #d8dee4;padding-bottom:.2em}h3{font-size:1.05em;margin-top:1.4em}\n"
    "code,pre,.mono{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.9em}\n"
    "pre{background:#f6f8fa;border:1px solid #d8dee4;padding:.8em;overflow-x:auto}\n"
    "table{border-collapse:collapse;margin:.5em 0}\n"
    "th,td{border:1px solid #d8dee4;padding:.25em .6em;vertical-align:top}\n"
    "th{background:#f6f8fa;text-align:left;font-weight:600}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.kv th{width:11em}\n"
    ".unit{font-weight:400;color:#57606a;font-size:.85em}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    ".note{color:#57606a;font-size:.9em}\n"
    ".status{display:inline-block;padding:0 .5em;border-radius:.3em;font-weight:600}\n"
    ".status-ok{background:#dafbe1;color:#116329}\n"
    ".status-failed,.status-error{background:#ffebe9;color:#a40e26}\n"
    ".status-interrupted,.status-running{background:#fff8c5;color:#7d4e00}\n"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #d8dee4}\n"
    "figcaption{color:#57606a;font-size:.9em}\n"
    "nav ul{columns:2}\n";

typedef struct report_ctx {
    const char *db_path;
    store *store;
    table *sweep;    /* the sweep row, as stored */
    table *sections; /* store_sweep_section_list's */
    int64_t sweep_id;
    FILE *out;
    int gnuplot_missing;
    int plot_failures;
    char *error; /* first read error, reported once */
} report_ctx;

/* ---- HTML output ---- */

#define H(text) report_escape_html(r->out, (text))

static void put_value(report_ctx *r, const value *v)
{
    char text[512];
    value_format(v, 6, text, sizeof text);
    H(text);
}

/* "name = value unit" for a parameter. */
static void put_setting(report_ctx *r, const table_column *c, const value *v)
{
    H(c->name);
    fputs(" = ", r->out);
    put_value(r, v);
    if (*c->unit && strcmp(c->unit, c->name) != 0) {
        fputc(' ', r->out);
        H(c->unit);
    }
}

/* ---- reading ---- */

/* Keeps the first error (err, malloc'd) and returns -1. */
static int keep_error(report_ctx *r, char *err)
{
    if (!r->error)
        r->error = err ? err : util_strdup("out of memory");
    else
        free(err);
    return -1;
}

/* A cell of row by column name; a NULL cell when there is no such column. */
static const value *cell(const table *t, size_t row, const char *name)
{
    static const value none = { 0 };
    long c = table_find_column(t, name);
    return c < 0 || row >= t->row_count ? &none : table_cell(t, row, (size_t)c);
}

/* Text of a cell: "" for NULL (a number is never asked for as text). */
static const char *text_of(const table *t, size_t row, const char *name)
{
    const value *v = cell(t, row, name);
    return v->type == RUNNER_TEXT ? v->as.text : "";
}

static int64_t integer_of(const table *t, size_t row, const char *name)
{
    const value *v = cell(t, row, name);
    return v->type == RUNNER_INTEGER ? v->as.integer
           : v->type == RUNNER_REAL  ? (int64_t)v->as.real
                                     : 0;
}

/* The row of section_id in r->sections, or -1. */
static long section_row(const report_ctx *r, int64_t section_id)
{
    for (size_t i = 0; i < r->sections->row_count; i++)
        if (integer_of(r->sections, i, "id") == section_id)
            return (long)i;
    return -1;
}

/* A section's title, else its plugin. */
static const char *section_title(const report_ctx *r, size_t row)
{
    const char *title = text_of(r->sections, row, "title");
    return cell(r->sections, row, "title")->type == RUNNER_TEXT
               ? title
               : text_of(r->sections, row, "plugin");
}

/* ---- provenance ---- */

static void kv_row(report_ctx *r, const char *key, const char *text, int mono)
{
    fputs("<tr><th>", r->out);
    H(key);
    fputs(mono ? "</th><td class=\"mono\">" : "</th><td>", r->out);
    H(text);
    fputs("</td></tr>\n", r->out);
}

static void status_badge(report_ctx *r, const char *status)
{
    fputs("<span class=\"status status-", r->out);
    H(status);
    fputs("\">", r->out);
    H(status);
    fputs("</span>", r->out);
}

/* <head>, the title and the one-line summary: points over the whole sweep. */
static int write_title(report_ctx *r, size_t section_count)
{
    const char *script = text_of(r->sweep, 0, "script_path");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          r->out);
    fprintf(r->out, "runner report: sweep %" PRId64 " (", r->sweep_id);
    H(script);
    fprintf(r->out, ")</title>\n<style>\n%s</style>\n</head>\n<body>\n", report_css);
    fprintf(r->out, "<header>\n<h1>Sweep %" PRId64 ": ", r->sweep_id);
    H(script);
    fputs("</h1>\n<p>", r->out);
    status_badge(r, text_of(r->sweep, 0, "status"));
    table *progress = NULL;
    char *err = NULL;
    if (store_sweep_progress(r->store, r->sweep_id, &progress, &err) != 0)
        return keep_error(r, err);
    int64_t done = integer_of(progress, 0, "points_done");
    int64_t failed = integer_of(progress, 0, "points_failed");
    if (progress->row_count)
        fprintf(r->out, " %zu section%s, %lld points ok, %lld failed", section_count,
                section_count == 1 ? "" : "s", (long long)(done - failed), (long long)failed);
    fputs("; started ", r->out);
    H(text_of(r->sweep, 0, "started_at"));
    /* The time to the end; none while running (elapsed_s then runs to now). */
    const value *took = cell(progress, 0, "elapsed_s");
    if (cell(r->sweep, 0, "ended_at")->type != 0 && took->type != 0)
        fprintf(r->out, ", took %.3g s", value_number(took));
    fputs(".</p>\n</header>\n", r->out);
    table_free(progress);
    return 0;
}

static void write_contents(report_ctx *r, size_t section_count, const int64_t *ids)
{
    fputs("<nav>\n<ul>\n<li><a href=\"#provenance\">Provenance</a></li>\n", r->out);
    for (size_t i = 0; i < section_count; i++) {
        long row = section_row(r, ids[i]);
        if (row < 0)
            continue;
        fprintf(r->out, "<li><a href=\"#section-%zu\">", i + 1);
        H(section_title(r, (size_t)row));
        fputs("</a></li>\n", r->out);
    }
    fputs("</ul>\n</nav>\n", r->out);
}

/* "JOB (array JOB_TASK, step STEP)" from the sweep row's Slurm ids, in
 * out (size bytes). */
static const char *scheduler_text(const table *t, char *out, size_t size)
{
    const char *array = text_of(t, 0, "slurm_array_job_id");
    const char *task = text_of(t, 0, "slurm_array_task_id");
    const char *step = text_of(t, 0, "slurm_step_id");
    snprintf(out, size, "%s%s%s%s%s%s%s%s", text_of(t, 0, "slurm_job_id"), *array ? " (array " : "",
             array, *array ? "_" : "", *array ? task : "", *array ? ")" : "",
             *step ? ", step " : "", step);
    return out;
}

/* The sweep row as a key-value table. */
static void write_provenance(report_ctx *r)
{
    const table *t = r->sweep;
    char number[64];
    fputs("<section id=\"provenance\">\n<h2>Provenance</h2>\n<table class=\"kv\">\n", r->out);
    kv_row(r, "script", text_of(t, 0, "script_path"), 1);
    kv_row(r, "script sha256", text_of(t, 0, "script_sha256"), 1);
    kv_row(r, "command line", text_of(t, 0, "command_line"), 1);
    kv_row(r, "options used", text_of(t, 0, "options_json"), 1);
    kv_row(r, "--set overrides", text_of(t, 0, "overrides_json"), 1);
    snprintf(number, sizeof number, "%" PRIu64, (uint64_t)integer_of(t, 0, "seed"));
    kv_row(r, "seed", number, 1);
    kv_row(r, "runner version", text_of(t, 0, "runner_version"), 1);
    int git = cell(t, 0, "git_commit")->type != 0;
    kv_row(r, "git commit",
           git ? text_of(t, 0, "git_commit") : "(none: the script is not in a git work tree)", git);
    kv_row(r, "host", text_of(t, 0, "host"), 1);
    char job[192];
    if (cell(t, 0, "slurm_job_id")->type == RUNNER_TEXT)
        kv_row(r, "Slurm job", scheduler_text(t, job, sizeof job), 1);
    kv_row(r, "started (UTC)", text_of(t, 0, "started_at"), 1);
    kv_row(r, "ended (UTC)",
           cell(t, 0, "ended_at")->type == 0 ? "(not recorded)" : text_of(t, 0, "ended_at"), 1);
    fputs("<tr><th>status</th><td>", r->out);
    status_badge(r, text_of(t, 0, "status"));
    fputs("</td></tr>\n", r->out);
    kv_row(r, "database", r->db_path, 1);
    fputs("</table>\n", r->out);
}

/* The exact shared objects. */
static int write_plugins(report_ctx *r)
{
    table *plugins = NULL;
    char *err = NULL;
    if (store_sweep_plugin_list(r->store, r->sweep_id, &plugins, &err) != 0)
        return keep_error(r, err);
    fputs("<h3>Plugins</h3>\n<div class=\"scroll\"><table>\n<tr><th>plugin</th><th>version</th>"
          "<th>shared object</th><th>sha256</th></tr>\n",
          r->out);
    for (size_t i = 0; i < plugins->row_count; i++) {
        fputs("<tr><td>", r->out);
        H(text_of(plugins, i, "plugin"));
        fputs("</td><td class=\"mono\">", r->out);
        H(text_of(plugins, i, "plugin_version"));
        fputs("</td><td class=\"mono\">", r->out);
        H(text_of(plugins, i, "so_path"));
        fputs("</td><td class=\"mono\">", r->out);
        H(text_of(plugins, i, "so_sha256"));
        fputs("</td></tr>\n", r->out);
    }
    fputs("</table></div>\n", r->out);
    table_free(plugins);
    return 0;
}

static int write_head(report_ctx *r, size_t section_count, const int64_t *ids)
{
    char *err = NULL;
    if (store_sweep_row(r->store, r->sweep_id, &r->sweep, &err) != 0 ||
        store_sweep_section_list(r->store, r->sweep_id, &r->sections, &err) != 0)
        return keep_error(r, err);
    if (r->sweep->row_count == 0)
        return keep_error(r, util_format("%s: no sweep %" PRId64, r->db_path, r->sweep_id));
    if (write_title(r, section_count) != 0)
        return -1;
    write_contents(r, section_count, ids);
    write_provenance(r);
    if (write_plugins(r) != 0)
        return -1;
    /* The script itself, folded: it is long and stored verbatim. */
    const char *text = text_of(r->sweep, 0, "script_text");
    size_t lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    fprintf(r->out, "<details>\n<summary>Script text (%zu lines, as run)</summary>\n<pre>", lines);
    H(text);
    fputs("</pre>\n</details>\n</section>\n", r->out);
    return 0;
}

/* ---- one section ---- */

/* A section as the report reads it: the facts of every row (one streaming
 * pass), its first REPORT_MAX_ROWS rows, and a cursor to come back to the
 * rows where a headline figure is reached. Nothing grows with the section. */
typedef struct section_read {
    table *head;  /* the columns and the first rows */
    char *plugin; /* the result table */
    table_facts facts;
    section_view view; /* what the section shows first (section_view.h) */
    store_cursor *cursor;
    value *row; /* one row, for the cursor */
} section_read;

static void section_read_clear(section_read *sr)
{
    if (sr->row && sr->head)
        for (size_t c = 0; c < sr->head->column_count; c++)
            value_clear(&sr->row[c]);
    free(sr->row);
    store_cursor_close(sr->cursor);
    section_view_clear(&sr->view);
    table_facts_clear(&sr->facts);
    table_free(sr->head);
    free(sr->plugin);
    memset(sr, 0, sizeof *sr);
}

static int section_read_open(store *s, int64_t section_id, section_read *sr, char **err)
{
    memset(sr, 0, sizeof *sr);
    if (store_section_columns(s, section_id, &sr->head, &sr->plugin, err) != 0)
        return -1;
    size_t n = sr->head->column_count;
    if (table_facts_init(&sr->facts, n) != 0 || !(sr->row = calloc(n ? n : 1, sizeof *sr->row)))
        return util_fail(err, "out of memory");
    if (n == 0) /* nothing recorded for the plugin: no rows */
        return section_view_init(&sr->view, sr->head, &sr->facts, sr->plugin) == 0
                   ? 0
                   : util_fail(err, "out of memory");
    if (store_cursor_open(s, section_id, sr->plugin, sr->head, NULL, NULL, 0, &sr->cursor, err) !=
        0)
        return -1;
    store_row_key key;
    int rc;
    while ((rc = store_cursor_next(sr->cursor, sr->row, &key, err)) == 1) {
        if (table_facts_add(&sr->facts, sr->row, (facts_where){ key.point_id, key.row_id }) != 0)
            return util_fail(err, "out of memory");
        if (sr->head->row_count < REPORT_MAX_ROWS) {
            if (table_append_row(sr->head, sr->row) != 0)
                return util_fail(err, "out of memory");
        } else {
            for (size_t c = 0; c < n; c++)
                value_clear(&sr->row[c]);
        }
    }
    store_cursor_rewind(sr->cursor);
    if (rc == 0 && section_view_init(&sr->view, sr->head, &sr->facts, sr->plugin) != 0)
        return util_fail(err, "out of memory");
    return rc;
}

/* The row at where into sr->row (cleared by the next call or the clear). */
static const value *section_read_row(section_read *sr, facts_where where)
{
    for (size_t c = 0; c < sr->head->column_count; c++)
        value_clear(&sr->row[c]);
    char *err = NULL;
    store_row_key key = { where.point_id, where.row_id };
    int rc = store_cursor_seek(sr->cursor, key, &err) == 0
                 ? store_cursor_next(sr->cursor, sr->row, NULL, &err)
                 : -1;
    store_cursor_rewind(sr->cursor);
    free(err);
    return rc == 1 ? sr->row : NULL;
}

/* The row's varying parameters; when none varies (a plugin that emits
 * several rows per point), its varying text and boolean outputs. */
static void put_where(report_ctx *r, const section_read *sr, const value *row)
{
    const table *t = sr->head;
    int n = 0;
    for (int pass = 0; pass < 2 && n == 0; pass++) {
        for (size_t c = 0; c < t->column_count; c++) {
            const table_column *col = &t->columns[c];
            int wanted = pass == 0 ? col->is_param
                                   : !col->is_param &&
                                         (col->type == RUNNER_TEXT || col->type == RUNNER_BOOLEAN);
            if (!wanted || !sr->facts.columns[c].varies)
                continue;
            if (n++)
                fputs(", ", r->out);
            put_setting(r, col, &row[c]);
        }
    }
}

/* The columns the same on every row, on one line (section_view.h). */
static void write_constants(report_ctx *r, const section_read *sr)
{
    const section_view *v = &sr->view;
    char setting[512];
    for (size_t i = 0; i < v->folded_count; i++) {
        size_t c = v->folded[i];
        section_view_setting(sr->head, c, &sr->facts.columns[c].first, setting, sizeof setting);
        fputs(i ? SECTION_VIEW_SEPARATOR : "<p class=\"constants\">Same on every row: ", r->out);
        H(setting);
    }
    if (v->folded_count)
        fputs(".</p>\n", r->out);
}

static void put_column_name(report_ctx *r, const table_column *col)
{
    H(col->name);
    if (*col->unit && strcmp(col->unit, col->name) != 0) {
        fputs(" <span class=\"unit\">[", r->out);
        H(col->unit);
        fputs("]</span>", r->out);
    }
}

/* One headline cell pair: the value, and where it is reached. */
static void put_extreme(report_ctx *r, section_read *sr, size_t c, facts_where at, int constant)
{
    const value *row = section_read_row(sr, at);
    if (!row) {
        fputs("<td class=\"n\"></td><td></td>", r->out);
        return;
    }
    fputs("<td class=\"n\">", r->out);
    put_value(r, &row[c]);
    fputs("</td><td>", r->out);
    if (constant)
        fputs(sr->facts.columns[c].nonfinite ? "every finite row" : "every row", r->out);
    else
        put_where(r, sr, row);
    fputs("</td>", r->out);
}

/* Min and max of every numeric output, and where each was found. */
static void write_headlines(report_ctx *r, section_read *sr)
{
    if (sr->facts.rows < 2)
        return;
    fputs("<h3>Headline figures</h3>\n<div class=\"scroll\"><table>\n<tr><th>column</th>"
          "<th>min</th><th>at</th><th>max</th><th>at</th><th>NaN or inf</th></tr>\n",
          r->out);
    for (size_t c = 0; c < sr->head->column_count; c++) {
        const table_column *col = &sr->head->columns[c];
        const column_facts *f = &sr->facts.columns[c];
        if (col->is_param || (col->type != RUNNER_INTEGER && col->type != RUNNER_REAL))
            continue;
        fputs("<tr><td>", r->out);
        put_column_name(r, col);
        fputs("</td>", r->out);
        if (f->finite == 0) {
            fputs("<td class=\"n\"></td><td></td><td class=\"n\"></td><td></td>", r->out);
        } else {
            put_extreme(r, sr, c, f->min_at, f->min == f->max);
            put_extreme(r, sr, c, f->max_at, f->min == f->max);
        }
        fprintf(r->out, "<td class=\"n\">%zu</td></tr>\n", f->nonfinite);
    }
    fputs("</table></div>\n", r->out);
}

/* The column's doc as a title attribute, when it has one. */
static void put_doc_attribute(report_ctx *r, const table *docs, const char *name)
{
    for (size_t i = 0; docs && i < docs->row_count; i++) {
        if (strcmp(text_of(docs, i, "name"), name) != 0)
            continue;
        const char *doc = text_of(docs, i, "doc");
        if (*doc) {
            fputs(" title=\"", r->out);
            H(doc);
            fputc('"', r->out);
        }
        return;
    }
}

/* The first REPORT_MAX_ROWS rows (sr->head), and the count of the rest. */
static void write_rows(report_ctx *r, const section_read *sr, const char *plugin, int64_t sweep_id)
{
    const table *t = sr->head;
    size_t total = sr->facts.rows;
    table *docs = NULL;
    char *err = NULL;
    if (store_column_docs(r->store, plugin, &docs, &err) != 0)
        keep_error(r, err);
    const section_view *v = &sr->view;
    fprintf(r->out, "<h3>Rows (%zu)</h3>\n<div class=\"scroll\"><table class=\"rows\">\n<tr>",
            total);
    for (size_t i = 0; i < v->shown_count; i++) {
        size_t c = v->shown[i];
        fputs("<th", r->out);
        put_doc_attribute(r, docs, t->columns[c].name);
        fputc('>', r->out);
        H(t->columns[c].name);
        if (*t->columns[c].unit && strcmp(t->columns[c].unit, t->columns[c].name) != 0) {
            fputs("<br><span class=\"unit\">[", r->out);
            H(t->columns[c].unit);
            fputs("]</span>", r->out);
        }
        fputs("</th>", r->out);
    }
    fputs("</tr>\n", r->out);
    table_free(docs);
    size_t shown = t->row_count;
    for (size_t row = 0; row < shown; row++) {
        fputs("<tr>", r->out);
        for (size_t i = 0; i < v->shown_count; i++) {
            const value *cell = table_cell(t, row, v->shown[i]);
            fputs(cell->type == RUNNER_TEXT || cell->type == 0 ? "<td>" : "<td class=\"n\">",
                  r->out);
            put_value(r, cell);
            fputs("</td>", r->out);
        }
        fputs("</tr>\n", r->out);
    }
    fputs("</table></div>\n", r->out);
    if (shown < total)
        fprintf(r->out,
                "<p class=\"note\">Showing the first %zu of %zu rows; %zu rows are left "
                "out. <code>runner show %" PRId64 " --format csv</code> prints them all.</p>\n",
                shown, total, total - shown, sweep_id);
    fprintf(r->out,
            "<p class=\"note\">Reals are shown to 6 significant digits; the database "
            "keeps them exact (<code>runner show %" PRId64 " --format csv</code>).</p>\n",
            sweep_id);
}

static void put_svg(report_ctx *r, const char *svg, size_t ordinal)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "s%zu-", ordinal);
    report_put_svg(r->out, svg, prefix);
}

static void write_plot(report_ctx *r, const section_read *sr, int64_t section_id, size_t ordinal)
{
    plot_spec spec = { .width = REPORT_PLOT_WIDTH, .height = REPORT_PLOT_HEIGHT };
    if (section_view_plot(&sr->view, sr->head, &spec) != 0) {
        fputs("<p class=\"note\">No plot: ", r->out);
        H(sr->view.why);
        fputs(".</p>\n", r->out);
        return;
    }
    if (r->gnuplot_missing) {
        fputs("<p class=\"note\">No plot: gnuplot is not installed (sudo apt-get install "
              "gnuplot-nox).</p>\n",
              r->out);
        return;
    }
    spec.title = sr->head->title;
    plot_image image = { 0 };
    char *err = NULL;
    /* Only the rows the picture draws (plot_load.h), not a million. */
    plot_preload preload;
    table *t = NULL;
    int rc =
        plot_load_section(r->store, section_id, sr->plugin, sr->head, &spec, &t, &preload, &err);
    spec.preload = &preload;
    if (rc == 0)
        rc = plot_render(t, &spec, PLOT_SVG, &image, &err);
    if (rc == PLOT_NO_GNUPLOT) {
        r->gnuplot_missing = 1;
        fputs("<p class=\"note\">No plot: gnuplot is not installed (sudo apt-get install "
              "gnuplot-nox).</p>\n",
              r->out);
    } else if (rc != 0) {
        r->plot_failures++;
        log_print(LOG_LEVEL_WARN, "runner: report: section %zu: %s\n", ordinal,
                  err ? err : "plot failed");
        fputs("<p class=\"note\">No plot: ", r->out);
        H(err);
        fputs("</p>\n", r->out);
    } else {
        fputs("<figure>\n", r->out);
        put_svg(r, image.data, ordinal);
        fputs("\n<figcaption>", r->out);
        H(spec.y);
        fputs(" against ", r->out);
        H(spec.x);
        if (spec.by) {
            fputs(", one line per ", r->out);
            H(spec.by);
        }
        if (spec.logx || spec.logy)
            fprintf(r->out, " (log %s)",
                    spec.logx && spec.logy ? "x and y"
                    : spec.logx            ? "x"
                                           : "y");
        char *notes[2] = { plot_skip_note(&spec, &image),
                           plot_reduce_note(&image.reduced, spec.by) };
        for (size_t i = 0; i < 2; i++) {
            if (notes[i]) {
                fputs("; ", r->out);
                H(notes[i]);
                free(notes[i]);
            }
        }
        fprintf(r->out,
                ". Redraw or change it with <code>runner plot %" PRId64 " --section %zu "
                "--x ",
                r->sweep_id, ordinal);
        H(spec.x);
        fputs(" --y ", r->out);
        H(spec.y);
        if (spec.by) {
            fputs(" --by ", r->out);
            H(spec.by);
        }
        fprintf(r->out, "%s%s -o plot.svg</code>.</figcaption>\n</figure>\n",
                spec.logx ? " --logx" : "", spec.logy ? " --logy" : "");
    }
    plot_image_free(&image);
    table_free(t);
    free(err);
}

static void write_failures(report_ctx *r, int64_t section_id, int64_t failed)
{
    if (failed <= 0)
        return;
    table *points = NULL;
    char *err = NULL;
    if (store_failed_points(r->store, section_id, failed, REPORT_MAX_FAILED, &points, &err) != 0) {
        keep_error(r, err);
        return;
    }
    fprintf(r->out,
            "<h3>Failed points (%lld)</h3>\n<div class=\"scroll\"><table>\n<tr><th>point"
            "</th><th>status</th><th>parameters</th><th>error</th></tr>\n",
            (long long)failed);
    for (size_t i = 0; i < points->row_count; i++) {
        fprintf(r->out, "<tr><td class=\"n\">%lld</td><td>",
                (long long)integer_of(points, i, "ordinal"));
        H(text_of(points, i, "status"));
        fputs("</td><td class=\"mono\">", r->out);
        H(text_of(points, i, "params_json"));
        fputs("</td><td>", r->out);
        H(text_of(points, i, "error"));
        fputs("</td></tr>\n", r->out);
    }
    fputs("</table></div>\n", r->out);
    if (failed > REPORT_MAX_FAILED)
        fprintf(r->out, "<p class=\"note\">The first %d of %lld failed points.</p>\n",
                REPORT_MAX_FAILED, (long long)failed);
    table_free(points);
}

static int write_section(report_ctx *r, int64_t section_id, size_t ordinal)
{
    long row = section_row(r, section_id);
    if (row < 0)
        return 0;
    const table *list = r->sections;
    char *plugin = util_strdup(text_of(list, (size_t)row, "plugin"));
    char *title = util_strdup(section_title(r, (size_t)row));
    int line = (int)integer_of(list, (size_t)row, "script_line");
    int64_t planned = integer_of(list, (size_t)row, "point_count");
    int64_t ok = integer_of(list, (size_t)row, "points_ok");
    int64_t failed = integer_of(list, (size_t)row, "points_failed");

    section_read sr;
    char *err = NULL;
    if (section_read_open(r->store, section_id, &sr, &err) != 0) {
        if (!r->error)
            r->error = err;
        else
            free(err);
        section_read_clear(&sr);
        free(plugin);
        free(title);
        return -1;
    }
    fprintf(r->out, "<section id=\"section-%zu\">\n<h2>", ordinal);
    H(title);
    fputs("</h2>\n<p class=\"note\">Plugin <code>", r->out);
    H(plugin);
    fprintf(r->out, "</code>, script line %d; %lld of %lld points ok, %lld failed.</p>\n", line,
            (long long)ok, (long long)planned, (long long)failed);
    write_constants(r, &sr);
    write_plot(r, &sr, section_id, ordinal);
    if (!r->error) /* fails only when the fits cannot be read: then r->error */
        report_write_fits(r->out, r->store, r->sweep_id, section_id, sr.plugin, sr.head, ordinal,
                          &r->gnuplot_missing, &r->error);
    write_headlines(r, &sr);
    write_failures(r, section_id, failed);
    write_rows(r, &sr, plugin, r->sweep_id);
    fputs("</section>\n", r->out);
    section_read_clear(&sr);
    free(plugin);
    free(title);
    return r->error ? -1 : 0;
}

/* ---- the page ---- */

int report_render(store *s, const char *db_path, int64_t sweep_id, const int64_t *ids, size_t count,
                  char **html, size_t *html_size, int *gnuplot_missing, char **err)
{
    report_ctx r = { .db_path = db_path, .store = s, .sweep_id = sweep_id };
    *html = NULL;
    *html_size = 0;
    *gnuplot_missing = 0;
    if (!(r.out = open_memstream(html, html_size)))
        return util_fail(err, "out of memory");
    int bad = write_head(&r, count, ids);
    for (size_t i = 0; i < count && !bad; i++)
        bad = write_section(&r, ids[i], i + 1);
    time_t now = time(NULL);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(r.out, "<footer><p class=\"note\">Written by runner %s at %s from ", RUNNER_VERSION,
            stamp);
    report_escape_html(r.out, r.db_path);
    fputs(".</p></footer>\n</body>\n</html>\n", r.out);
    int closed = fclose(r.out);
    table_free(r.sweep);
    table_free(r.sections);
    if (closed != 0 || bad) {
        if (closed != 0)
            util_fail(err, "out of memory");
        else
            util_fail(err, "%s", r.error ? r.error : "cannot read the sweep");
        free(r.error);
        free(*html);
        *html = NULL;
        return -1;
    }
    *gnuplot_missing = r.gnuplot_missing;
    return 0;
}
