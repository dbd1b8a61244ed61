/* cli_diff: `runner diff A B`: which sweeps, which plugins and columns, the
 * tolerance; diff.c compares; the figures come out as one table (text, CSV
 * or JSON) and the exit status says equal (0) or not (1), so a CI job can
 * gate on it. */
#include "base/exit_status.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "render/render.h"

/* The plugins the two sweeps ran, each with the output columns compared. */
typedef struct diff_job {
    int64_t a, b;
    size_t plugin_count;
    char **plugins;
    table **columns; /* per plugin: the outputs to compare (names, types): --columns' */
    table **outputs; /* per plugin: every output, whatever --columns says (--stat looks
                      * up a command's wall_sd_s and wall_runs here) */
    diff_plugin *results;
} diff_job;

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

/* 1 when name is in the comma-separated list (NULL: every name is). */
static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
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
        if (!bad && listed(wanted, col->name))
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

/* --- --stat: repeats compared with their noise (docs/analysis.md) ------ */

#define STAT_LEVEL 0.95 /* the intervals' confidence */
#define STAT_ALPHA 0.05 /* a change is significant when p < STAT_ALPHA */

/* A command's measured columns (exec.c): one value per point, copied onto
 * each of its rows. wall_s with wall_sd_s and wall_runs is a mean over
 * repeats; the others carry no spread and are not compared. */
static const char *const command_point_columns[] = {
    "user_s",        "sys_s",      "max_rss_kib", "exit_status", "wall_sd_s",
    "wall_median_s", "wall_min_s", "wall_max_s",  "wall_runs",
};

static int is_command_point_column(const char *name)
{
    for (size_t i = 0; i < sizeof command_point_columns / sizeof *command_point_columns; i++)
        if (strcmp(name, command_point_columns[i]) == 0)
            return 1;
    return 0;
}

static int is_time_unit(const char *unit)
{
    static const char *const units[] = { "s", "ms", "us", "ns", "min", "h" };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(unit, units[i]) == 0)
            return 1;
    return 0;
}

/* The result rows of --stat as they come, until they are stored and then
 * printed (a comparison that cannot be stored, or is refused half-way, is
 * not printed at all): the store's own row struct in one flat array, no
 * allocation per row. The points' parameters follow each other in one
 * buffer, a point's once for all its rows: row i's at point_at[i], its
 * pointer set once the buffer has stopped moving (stat_rows_settle). */
typedef struct stat_rows {
    store_stat_diff_row *rows;
    size_t *point_at;
    size_t count, capacity;
    strbuf points;
} stat_rows;

static void stat_rows_clear(stat_rows *x)
{
    free(x->rows);
    free(x->point_at);
    strbuf_free(&x->points);
}

static void stat_rows_settle(stat_rows *x)
{
    for (size_t i = 0; i < x->count; i++)
        x->rows[i].point = x->points.data + x->point_at[i];
}

/* One plugin's --stat scan: the columns read, the point being gathered,
 * the result rows. */
typedef struct stat_scan {
    const diff_job *job;
    const char *plugin;
    table *read;             /* owned until run_stat keeps it: the carried helpers
                              * (wall_sd_s, wall_runs), then the compared columns;
                              * the result rows borrow its names and units */
    size_t carried;          /* helpers before the compared columns */
    long wall;               /* compared index of a command's wall_s, or -1 */
    long wall_sd, wall_runs; /* read index of the helpers, or -1 */
    double tolerance;
    const char *test; /* --test: mwu, bootstrap or welch */
    stat_rows *out;   /* borrowed: the result rows */
    /* the point being gathered: its rows' compared cells, per side */
    int open;
    int64_t section[2];
    size_t params_at; /* its parameters in out->points */
    double *cells[2];
    size_t rows[2], capacity[2];
    double wall_summary[2][3]; /* mean, sd, n of wall_s from the first row */
    /* a command's stored runs (command_run): each side's point and its
     * measured runs' values of the compared columns, row-major */
    int is_command;
    store_run_samples *run_reader; /* NULL: not a command */
    int64_t point_id[2];
    double *run_values[2];
    size_t runs[2], run_capacity[2];
    double *sample[2]; /* stat_sample's values, one side each */
    size_t sample_capacity[2];
    /* what came out */
    uint64_t compared, without_rows, past_tolerance;
    int refused; /* err is a usage error (n < 2): exit 2 */
} stat_scan;

