/* cli_diff: `runner diff A B`: which sweeps, which plugins and columns, the
 * tolerance; diff.c compares; the figures come out as one table (text, CSV
 * or JSON) and the exit status says equal (0) or not (1), so a CI job can
 * gate on it. */
#include "base/exit_status.h"
#include "cli_diff_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "render/render.h"

static void diff_job_clear(diff_job *job)
{
    for (size_t i = 0; i < job->plugin_count; i++) {
        free(job->plugins[i]);
        table_free(job->columns[i]);
        table_free(job->outputs[i]);
        if (job->results)
            diff_plugin_clear(&job->results[i]);
    }
    free(job->plugins);
    free(job->columns);
    free(job->outputs);
    free(job->results);
}

/* Adds the section's plugin (once) with its output columns that `wanted`
 * lists. 0 or -1 with *err. */
static int add_section(store *s, diff_job *job, int64_t section_id, const char *wanted, char **err)
{
    table *all = NULL;
    char *plugin = NULL;
    if (store_section_columns(s, section_id, &all, &plugin, err) != 0)
        return -1;
    for (size_t i = 0; i < job->plugin_count; i++)
        if (strcmp(job->plugins[i], plugin) == 0) {
            table_free(all);
            free(plugin);
            return 0;
        }
    table *outputs = table_new(plugin), *every = table_new(plugin);
    char **plugins = realloc(job->plugins, (job->plugin_count + 1) * sizeof *plugins);
    if (plugins)
        job->plugins = plugins;
    table **columns =
        plugins ? realloc(job->columns, (job->plugin_count + 1) * sizeof *columns) : NULL;
    if (columns)
        job->columns = columns;
    table **all_outputs =
        columns ? realloc(job->outputs, (job->plugin_count + 1) * sizeof *all_outputs) : NULL;
    if (all_outputs)
        job->outputs = all_outputs;
    int bad = !outputs || !every || !all_outputs;
    for (size_t c = 0; !bad && c < all->column_count; c++) {
        const table_column *col = &all->columns[c];
        if (col->is_param)
            continue;
        bad = table_add_column(every, col->name, col->unit, col->type, 0) != 0;
        if (!bad && diff_listed(wanted, col->name))
            bad = table_add_column(outputs, col->name, col->unit, col->type, 0) != 0;
    }
    table_free(all);
    if (bad) {
        table_free(outputs);
        table_free(every);
        free(plugin);
        return util_fail(err, "out of memory");
    }
    job->plugins[job->plugin_count] = plugin;
    job->outputs[job->plugin_count] = every;
    job->columns[job->plugin_count++] = outputs;
    return 0;
}

/* Every name of --columns must be an output of some plugin compared. */
static int check_columns(const diff_job *job, const char *wanted)
{
    for (const char *p = wanted; p && *p;) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (size_t i = 0; i < job->plugin_count && !found; i++)
            for (size_t c = 0; c < job->columns[i]->column_count && !found; c++)
                found = strlen(job->columns[i]->columns[c].name) == n &&
                        strncmp(job->columns[i]->columns[c].name, p, n) == 0;
        if (!found) {
            cli_error("diff: no output column '%.*s' in sweep %lld or %lld "
                      "('runner show' names them)",
                      (int)n, p, (long long)job->a, (long long)job->b);
            return EXIT_USAGE;
        }
        p += n + (p[n] == ',');
    }
    return EXIT_OK;
}

/* Resolves one SWEEP argument the way every command does; its sections are
 * appended to *ids. */
static int resolve_sweep(const options_parsed *a, const char *arg, int64_t *id, int64_t **ids,
                         size_t *count)
{
    options_parsed one = *a;
    one.positional = arg;
    store *s = NULL;
    int status = cli_open_sweep(&one, &s, id, ids, count);
    store_close(s);
    return status;
}

/* The summary table: per plugin the point counts (shown once when the
 * same on every row), per column the row figures. */
static table *result_table(const diff_job *job)
{
    char *title = util_format("sweep %lld vs sweep %lld", (long long)job->a, (long long)job->b);
    table *t = table_new(title);
    free(title);
    static const char *const point_columns[] = { "plugin",    "points_in_both", "only_in_a",
                                                 "only_in_b", "status_changed", "rows_unmatched" };
    static const char *const row_columns[] = { "column", "rows", "changed", "max_abs_change",
                                               "max_rel_change" };
    int bad = !t;
    for (size_t i = 0; !bad && i < 6; i++)
        bad = table_add_column(t, point_columns[i], "", i ? RUNNER_INTEGER : RUNNER_TEXT, 1);
    for (size_t i = 0; !bad && i < 5; i++)
        bad = table_add_column(t, row_columns[i], "",
                               i == 0  ? RUNNER_TEXT
                               : i < 3 ? RUNNER_INTEGER
                                       : RUNNER_REAL,
                               0);
    for (size_t p = 0; !bad && p < job->plugin_count; p++) {
        const diff_plugin *d = &job->results[p];
        const table *cols = job->columns[p];
        for (size_t c = 0; !bad && c < (cols->column_count ? cols->column_count : 1); c++) {
            const diff_column *dc = cols->column_count ? &d->columns[c] : NULL;
            value row[11] = {
                value_text(job->plugins[p]),
                value_integer((int64_t)d->both),
                value_integer((int64_t)d->only_a),
                value_integer((int64_t)d->only_b),
                value_integer((int64_t)d->status_changed),
                value_integer((int64_t)(d->rows_only_a + d->rows_only_b)),
                dc ? value_text(cols->columns[c].name) : VALUE_NULL,
                dc ? value_integer((int64_t)dc->rows) : VALUE_NULL,
                dc ? value_integer((int64_t)dc->changed) : VALUE_NULL,
                dc ? value_real(dc->max_abs) : VALUE_NULL,
                dc ? value_real(dc->max_rel) : VALUE_NULL,
            };
            bad = table_append_row(t, row) != 0;
            for (size_t i = 0; i < 11; i++)
                value_clear(&row[i]);
        }
    }
    if (bad) {
        table_free(t);
        return NULL;
    }
    return t;
}

