/* cli_diff_stat: `runner diff --stat A B`: each column's repeats (a
 * command's stored runs, or the rows of a point) compared with their noise
 * by the chosen test, outliers counted, the comparison stored; cli_diff.c
 * chooses the sweeps and columns. docs/analysis.md has the method. */
#include "base/exit_status.h"
#include "cli_diff_int.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "render/render.h"

/* --- --stat: repeats compared with their noise (docs/analysis.md) ------ */

#define STAT_LEVEL 0.95 /* the intervals' confidence */
#define STAT_ALPHA 0.05 /* a change is significant when p < STAT_ALPHA */

/* 1 when name is in the comma-separated list (NULL: every name is). */
int diff_listed(const char *list, const char *name)
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
    double (*shift)[3]; /* row i's Hodges-Lehmann shift, low, high (NaN: none) */
    size_t count, capacity;
    strbuf points;
} stat_rows;

static void stat_rows_clear(stat_rows *x)
{
    free(x->rows);
    free(x->point_at);
    free(x->shift);
    strbuf_free(&x->points);
}

static void stat_rows_settle(stat_rows *x)
{
    for (size_t i = 0; i < x->count; i++)
        x->rows[i].point = x->points.data + x->point_at[i];
}

/* --- the rows in the grid's order ----------------------------------------
 * The scan meets points in the byte order of their parameters' text (the
 * merge of the two sweeps' streams), which puts {"size":16} before
 * {"size":2}. The rows are shown and stored by the parameters' values as
 * typed instead: numbers numerically, text by its bytes, key by key in the
 * point's own order; a plugin's rows stay together, in the order read. */

/* JSON types in a fixed order, for values of different types. */
static int json_rank(const json_t *v)
{
    return json_is_null(v)      ? 0
           : json_is_boolean(v) ? 1
           : json_is_number(v)  ? 2
           : json_is_string(v)  ? 3
                                : 4;
}

static int params_value_cmp(const json_t *x, const json_t *y)
{
    int rx = json_rank(x), ry = json_rank(y);
    if (rx != ry)
        return rx < ry ? -1 : 1;
    if (rx == 1)
        return json_is_true(x) - json_is_true(y);
    if (rx == 2) {
        double a = json_number_value(x), b = json_number_value(y);
        return a < b ? -1 : a > b;
    }
    if (rx == 3)
        return strcmp(json_string_value(x), json_string_value(y));
    return 0;
}

/* A point's parameters against another's; 0 when neither parses. */
static int params_cmp(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    const char *key;
    json_t *va;
    json_object_foreach((json_t *)a, key, va)
    {
        const json_t *vb = json_object_get(b, key);
        if (!vb)
            return -1;
        int c = params_value_cmp(va, vb);
        if (c)
            return c;
    }
    return json_object_size(a) < json_object_size(b) ? -1 : 0;
}

typedef struct stat_order {
    size_t index;   /* the row's place as read */
    json_t *params; /* its point's parameters (shared by the point's rows) */
    const char *plugin;
} stat_order;

static int stat_order_cmp(const void *l, const void *r)
{
    const stat_order *x = l, *y = r;
    int c = strcmp(x->plugin, y->plugin) ? 0 : params_cmp(x->params, y->params);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Puts the settled rows in their points' typed order; 0, or -1 out of
 * memory (the rows then stay as read). */
static int stat_rows_sort(stat_rows *x)
{
    size_t n = x->count;
    stat_order *order = n ? calloc(n, sizeof *order) : NULL;
    store_stat_diff_row *rows = n ? malloc(n * sizeof *rows) : NULL;
    size_t *point_at = n ? malloc(n * sizeof *point_at) : NULL;
    double(*shift)[3] = n ? malloc(n * sizeof *shift) : NULL;
    int rc = n && (!order || !rows || !point_at || !shift) ? -1 : 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        order[i].index = i;
        order[i].plugin = x->rows[i].plugin;
        order[i].params = i && x->point_at[i] == x->point_at[i - 1]
                              ? json_incref(order[i - 1].params)
                              : json_loads(x->rows[i].point, 0, NULL);
    }
    if (rc == 0 && n) {
        qsort(order, n, sizeof *order, stat_order_cmp);
        for (size_t i = 0; i < n; i++) {
            rows[i] = x->rows[order[i].index];
            point_at[i] = x->point_at[order[i].index];
            memcpy(shift[i], x->shift[order[i].index], sizeof shift[i]);
        }
        memcpy(x->rows, rows, n * sizeof *rows);
        memcpy(x->point_at, point_at, n * sizeof *point_at);
        memcpy(x->shift, shift, n * sizeof *shift);
    }
    for (size_t i = 0; order && i < n; i++)
        json_decref(order[i].params);
    free(order);
    free(rows);
    free(point_at);
    free(shift);
    return rc;
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
    double shift[3];        /* mwu: Hodges-Lehmann shift of b against a, its interval */
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
                        .shift = { NAN, NAN, NAN },
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
        robust_hl hl; /* 1: too many pairs, no shift printed */
        if (robust_hodges_lehmann(x[0], s[0].n, x[1], s[1].n, STAT_LEVEL, &hl) < 0)
            return util_fail(err, "out of memory");
        r->shift[0] = hl.shift;
        r->shift[1] = hl.low;
        r->shift[2] = hl.high;
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
    double(*shift)[3] = point_at ? realloc(x->shift, capacity * sizeof *shift) : NULL;
    if (shift)
        x->shift = shift;
    if (!shift)
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
        memcpy(x->shift[x->count], res.shift, sizeof res.shift);
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
                 (!wanted || !diff_listed(wanted, col->name)))
            continue; /* one run a point (repeats = 1): nothing to compare unless asked */
        if (why) {
            if (!wanted || !diff_listed(wanted, col->name))
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
        { "shift", RUNNER_REAL },         { "shift_low", RUNNER_REAL },
        { "shift_high", RUNNER_REAL },    { "p_value", RUNNER_REAL },
        { "test", RUNNER_TEXT },          { "outliers_a", RUNNER_INTEGER },
        { "outliers_b", RUNNER_INTEGER }, { "verdict", RUNNER_TEXT },
    };
    for (size_t i = 0; t && i < sizeof columns / sizeof *columns; i++)
        if (table_add_column(t, columns[i].name, "", columns[i].type, i < 2) != 0) {
            table_free(t);
            return NULL;
        }
    return t;
}