static void stat_scan_clear(stat_scan *st)
{
    table_free(st->read);
    free(st->cells[0]);
    free(st->cells[1]);
    store_run_samples_close(st->run_reader);
    for (int side = 0; side < 2; side++) {
        free(st->run_values[side]);
        free(st->sample[side]);
    }
}

/* One side's sample of compared column c at the gathered point: the
 * values Welch's test reads (and any other test on the same samples). From
 * the point's stored runs when it has them (a command with repeats: wall_s
 * and each declared column the runs printed), else from its rows (a
 * plugin's several rows a point). A file from before runs were stored
 * keeps only a command's wall_s summary: summary_only, no values. */
typedef struct stat_sample {
    const double *values; /* n finite values; valid until the next point */
    size_t n;
    int summary_only;
    stats_summary summary; /* with summary_only */
} stat_sample;

static int stat_sample_of(stat_scan *st, int side, size_t c, stat_sample *out, char **err)
{
    size_t width = st->read->column_count - st->carried;
    size_t most = st->runs[side] > st->rows[side] ? st->runs[side] : st->rows[side];
    *out = (stat_sample){ 0 };
    if (most > st->sample_capacity[side]) {
        double *grown = realloc(st->sample[side], most * sizeof *grown);
        if (!grown)
            return util_fail(err, "out of memory");
        st->sample[side] = grown;
        st->sample_capacity[side] = most;
    }
    double *x = st->sample[side];
    size_t n = 0;
    for (size_t r = 0; r < st->runs[side]; r++) {
        double v = st->run_values[side][r * width + c];
        if (isfinite(v))
            x[n++] = v;
    }
    if (n > 0 || ((long)c == st->wall && st->runs[side] > 0)) {
        *out = (stat_sample){ .values = x, .n = n };
        return 0;
    }
    if ((long)c == st->wall) {
        const double *w = st->wall_summary[side];
        stats_summary s = { w[0], w[1], st->rows[side] ? (size_t)w[2] : 0 };
        if (s.n < 2)
            s.sd = 0;
        *out = (stat_sample){ .n = s.n, .summary_only = 1, .summary = s };
        return 0;
    }
    for (size_t r = 0; r < st->rows[side]; r++) {
        double v = st->cells[side][r * width + c];
        if (isfinite(v))
            x[n++] = v;
    }
    *out = (stat_sample){ .values = x, .n = n };
    return 0;
}

/* Reads each side's stored runs of the gathered point (a command's). */
static int stat_read_runs(stat_scan *st, char **err)
{
    size_t width = st->read->column_count - st->carried;
    for (int side = 0; side < 2; side++) {
        st->runs[side] = 0;
        const double *values = NULL;
        size_t runs = 0;
        if (!st->run_reader || !st->point_id[side])
            continue;
        if (store_run_samples_read(st->run_reader, side ? st->job->b : st->job->a,
                                   st->point_id[side], &values, &runs, err) != 0)
            return -1;
        if (runs * width > st->run_capacity[side]) {
            double *grown = realloc(st->run_values[side], runs * width * sizeof *grown);
            if (!grown)
                return util_fail(err, "out of memory");
            st->run_values[side] = grown;
            st->run_capacity[side] = runs * width;
        }
        if (runs > 0 && width > 0)
            memcpy(st->run_values[side], values, runs * width * sizeof *values);
        st->runs[side] = runs;
    }
    return 0;
}

/* The columns a command's runs are read for: the compared ones. */
static int stat_open_runs(store *s, stat_scan *st, char **err)
{
    if (!st->is_command)
        return 0;
    size_t width = st->read->column_count - st->carried;
    const char **names = calloc(width ? width : 1, sizeof *names);
    if (!names)
        return util_fail(err, "out of memory");
    for (size_t c = 0; c < width; c++)
        names[c] = st->read->columns[st->carried + c].name;
    int rc = store_run_samples_open(s, names, width, &st->run_reader, err);
    free(names);
    return rc;
}

