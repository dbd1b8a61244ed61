/* cli_runs: `runner show --runs` and `runner export --runs`: every run of
 * a command point with repeats or warmup (command_run), one row a run:
 * the point's parameters and id, the run's number, whether it warmed up,
 * what runner measured of it, and the declared columns it printed. Read a
 * row at a time: memory stays flat whatever the number of runs. */
#include "base/exit_status.h"
#include "cli.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "base/util.h"
#include "base/value.h"
#include "exec/exec.h"
#include "render/render.h"

/* The run's own columns, as command_run names them. */
static const struct {
    const char *name, *unit;
    runner_type type;
} run_columns[] = {
    { "point_id", "", RUNNER_INTEGER },
    { "run", "", RUNNER_INTEGER },
    { "warmup", "", RUNNER_BOOLEAN },
    { "wall_s", "s", RUNNER_REAL },
    { "user_s", "s", RUNNER_REAL },
    { "sys_s", "s", RUNNER_REAL },
    { "max_rss_kib", "KiB", RUNNER_INTEGER },
    { "voluntary_switches", "", RUNNER_INTEGER },
    { "involuntary_switches", "", RUNNER_INTEGER },
    { "exit_status", "", RUNNER_INTEGER },
};

int cli_runs_columns(store *s, int64_t section_id, table **out, char **plugin, char **err)
{
    table *section = NULL;
    *out = NULL;
    if (store_section_columns(s, section_id, &section, plugin, err) != 0)
        return -1;
    table *t = table_new(section->title);
    int bad = !t;
    for (size_t c = 0; !bad && c < section->column_count; c++)
        if (section->columns[c].is_param)
            bad = table_add_column(t, section->columns[c].name, section->columns[c].unit,
                                   section->columns[c].type, 1) != 0;
    for (size_t i = 0; !bad && i < sizeof run_columns / sizeof *run_columns; i++)
        bad = table_add_column(t, run_columns[i].name, run_columns[i].unit, run_columns[i].type,
                               0) != 0;
    for (size_t c = 0; !bad && c < section->column_count; c++) {
        const table_column *col = &section->columns[c];
        if (!col->is_param && !exec_is_measured_column(col->name))
            bad = table_add_column(t, col->name, col->unit, col->type, 0) != 0;
    }
    table_free(section);
    if (bad) {
        table_free(t);
        free(*plugin);
        *plugin = NULL;
        return util_fail(err, "out of memory");
    }
    *out = t;
    return 0;
}

static void clear_row(value *row, size_t n)
{
    for (size_t c = 0; c < n; c++)
        value_clear(&row[c]);
}

/* Aligned text reads the runs twice: widths first, then the rows. */
static int runs_text(store *s, int64_t section_id, const table *cols, size_t max_width, value *row,
                     FILE *out, char **err)
{
    output_text_layout layout;
    store_run_cursor *cursor = NULL;
    if (output_text_layout_init(&layout, cols) != 0)
        return util_fail(err, "out of memory");
    int rc = store_run_cursor_open(s, section_id, cols, &cursor, err);
    while (rc == 0 && (rc = store_run_cursor_next(cursor, row, err)) == 1) {
        output_text_layout_note(&layout, row);
        output_text_layout_widen(&layout, row);
        clear_row(row, cols->column_count);
        rc = 0;
    }
    store_run_cursor_close(cursor);
    cursor = NULL;
    size_t *order = calloc(cols->column_count, sizeof *order);
    if (rc == 0 && !order)
        rc = util_fail(err, "out of memory");
    if (rc == 0) {
        for (size_t c = 0; c < cols->column_count; c++)
            order[c] = c;
        output_text_layout_set_view(&layout, order, cols->column_count, NULL, 0, max_width);
        output_text_layout_print_head(out, &layout);
        rc = store_run_cursor_open(s, section_id, cols, &cursor, err);
    }
    while (rc == 0 && (rc = store_run_cursor_next(cursor, row, err)) == 1) {
        output_text_layout_print_row(out, &layout, row);
        clear_row(row, cols->column_count);
        rc = 0;
    }
    store_run_cursor_close(cursor);
    output_text_layout_clear(&layout);
    free(order);
    return rc < 0 ? -1 : 0;
}

/* ndjson: one object a run, keyed by column name. */
static int runs_ndjson(store_run_cursor *cursor, const table *cols, value *row, FILE *out,
                       char **err)
{
    int rc;
    while ((rc = store_run_cursor_next(cursor, row, err)) == 1) {
        json_t *object = json_object();
        int ok = object != NULL;
        for (size_t c = 0; c < cols->column_count; c++)
            value_json_put(object, cols->columns[c].name, value_to_json_shown(&row[c]), &ok);
        clear_row(row, cols->column_count);
        char *text = ok ? json_dumps(object, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
        json_decref(object);
        if (!text)
            return util_fail(err, "out of memory");
        fprintf(out, "%s\n", text);
        free(text);
    }
    return rc;
}

int cli_show_runs_section(store *s, int64_t section_id, const table *cols, int format,
                          size_t max_width, FILE *out, char **err)
{
    value *row = calloc(cols->column_count ? cols->column_count : 1, sizeof *row);
    if (!row)
        return util_fail(err, "out of memory");
    int rc = 0;
    if (format == OUTPUT_TABLE) {
        rc = runs_text(s, section_id, cols, max_width, row, out, err);
        free(row);
        return rc;
    }
    store_run_cursor *cursor = NULL;
    rc = store_run_cursor_open(s, section_id, cols, &cursor, err);
    if (rc == 0 && format == CLI_RUNS_NDJSON) {
        rc = runs_ndjson(cursor, cols, row, out, err);
    } else if (rc == 0 && format == OUTPUT_CSV) {
        output_csv_header(out, cols);
        while ((rc = store_run_cursor_next(cursor, row, err)) == 1) {
            output_csv_row(out, cols, row);
            clear_row(row, cols->column_count);
        }
    } else if (rc == 0) {
        size_t count = 0;
        if (output_json_begin(out, cols) != 0)
            rc = util_fail(err, "out of memory");
        while (rc == 0 && (rc = store_run_cursor_next(cursor, row, err)) == 1) {
            rc =
                output_json_row(out, cols, row, count++) != 0 ? util_fail(err, "out of memory") : 0;
            clear_row(row, cols->column_count);
        }
        if (rc == 0)
            output_json_end(out, count);
    }
    store_run_cursor_close(cursor);
    free(row);
    return rc < 0 ? -1 : 0;
}