/* Text mode's lines under the table: an unmatched point of each side, and
 * the verdict. */
static void print_verdict(const diff_job *job, int differs, int common_only)
{
    for (size_t p = 0; p < job->plugin_count; p++) {
        const diff_plugin *d = &job->results[p];
        if (d->example_a)
            printf("only in sweep %lld: %s %s%s\n", (long long)job->a, job->plugins[p],
                   d->example_a, d->only_a > 1 ? " and more" : "");
        if (d->example_b)
            printf("only in sweep %lld: %s %s%s\n", (long long)job->b, job->plugins[p],
                   d->example_b, d->only_b > 1 ? " and more" : "");
    }
    printf("sweeps %lld and %lld %s%s\n", (long long)job->a, (long long)job->b,
           differs ? "differ" : "are equal",
           !differs && common_only ? " on the points both hold" : "");
}

static int run_diff(const options_parsed *a, diff_job *job, store *s, char **err)
{
    const option_value *v = a->values;
    diff_tolerance tolerance = {
        .relative = v[OPTION_TOLERANCE].given ? v[OPTION_TOLERANCE].seconds : 0,
        .absolute = v[OPTION_ABS_TOLERANCE].given ? v[OPTION_ABS_TOLERANCE].seconds : 0,
    };
    int common_only = v[OPTION_COMMON].given, differs = 0;
    if (!(job->results = calloc(job->plugin_count + 1, sizeof *job->results)))
        return util_fail(err, "out of memory");
    for (size_t p = 0; p < job->plugin_count; p++) {
        if (diff_plugin_run(s, job->a, job->b, job->plugins[p], job->columns[p], &tolerance,
                            &job->results[p], err) != 0)
            return -1;
        differs |=
            diff_plugin_differs(&job->results[p], job->columns[p]->column_count, common_only);
    }
    table *t = result_table(job);
    if (!t)
        return util_fail(err, "out of memory");
    output_format format = OUTPUT_TABLE;
    output_parse_format(v[OPTION_DIFF_FORMAT].text, &format);
    int rc = table_view_print(stdout, t, format,
                              output_terminal_width(stdout, v[OPTION_SHOW_WIDE].given));
    table_free(t);
    if (rc != 0)
        return util_fail(err, "cannot write the comparison");
    if (format == OUTPUT_TABLE)
        print_verdict(job, differs, common_only);
    return differs;
}

/* One line when the two sweeps ran on different machines or settings
 * (render/machine_note.c): after the verdict in the table format, on
 * stderr beside CSV and JSON, which stdout keeps clean. */
static void print_machine_note(const options_parsed *a, store *s, const diff_job *job)
{
    output_format format = OUTPUT_TABLE;
    output_parse_format(a->values[OPTION_DIFF_FORMAT].text, &format);
    char *line = NULL, *err = NULL;
    if (machine_note_line(s, job->a, job->b, &line, &err) != 0) {
        cli_error("warning: %s", err);
        free(err);
        return;
    }
    if (line)
        fprintf(format == OUTPUT_TABLE ? stdout : stderr, "%s\n", line);
    free(line);
}

int cli_diff(const options_parsed *a)
{
    if (!a->positional || !a->positional2)
        return options_usage_error("%s needs two sweeps: runner diff A B", "diff");
    if (a->values[OPTION_ANSWER_AGAIN].given && !a->values[OPTION_STAT].given) {
        cli_error("diff: --again goes with --stat (a plain diff stores nothing)");
        return EXIT_USAGE;
    }
    diff_job job = { 0 };
    int64_t *ids_a = NULL, *ids_b = NULL;
    size_t count_a = 0, count_b = 0;
    store *s = NULL, *writer = NULL;
    char *err = NULL;
    const char *wanted = a->values[OPTION_COLUMNS].text;
    int status = resolve_sweep(a, a->positional, &job.a, &ids_a, &count_a);
    if (status == EXIT_OK)
        status = resolve_sweep(a, a->positional2, &job.b, &ids_b, &count_b);
    /* --stat stores its comparison: opened for writing then, first (an
     * older schema is brought up to date), and read like the plain diff
     * through a read-only connection: the writer's temp_store = MEMORY
     * would hold both sweeps' sorted points in memory */
    if (status == EXIT_OK && a->values[OPTION_STAT].given)
        status = cli_open_existing(a->db_path, &writer, 1);
    if (status == EXIT_OK)
        status = cli_open_existing(a->db_path, &s, 0);
    if (status != EXIT_OK)
        goto done;
    for (size_t i = 0; i < count_a + count_b && !err; i++)
        add_section(s, &job, i < count_a ? ids_a[i] : ids_b[i - count_a], wanted, &err);
    if (err) {
        status = cli_fail(err);
        goto done;
    }
    if ((status = check_columns(&job, wanted)) != EXIT_OK)
        goto done;
    if (a->values[OPTION_STAT].given) {
        status = diff_run_stat(a, &job, s, writer);
        goto done;
    }
    int rc = run_diff(a, &job, s, &err);
    status = rc < 0 ? cli_fail(err) : rc ? EXIT_DIFFERENT : EXIT_OK;
done:
    if (status == EXIT_OK || status == EXIT_DIFFERENT)
        print_machine_note(a, s, &job);
    diff_job_clear(&job);
    free(ids_a);
    free(ids_b);
    store_close(s);
    store_close(writer);
    return status;
}