/* What a compared column's test says: p-value, ratio and its interval,
 * and each side's centre (means for Welch, medians for the others). */
typedef struct stat_result {
    const char *test;
    double p_value, ratio, ratio_low, ratio_high, centre[2];
    int64_t outliers[2][2]; /* mild, severe; -1: no samples to count */
} stat_result;

/* Runs st->test on one compared column's samples (stat_sample_of's; s:
 * their summaries). A file from before runs were stored keeps only a
 * command's wall_s summary per point: Welch's test on it, its outliers not
 * counted. 0, or -1 with *err (a median not above 0 for the bootstrap,
 * memory). */
static int stat_test(stat_scan *st, const stat_sample sample[2], const stats_summary s[2],
                     const stats_comparison *welch, stat_result *r, char **err)
{
    *r = (stat_result){ .test = "welch",
                        .p_value = welch->p_value,
                        .ratio = welch->ratio,
                        .ratio_low = welch->ratio_low,
                        .ratio_high = welch->ratio_high,
                        .centre = { s[0].mean, s[1].mean },
                        .outliers = { { -1, -1 }, { -1, -1 } } };
    if (sample[0].summary_only || sample[1].summary_only)
        return 0;
    /* stat_sample_of's buffers, the runner's own: the medians reorder them */
    double *x[2] = { st->sample[0], st->sample[1] };
    for (int side = 0; side < 2; side++) {
        robust_outliers o;
        if (robust_tukey(x[side], s[side].n, &o) != 0)
            return util_fail(err, "out of memory");
        r->outliers[side][0] = (int64_t)(o.low_mild + o.high_mild);
        r->outliers[side][1] = (int64_t)(o.low_severe + o.high_severe);
    }
    if (strcmp(st->test, "welch") == 0)
        return 0;
    if (strcmp(st->test, "mwu") == 0) {
        robust_mwu m;
        if (robust_mwu_test(x[0], s[0].n, x[1], s[1].n, &m) != 0)
            return util_fail(err, "out of memory");
        r->test = "mwu";
        r->p_value = m.p_value;
        r->ratio_low = r->ratio_high = NAN;
    } else {
        robust_bootstrap b;
        if (robust_bootstrap_ratio(x[0], s[0].n, x[1], s[1].n, STAT_LEVEL,
                                   ROBUST_BOOTSTRAP_RESAMPLES, ROBUST_BOOTSTRAP_SEED, &b) != 0)
            return util_fail(err, "out of memory or a median not above 0");
        r->test = "bootstrap";
        r->p_value = b.p_value;
        r->ratio_low = b.low;
        r->ratio_high = b.high;
    }
    /* the medians last: they reorder the samples */
    r->centre[0] = stats_median(x[0], s[0].n);
    r->centre[1] = stats_median(x[1], s[1].n);
    r->ratio = r->centre[1] / r->centre[0];
    return 0;
}

static const char *verdict_of(const stat_result *r, int is_time, double tolerance, int *past)
{
    *past = 0;
    if (!(r->p_value < STAT_ALPHA))
        return "no significant change";
    double a = r->centre[0], b = r->centre[1];
    int up = b > a;
    double scale = fmax(fabs(a), fabs(b));
    *past = fabs(b - a) > tolerance * scale;
    if (is_time)
        return up ? (*past ? "slower" : "slower, within tolerance")
                  : (*past ? "faster" : "faster, within tolerance");
    return up ? (*past ? "higher" : "higher, within tolerance")
              : (*past ? "lower" : "lower, within tolerance");
}

/* Room for one more result row. 0 or -1. */
static int stat_rows_reserve(stat_rows *x)
{
    if (x->count < x->capacity)
        return 0;
    size_t capacity = x->capacity ? 2 * x->capacity : 1024;
    store_stat_diff_row *rows = realloc(x->rows, capacity * sizeof *rows);
    if (rows)
        x->rows = rows;
    size_t *point_at = rows ? realloc(x->point_at, capacity * sizeof *point_at) : NULL;
    if (point_at)
        x->point_at = point_at;
    if (!point_at)
        return -1;
    x->capacity = capacity;
    return 0;
}

