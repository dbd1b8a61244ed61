/* cli_export: `runner export SWEEP`, one file per section, each headed by
 * what its numbers are: sweep, section, plugin, title and every column's
 * unit. CSV puts that in lines starting with '#' before the header row;
 * JSON in the document; NDJSON in its first line. */
#include "base/exit_status.h"
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/table.h"
#include "base/util.h"
#include "base/value.h"
#include "render/render.h"

/* What heads one section's file. */
typedef struct export_head {
    int64_t sweep_id;
    const char *sweep_name; /* NULL: unnamed */
    size_t ordinal, sections;
    const char *plugin;
    const table *cols; /* the section's columns (title, units) */
} export_head;

static void csv_head(FILE *out, const export_head *h)
{
    fprintf(out, "# runner export: sweep %lld%s%s, section %zu of %zu, plugin %s\n",
            (long long)h->sweep_id, h->sweep_name ? " " : "", h->sweep_name ? h->sweep_name : "",
            h->ordinal, h->sections, h->plugin);
    if (h->cols->title)
        fprintf(out, "# title: %s\n", h->cols->title);
    fprintf(out, "# units:");
    for (size_t c = 0; c < h->cols->column_count; c++)
        fprintf(out, "%s %s=%s", c ? "," : "", h->cols->columns[c].name, h->cols->columns[c].unit);
    fprintf(out, "\n");
}

/* The head as a JSON object: sweep, name, section, sections, plugin, and
 * for NDJSON the title and columns too (JSON's table carries them). */
static json_t *json_head(const export_head *h, int with_columns)
{
    json_t *head = json_object();
    int ok = head != NULL;
    value_json_put(head, "sweep", json_integer(h->sweep_id), &ok);
    value_json_put(head, "name", h->sweep_name ? value_json_text(h->sweep_name) : json_null(), &ok);
    value_json_put(head, "section", json_integer((json_int_t)h->ordinal), &ok);
    value_json_put(head, "sections", json_integer((json_int_t)h->sections), &ok);
    value_json_put(head, "plugin", value_json_text(h->plugin), &ok);
    if (with_columns) {
        json_t *cols = json_array();
        for (size_t c = 0; cols && c < h->cols->column_count; c++) {
            json_t *col = json_object();
            value_json_put(col, "name", value_json_text(h->cols->columns[c].name), &ok);
            value_json_put(col, "unit", value_json_text(h->cols->columns[c].unit), &ok);
            value_json_put(col, "type", json_string(value_type_name(h->cols->columns[c].type)),
                           &ok);
            value_json_push(cols, col, &ok);
        }
        value_json_put(head, "title",
                       h->cols->title ? value_json_text(h->cols->title) : json_null(), &ok);
        value_json_put(head, "columns", cols, &ok);
    }
    if (!ok) {
        json_decref(head);
        return NULL;
    }
    return head;
}

/* Prints v compactly on out; -1 when out of memory. */
static int put_json(FILE *out, json_t *v, const char *after)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(v);
    if (!text)
        return -1;
    fprintf(out, "%s%s", text, after);
    free(text);
    return 0;
}

/* NDJSON: the head, then one object per row, keyed by column name. */
static int write_ndjson(store *s, int64_t section_id, const export_head *h, FILE *out, char **err)
{
    if (put_json(out, json_head(h, 1), "\n") != 0)
        return util_fail(err, "out of memory");
    size_t n = h->cols->column_count;
    value *row = calloc(n ? n : 1, sizeof *row);
    store_cursor *cursor = NULL;
    int rc = row ? store_cursor_open(s, section_id, h->plugin, h->cols, NULL, NULL, 0, &cursor, err)
                 : util_fail(err, "out of memory");
    while (rc == 0 && n > 0 && (rc = store_cursor_next(cursor, row, NULL, err)) == 1) {
        json_t *object = json_object();
        int ok = object != NULL;
        for (size_t c = 0; c < n; c++) {
            value_json_put(object, h->cols->columns[c].name, value_to_json_shown(&row[c]), &ok);
            value_clear(&row[c]);
        }
        rc = ok && put_json(out, object, "\n") == 0 ? 0 : util_fail(err, "out of memory");
        if (!ok)
            json_decref(object);
    }
    store_cursor_close(cursor);
    free(row);
    return rc < 0 ? -1 : 0;
}

/* Writes one section's file into the directory dirfd (shown as dir) as a
 * new file renamed over its name; prints its path. */