/* output_row_fn: result row i as the printed table's 20 cells. */
static void stat_cells(void *ctx, size_t i, value *cell)
{
    const stat_rows *rows = ctx;
    const store_stat_diff_row *x = &rows->rows[i];
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
    for (int k = 0; k < 3; k++) /* NULL, not NaN: the column folds away when no row has one */
        cell[12 + k] = isnan(rows->shift[i][k]) ? VALUE_NULL : value_real(rows->shift[i][k]);
    cell[15] = value_real(x->p_value);
    cell[16] = (value){ .type = RUNNER_TEXT, .as.text = (char *)x->test };
    for (int side = 0; side < 2; side++)
        cell[17 + side] = x->outliers[side][0] < 0
                              ? VALUE_NULL
                              : value_integer(x->outliers[side][0] + x->outliers[side][1]);
    cell[19] = (value){ .type = RUNNER_TEXT, .as.text = (char *)x->verdict };
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
int diff_run_stat(const options_parsed *a, diff_job *job, store *s, store *writer)
{
    const option_value *v = a->values;
    const char *wanted = v[OPTION_COLUMNS].text;
    diff_tolerance exact = { 0 };
    double tolerance = v[OPTION_TOLERANCE].given ? v[OPTION_TOLERANCE].seconds : 0;
    stat_rows out = { 0 };
    int64_t id = 0;
    char *err = NULL, *key_a = NULL, *key_b = NULL, *rows_key = NULL;
    uint64_t compared = 0, without_rows = 0, only = 0, past = 0;
    int status = EXIT_OK, kept = 0;
    /* the key of both sweeps' rows before they are read: rows added
     * meanwhile make the stored comparison stale, never one that looks
     * current */
    if (store_rows_key(s, job->a, 0, &key_a, &err) != 0 ||
        store_rows_key(s, job->b, 0, &key_b, &err) != 0) {
        free(key_a);
        return cli_fail(err);
    }
    rows_key = util_format("%s;%s", key_a, key_b);
    free(key_a);
    free(key_b);
    if (!rows_key)
        return cli_fail(NULL);
    /* per plugin, the columns read: the result rows borrow their names */
    table **reads = calloc(job->plugin_count + 1, sizeof *reads);
    if (!reads || !(job->results = calloc(job->plugin_count + 1, sizeof *job->results))) {
        free(reads);
        free(rows_key);
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
        if (stat_rows_sort(&out) != 0)
            status = cli_fail(NULL);
    }
    if (status == EXIT_OK) {
        store_stat_diff stored = { .sweep_a = job->a,
                                   .sweep_b = job->b,
                                   .tolerance_s = tolerance,
                                   .confidence = STAT_LEVEL,
                                   .compared = (int64_t)compared,
                                   .past_tolerance = (int64_t)past,
                                   .row_count = out.count,
                                   .rows = out.rows,
                                   .test = v[OPTION_STAT_TEST].text,
                                   .columns = wanted,
                                   .rows_key = rows_key };
        int again = v[OPTION_ANSWER_AGAIN].given ? STORE_ANSWER_AGAIN : STORE_ANSWER_KEEP;
        if (store_stat_diff_write(writer, &stored, again, &id, &kept, &err) != 0)
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
        if (kept)
            printf("as stored in stat_diff %lld, which compared the same rows (--again compares "
                   "anew and replaces it)\n",
                   (long long)id);
        else
            printf("stored as stat_diff %lld: stat_diff_row holds these rows (docs/analysis.md)\n",
                   (long long)id);
    }
    table_free(head);
    stat_rows_clear(&out);
    for (size_t p = 0; p < job->plugin_count; p++)
        table_free(reads[p]);
    free(reads);
    free(rows_key);
    if (status != EXIT_OK)
        return status;
    return past ? EXIT_DIFFERENT : EXIT_OK;
}