/* The gathered point: one result row per compared column. */
static int stat_flush(stat_scan *st, char **err)
{
    if (!st->open)
        return 0;
    st->open = 0;
    stat_rows *x = st->out;
    if (!st->rows[0] || !st->rows[1]) {
        st->without_rows++;
        st->rows[0] = st->rows[1] = 0;
        return 0;
    }
    const char *params = x->points.data + st->params_at;
    size_t width = st->read->column_count - st->carried;
    if (stat_read_runs(st, err) != 0)
        return -1;
    for (size_t c = 0; c < width; c++) {
        const table_column *col = &st->read->columns[st->carried + c];
        stat_sample sample[2];
        if (stat_sample_of(st, 0, c, &sample[0], err) != 0 ||
            stat_sample_of(st, 1, c, &sample[1], err) != 0)
            return -1;
        stats_summary s[2];
        for (int side = 0; side < 2; side++)
            s[side] = sample[side].summary_only
                          ? sample[side].summary
                          : stats_summarize(sample[side].values, sample[side].n);
        stats_comparison cmp;
        if (stats_compare(&s[0], &s[1], STAT_LEVEL, &cmp) != 0) {
            int side = s[0].n < 2 ? 0 : 1;
            st->refused = 1;
            return util_fail(err,
                             "diff --stat: column '%s' has %zu value%s at %s %s in sweep %lld; "
                             "a comparison needs at least 2 on each side: %s",
                             col->name, s[side].n, s[side].n == 1 ? "" : "s", st->plugin, params,
                             (long long)(side ? st->job->b : st->job->a),
                             st->is_command
                                 ? "give the command repeats = N (N >= 2: each run is stored "
                                   "and compared; docs/command-experiments.md)"
                                 : "have the plugin emit several rows per point, or sweep a "
                                   "command with repeats = N");
        }
        stat_result res;
        if (stat_test(st, sample, s, &cmp, &res, err) != 0)
            return -1;
        int past = 0;
        const char *verdict = verdict_of(&res, is_time_unit(col->unit), st->tolerance, &past);
        st->past_tolerance += past;
        if (stat_rows_reserve(x) != 0)
            return util_fail(err, "out of memory");
        x->point_at[x->count] = st->params_at;
        x->rows[x->count++] = (store_stat_diff_row){ .plugin = st->plugin,
                                                     .column = col->name,
                                                     .unit = col->unit,
                                                     .verdict = verdict,
                                                     .section_a = st->section[0],
                                                     .section_b = st->section[1],
                                                     .n_a = (int64_t)s[0].n,
                                                     .mean_a = s[0].mean,
                                                     .sd_a = s[0].sd,
                                                     .n_b = (int64_t)s[1].n,
                                                     .mean_b = s[1].mean,
                                                     .sd_b = s[1].sd,
                                                     .ratio = res.ratio,
                                                     .ratio_low = res.ratio_low,
                                                     .ratio_high = res.ratio_high,
                                                     .p_value = res.p_value,
                                                     .test = res.test };
        memcpy(x->rows[x->count - 1].outliers, res.outliers, sizeof res.outliers);
    }
    st->compared++;
    st->rows[0] = st->rows[1] = 0;
    return 0;
}

/* Keeps one side's row of the point being gathered. */
static int stat_keep(stat_scan *st, int side, const store_stream_row *r, char **err)
{
    size_t width = st->read->column_count - st->carried;
    if (st->rows[side] == st->capacity[side]) {
        size_t capacity = st->capacity[side] ? 2 * st->capacity[side] : 8;
        double *cells = realloc(st->cells[side], capacity * (width ? width : 1) * sizeof *cells);
        if (!cells)
            return util_fail(err, "out of memory");
        st->cells[side] = cells;
        st->capacity[side] = capacity;
    }
    for (size_t c = 0; c < width; c++)
        st->cells[side][st->rows[side] * width + c] = value_number(&r->cells[st->carried + c]);
    if (st->rows[side] == 0 && st->wall >= 0) {
        double *w = st->wall_summary[side];
        w[0] = value_number(&r->cells[st->carried + (size_t)st->wall]);
        w[1] = st->wall_sd >= 0 ? value_number(&r->cells[st->wall_sd]) : 0;
        w[2] = st->wall_runs >= 0 ? value_number(&r->cells[st->wall_runs]) : 1;
        if (!(w[2] >= 1))
            w[2] = 1; /* repeats = 1: the runs column is NULL */
    }
    st->rows[side]++;
    return 0;
}