static int export_section(store *s, int64_t section_id, const export_head *h, int dirfd,
                          const char *dir, const char *format, int runs, char **err)
{
    char *name = util_format("sweep-%lld-section-%zu-%s%s.%s", (long long)h->sweep_id, h->ordinal,
                             h->plugin, runs ? "-runs" : "", format);
    char *path = name ? util_format("%s/%s", dir, name) : NULL;
    outfile *file = path ? outfile_begin(dirfd, name, path, 0666, err) : NULL;
    free(name);
    if (!file) {
        int rc = path ? -1 : util_fail(err, "out of memory");
        free(path);
        return rc;
    }
    FILE *out = outfile_stream(file);
    int rc = 0;
    if (strcmp(format, "csv") == 0) {
        csv_head(out, h);
        rc = runs ? cli_show_runs_section(s, section_id, h->cols, OUTPUT_CSV, 0, out, err)
                  : cli_show_section(s, section_id, OUTPUT_CSV, 0, out, err);
    } else if (strcmp(format, "json") == 0) {
        json_t *head = json_head(h, 0);
        char *text = head ? json_dumps(head, JSON_COMPACT) : NULL;
        json_decref(head);
        /* the head's members, then the table as `runner show` prints it */
        if (text && strlen(text) > 2)
            fprintf(out, "%.*s,\"table\":", (int)strlen(text) - 1, text);
        rc = !text  ? util_fail(err, "out of memory")
             : runs ? cli_show_runs_section(s, section_id, h->cols, OUTPUT_JSON, 0, out, err)
                    : cli_show_section(s, section_id, OUTPUT_JSON, 0, out, err);
        free(text);
        fprintf(out, "}\n");
    } else if (runs) {
        rc = put_json(out, json_head(h, 1), "\n") != 0
                 ? util_fail(err, "out of memory")
                 : cli_show_runs_section(s, section_id, h->cols, CLI_RUNS_NDJSON, 0, out, err);
    } else {
        rc = write_ndjson(s, section_id, h, out, err);
    }
    if (rc == 0)
        rc = outfile_commit(file, err);
    else
        outfile_discard(file);
    if (rc == 0)
        printf("%s\n", path);
    free(path);
    return rc;
}

/* runner export SWEEP [--section N] [--format csv|json|ndjson] [--out DIR] */
int cli_export_sweep(const options_parsed *a)
{
    const option_value *v = a->values;
    const char *dir = v[OPTION_EXPORT_OUT].text ? v[OPTION_EXPORT_OUT].text : ".";
    const char *format = v[OPTION_EXPORT_FORMAT].text;
    store *s = NULL;
    int64_t sweep_id = 0, *ids = NULL;
    size_t count = 0;
    table *row = NULL;
    char *err = NULL;
    int dirfd = -1;
    int status = cli_open_sweep(a, &s, &sweep_id, &ids, &count);
    if (status != EXIT_OK)
        return status;
    size_t first = 0, last = count;
    if (v[OPTION_SHOW_SECTION].given) {
        if (v[OPTION_SHOW_SECTION].integer > count) {
            fprintf(stderr,
                    "runner: export: sweep %lld has %zu section%s; --section %llu is "
                    "out of range\n",
                    (long long)sweep_id, count, count == 1 ? "" : "s",
                    (unsigned long long)v[OPTION_SHOW_SECTION].integer);
            status = EXIT_USAGE;
            goto done;
        }
        first = (size_t)v[OPTION_SHOW_SECTION].integer - 1;
        last = first + 1;
    }
    if ((dirfd = outfile_open_dir(dir, 1, &err)) < 0) {
        status = cli_fail(err);
        goto done;
    }
    store_sweep_filter only = { .id = sweep_id };
    if (store_list_sweeps_matching(s, &only, &row, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    const value *name = table_cell(row, 0, (size_t)table_find_column(row, "name"));
    for (size_t i = first; i < last && status == EXIT_OK; i++) {
        table *cols = NULL;
        char *plugin = NULL;
        int runs = v[OPTION_SHOW_RUNS].given;
        if ((runs ? cli_runs_columns(s, ids[i], &cols, &plugin, &err)
                  : store_section_columns(s, ids[i], &cols, &plugin, &err)) == 0) {
            export_head h = { sweep_id, name && name->type == RUNNER_TEXT ? name->as.text : NULL,
                              i + 1,    count,
                              plugin,   cols };
            if (export_section(s, ids[i], &h, dirfd, dir, format, runs, &err) != 0)
                status = cli_fail(err);
        } else {
            status = cli_fail(err);
        }
        table_free(cols);
        free(plugin);
    }
done:
    if (dirfd >= 0)
        close(dirfd);
    table_free(row);
    free(ids);
    store_close(s);
    return status;
}