/* diff_scope.visit: a matched point's rows come together (pairs first, then
 * one side's rest), the first marked by the scan; a row of an unmatched
 * point closes the gathered one. */
static int stat_visit(void *ctx, const diff_row *row, char **err)
{
    stat_scan *st = ctx;
    if (!row->matched)
        return stat_flush(st, err);
    const store_stream_row *side[2] = { row->a, row->b };
    if (row->point_start) {
        if (stat_flush(st, err) != 0)
            return -1;
        const char *params = (side[0] ? side[0] : side[1])->params_json;
        st->params_at = st->out->points.len;
        strbuf_add(&st->out->points, params, strlen(params) + 1);
        if (st->out->points.oom)
            return util_fail(err, "out of memory");
        st->section[0] = st->section[1] = 0;
        st->point_id[0] = st->point_id[1] = 0;
        st->open = 1;
    }
    for (int i = 0; i < 2; i++)
        if (side[i]) {
            st->section[i] = side[i]->section_id;
            if (!st->point_id[i])
                st->point_id[i] = side[i]->point_id;
            if (stat_keep(st, i, side[i], err) != 0)
                return -1;
        }
    return 0;
}

/* The columns --stat reads for plugin p: helpers, then the compared ones.
 * 0, or EXIT_USAGE after printing why. */
static int stat_columns(store *s, const diff_job *job, size_t p, const char *wanted, stat_scan *st)
{
    const table *outputs = job->columns[p];
    char *version = NULL, *sha = NULL, *err = NULL;
    int is_command = 0;
    for (int side = 0; side < 2 && !is_command; side++) {
        if (store_sweep_plugin_file(s, side ? job->b : job->a, job->plugins[p], &version, &sha,
                                    &err) != 0)
            return cli_fail(err);
        is_command = version && strcmp(version, "command") == 0;
        free(version);
        free(sha);
        version = sha = NULL;
    }
    /* The helpers are looked up among every output: --columns wall_s
     * names the column compared, not the ones that say its spread. */
    long sd = table_find_column(job->outputs[p], "wall_sd_s"),
         runs = table_find_column(job->outputs[p], "wall_runs");
    st->is_command = is_command;
    if (!(st->read = table_new(job->plugins[p])))
        return cli_fail(NULL);
    st->wall = st->wall_sd = st->wall_runs = -1;
    int bad = 0;
    if (is_command && sd >= 0 && runs >= 0) {
        st->wall_sd = 0;
        st->wall_runs = 1;
        st->carried = 2;
        bad = table_add_column(st->read, "wall_sd_s", "s", RUNNER_REAL, 0) != 0 ||
              table_add_column(st->read, "wall_runs", "", RUNNER_INTEGER, 0) != 0;
    }
    for (size_t c = 0; !bad && c < outputs->column_count; c++) {
        const table_column *col = &outputs->columns[c];
        const char *why = NULL;
        if (!value_type_is_numeric(col->type))
            why = "is not numeric";
        else if (is_command && is_command_point_column(col->name))
            why = "is one value per point of a command (--stat compares wall_s and the declared "
                  "columns)";
        else if (is_command && strcmp(col->name, "wall_s") == 0 && st->carried == 0 &&
                 (!wanted || !listed(wanted, col->name)))
            continue; /* one run a point (repeats = 1): nothing to compare unless asked */
        if (why) {
            if (!wanted || !listed(wanted, col->name))
                continue;
            cli_error("diff --stat: column '%s' of %s %s", col->name, job->plugins[p], why);
            return EXIT_USAGE;
        }
        if (is_command && strcmp(col->name, "wall_s") == 0)
            st->wall = (long)(st->read->column_count - st->carried);
        bad = table_add_column(st->read, col->name, col->unit, col->type, 0) != 0;
    }
    return bad ? cli_fail(NULL) : EXIT_OK;
}

static table *stat_table(const diff_job *job)
{
    char *title =
        util_format("sweep %lld vs sweep %lld: repeats", (long long)job->a, (long long)job->b);
    table *t = table_new(title);
    free(title);
    static const struct {
        const char *name;
        runner_type type;
    } columns[] = {
        { "plugin", RUNNER_TEXT },        { "point", RUNNER_TEXT },
        { "column", RUNNER_TEXT },        { "n_a", RUNNER_INTEGER },
        { "mean_a", RUNNER_REAL },        { "sd_a", RUNNER_REAL },
        { "n_b", RUNNER_INTEGER },        { "mean_b", RUNNER_REAL },
        { "sd_b", RUNNER_REAL },          { "ratio", RUNNER_REAL },
        { "ratio_low", RUNNER_REAL },     { "ratio_high", RUNNER_REAL },
        { "p_value", RUNNER_REAL },       { "test", RUNNER_TEXT },
        { "outliers_a", RUNNER_INTEGER }, { "outliers_b", RUNNER_INTEGER },
        { "verdict", RUNNER_TEXT },
    };
    for (size_t i = 0; t && i < sizeof columns / sizeof *columns; i++)
        if (table_add_column(t, columns[i].name, "", columns[i].type, i < 2) != 0) {
            table_free(t);
            return NULL;
        }
    return t;
}

/* output_row_fn: result row i as the printed table's 17 cells. */
static void stat_cells(void *ctx, size_t i, value *cell)
{
    const store_stat_diff_row *x = &((const stat_rows *)ctx)->rows[i];
    const char *text[] = { x->plugin, x->point, x->column };
    for (int k = 0; k < 3; k++)
        cell[k] = (value){ .type = RUNNER_TEXT, .as.text = (char *)text[k] };
    cell[3] = value_integer(x->n_a);
    cell[4] = value_real(x->mean_a);
    cell[5] = value_real(x->sd_a);
    cell[6] = value_integer(x->n_b);
    cell[7] = value_real(x->mean_b);
    cell[8] = value_real(x->sd_b);
    cell[9] = value_real(x->ratio);
    cell[10] = value_real(x->ratio_low);
    cell[11] = value_real(x->ratio_high);
    cell[12] = value_real(x->p_value);
    cell[13] = (value){ .type = RUNNER_TEXT, .as.text = (char *)x->test };
    for (int side = 0; side < 2; side++)
        cell[14 + side] = x->outliers[side][0] < 0
                              ? VALUE_NULL
                              : value_integer(x->outliers[side][0] + x->outliers[side][1]);
    cell[16] = (value){ .type = RUNNER_TEXT, .as.text = (char *)x->verdict };
}

/* The line under the table that adds up the outliers of both sides (of
 * the rows that counted them), mild and severe apart. */
static void print_outliers(const diff_job *job, const stat_rows *out)
{
    int64_t sum[2][2] = { { 0 } };
    int counted = 0;
    for (size_t i = 0; i < out->count; i++)
        for (int side = 0; side < 2; side++)
            for (int k = 0; k < 2; k++)
                if (out->rows[i].outliers[side][k] >= 0) {
                    sum[side][k] += out->rows[i].outliers[side][k];
                    counted = 1;
                }
    if (counted)
        printf("outliers (Tukey's fences): sweep %lld %lld mild, %lld severe; sweep %lld %lld "
               "mild, %lld severe\n",
               (long long)job->a, (long long)sum[0][0], (long long)sum[0][1], (long long)job->b,
               (long long)sum[1][0], (long long)sum[1][1]);
}

/* diff --stat: every plugin's matched points, column by column, read
 * through s as the plain diff reads them, stored through writer. Returns
 * EXIT_OK, EXIT_DIFFERENT (a significant change past the tolerance) or
 * EXIT_USAGE (printed). */
static int run_stat(const options_parsed *a, diff_job *job, store *s, store *writer)
{
    const option_value *v = a->values;
    const char *wanted = v[OPTION_COLUMNS].text;
    diff_tolerance exact = { 0 };
    double tolerance = v[OPTION_TOLERANCE].given ? v[OPTION_TOLERANCE].seconds : 0;
    stat_rows out = { 0 };
    int64_t id = 0;
    char *err = NULL;
    uint64_t compared = 0, without_rows = 0, only = 0, past = 0;
    int status = EXIT_OK;
    /* per plugin, the columns read: the result rows borrow their names */
    table **reads = calloc(job->plugin_count + 1, sizeof *reads);
    if (!reads || !(job->results = calloc(job->plugin_count + 1, sizeof *job->results))) {
        free(reads);
        return cli_fail(NULL);
    }
    for (size_t p = 0; p < job->plugin_count && status == EXIT_OK; p++) {
        stat_scan st = { .job = job,
                         .plugin = job->plugins[p],
                         .tolerance = tolerance,
                         .test = v[OPTION_STAT_TEST].text,
                         .out = &out };
        status = stat_columns(s, job, p, wanted, &st);
        if (status == EXIT_OK && st.read->column_count == st.carried) {
            stat_scan_clear(&st);
            continue; /* nothing numeric to compare in this plugin */
        }
        diff_scope scope = { .carried = st.carried, .visit = stat_visit, .ctx = &st };
        if (status == EXIT_OK && stat_open_runs(s, &st, &err) != 0)
            status = cli_fail(err);
        if (status == EXIT_OK && (diff_plugin_scan(s, job->a, job->b, job->plugins[p], st.read,
                                                   &exact, &scope, &job->results[p], &err) != 0 ||
                                  stat_flush(&st, &err) != 0))
            status = st.refused ? (cli_error("%s", err), free(err), EXIT_USAGE) : cli_fail(err);
        compared += st.compared;
        without_rows += st.without_rows;
        past += st.past_tolerance;
        only += job->results[p].only_a + job->results[p].only_b;
        reads[p] = st.read;
        st.read = NULL;
        stat_scan_clear(&st);
    }
    if (status == EXIT_OK && compared == 0) {
        cli_error("diff --stat: sweeps %lld and %lld have no point with rows on both sides "
                  "to compare",
                  (long long)job->a, (long long)job->b);
        status = EXIT_USAGE;
    }
    table *head = status == EXIT_OK ? stat_table(job) : NULL;
    if (status == EXIT_OK && !head)
        status = cli_fail(NULL);
    if (status == EXIT_OK) {
        /* Stored before it is printed: a comparison that cannot be stored
         * is not shown as if it were. */
        stat_rows_settle(&out);
        store_stat_diff stored = { .sweep_a = job->a,
                                   .sweep_b = job->b,
                                   .tolerance_s = tolerance,
                                   .confidence = STAT_LEVEL,
                                   .compared = (int64_t)compared,
                                   .past_tolerance = (int64_t)past,
                                   .row_count = out.count,
                                   .rows = out.rows };
        if (store_stat_diff_write(writer, &stored, &id, &err) != 0)
            status = cli_fail(err);
    }
    output_format format = OUTPUT_TABLE;
    output_parse_format(v[OPTION_DIFF_FORMAT].text, &format);
    size_t width = output_terminal_width(stdout, v[OPTION_SHOW_WIDE].given);
    if (status == EXIT_OK &&
        table_view_rows(stdout, head, format, out.count, stat_cells, &out, width) != 0)
        status = cli_fail(util_format("cannot write the comparison"));
    if (status == EXIT_OK && format == OUTPUT_TABLE) {
        print_outliers(job, &out);
        printf("%llu point%s compared", (unsigned long long)compared, compared == 1 ? "" : "s");
        if (only)
            printf(", %llu in one sweep only", (unsigned long long)only);
        if (without_rows)
            printf(", %llu without rows on a side", (unsigned long long)without_rows);
        printf("\nsweeps %lld and %lld: %s\n", (long long)job->a, (long long)job->b,
               past ? "a significant change past the tolerance"
                    : "no significant change past "
                      "the tolerance");
        printf("stored as stat_diff %lld: stat_diff_row holds these rows (docs/analysis.md)\n",
               (long long)id);
    }
    table_free(head);
    stat_rows_clear(&out);
    for (size_t p = 0; p < job->plugin_count; p++)
        table_free(reads[p]);
    free(reads);
    if (status != EXIT_OK)
        return status;
    return past ? EXIT_DIFFERENT : EXIT_OK;
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
        status = run_stat(a, &job, s, writer);
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
