/* exec_point: one point of a command experiment: its working directory,
 * argv and environment, warmup and measured runs, failures in words, rows
 * from stdout with the measured columns, artifacts. */
#define _GNU_SOURCE /* sigabbrev_np */
#include "exec_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "base/value.h"

extern char **environ;

#define STDERR_TAIL_LINES 5
#define STDERR_TAIL_LINE_MAX 200
#define OUTLIER_Z 3.5      /* modified z-score (Iglewicz and Hoaglin) */
#define OUTLIER_MIN_RUNS 5 /* fewer runs say nothing about outliers */

typedef struct point_job {
    exec_command *c;
    const runner_host *host;
    runner_point *point;
    char *dir;
    char **argv, **envp;
    size_t argc, envc;
    size_t env_borrowed; /* envp's first entries point into environ: not owned */
} point_job;

static void free_strings(char **list, size_t count)
{
    for (size_t i = 0; list && i < count; i++)
        free(list[i]);
    free(list);
}

static void point_job_free(point_job *j)
{
    free_strings(j->argv, j->argc);
    for (size_t i = j->env_borrowed; j->envp && i < j->envc; i++)
        free(j->envp[i]);
    free(j->envp);
    if (j->dir)
        execi_point_dir_done(j->c, j->dir);
}

static int build_argv(point_job *j, char **err)
{
    const exec_command *c = j->c;
    size_t n = c->settings.shell ? 3 : c->argc;
    j->argv = calloc(n + 1, sizeof *j->argv);
    if (!j->argv)
        return util_fail(err, "out of memory");
    j->argc = n;
    if (c->settings.shell) {
        j->argv[0] = util_strdup("sh");
        j->argv[1] = util_strdup("-c");
        j->argv[2] =
            exec_substitute(c->argv[0], &c->desc, j->point->params, j->point->seed, 1, err);
        return j->argv[0] && j->argv[1] && j->argv[2] ? 0 : -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!(j->argv[i] =
                  exec_substitute(c->argv[i], &c->desc, j->point->params, j->point->seed, 0, err)))
            return -1;
    return 0;
}

static int ours(const char *entry)
{
    return strncmp(entry, "RUNNER_PARAM_", 13) == 0 || strncmp(entry, "RUNNER_SEED=", 12) == 0 ||
           strncmp(entry, "RUNNER_POINT_DIR=", 17) == 0;
}

/* runner's environment, less what it sets, plus RUNNER_PARAM_<NAME>,
 * RUNNER_SEED and RUNNER_POINT_DIR. The inherited entries are borrowed
 * from environ, not copied: nothing in runner changes its environment
 * while a sweep runs. */
static int build_env(point_job *j, char **err)
{
    const exec_command *c = j->c;
    size_t inherited = 0;
    while (environ[inherited])
        inherited++;
    j->envp = calloc(inherited + c->param_count + 3, sizeof *j->envp);
    if (!j->envp)
        return util_fail(err, "out of memory");
    for (size_t i = 0; i < inherited; i++)
        if (!ours(environ[i]))
            j->envp[j->envc++] = environ[i];
    j->env_borrowed = j->envc;
    for (size_t i = 0; i < c->param_count; i++) {
        char text[4096];
        const value *v = &j->point->params[i];
        const char *shown =
            v->type == RUNNER_TEXT ? v->as.text : exec_value_text(v, text, sizeof text);
        char variable[80];
        exec_param_variable(c->params[i].name, variable, sizeof variable);
        if (!(j->envp[j->envc++] = util_format("%s=%s", variable, shown)))
            return util_fail(err, "out of memory");
    }
    j->envp[j->envc++] = util_format("RUNNER_SEED=%llu", (unsigned long long)j->point->seed);
    j->envp[j->envc++] = util_format("RUNNER_POINT_DIR=%s", j->dir);
    return j->envp[j->envc - 1] && j->envp[j->envc - 2] ? 0 : util_fail(err, "out of memory");
}

/* The last lines of stderr, joined with " | ", each cut. */
static void stderr_tail(const exec_spawn_result *r, char *out, size_t size)
{
    const char *end = r->err + r->err_len;
    while (end > r->err && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    const char *start = end;
    for (int lines = 0; start > r->err && lines < STDERR_TAIL_LINES;) {
        start--;
        if (*start == '\n' && ++lines == STDERR_TAIL_LINES) {
            start++;
            break;
        }
    }
    size_t used = 0;
    out[0] = '\0';
    while (start < end && used + 1 < size) {
        size_t len = strcspn(start, "\n");
        if (start + len > end)
            len = (size_t)(end - start);
        int cut = len > STDERR_TAIL_LINE_MAX;
        int n = snprintf(out + used, size - used, "%s%.*s%s", used ? " | " : "",
                         (int)(cut ? STDERR_TAIL_LINE_MAX : len), start, cut ? "..." : "");
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
        start += len + 1;
    }
}

/* Fails the point for a run that did not exit 0; 0 when it did. */
static int judge_run(point_job *j, const exec_spawn_result *r)
{
    const runner_host *h = j->host;
    char tail[1200];
    stderr_tail(r, tail, sizeof tail);
    const char *sep = *tail ? "; stderr: " : "";
    if (r->timed_out) {
        j->point->timed_out = 1;
        return h->fail(j->point, "timed out after %g s; its process group was killed%s%s",
                       j->c->settings.timeout_s, sep, tail);
    }
    if (r->stopped)
        return h->fail(j->point, "stopped by a stop request");
    if (r->signal) {
        const char *abbrev = sigabbrev_np(r->signal);
        return h->fail(j->point, "killed by signal %d (SIG%s: %s)%s%s", r->signal,
                       abbrev ? abbrev : "?", strsignal(r->signal), sep, tail);
    }
    if (r->exit_status != 0)
        return h->fail(j->point, "exited with status %d%s%s", r->exit_status, sep, tail);
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct run_stats {
    double wall_mean, wall_sd, wall_min, wall_median, wall_max, user_mean, sys_mean;
    long max_rss_kib;
    int outliers;
    char outlier_runs[160]; /* "run 4 (0.31 s), run 9 (0.29 s)": which ones, as stored */
} run_stats;

static double median_of_sorted(const double *x, size_t n)
{
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Mean, sample standard deviation, min, median, max of the wall times, and
 * which runs lie far from the median (modified z-score over the median
 * absolute deviation), named by their number in command_run (first_run is
 * the number of wall[0]). wall is left unchanged. */
static void summarize(const double *wall, size_t n, int first_run, run_stats *s)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += wall[i];
    s->wall_mean = sum / (double)n;
    double squares = 0;
    for (size_t i = 0; i < n; i++)
        squares += (wall[i] - s->wall_mean) * (wall[i] - s->wall_mean);
    s->wall_sd = n > 1 ? sqrt(squares / (double)(n - 1)) : 0;
    double *sorted = malloc(2 * n * sizeof *sorted);
    s->outliers = 0;
    s->outlier_runs[0] = '\0';
    if (!sorted) { /* no memory for the order statistics: the mean's neighbours */
        s->wall_min = s->wall_max = s->wall_median = s->wall_mean;
        return;
    }
    double *dev = sorted + n;
    memcpy(sorted, wall, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    s->wall_min = sorted[0];
    s->wall_max = sorted[n - 1];
    s->wall_median = median_of_sorted(sorted, n);
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(wall[i] - s->wall_median);
    qsort(dev, n, sizeof *dev, compare_doubles);
    double mad = median_of_sorted(dev, n);
    size_t used = 0;
    for (size_t i = 0; mad > 0 && n >= OUTLIER_MIN_RUNS && i < n; i++) {
        if (!(0.6745 * fabs(wall[i] - s->wall_median) / mad > OUTLIER_Z))
            continue;
        s->outliers++;
        size_t room = sizeof s->outlier_runs - used;
        int len = snprintf(s->outlier_runs + used, room, "%srun %d (%.3g s)", used ? ", " : "",
                           first_run + (int)i, wall[i]);
        if (len > 0 && (size_t)len < room)
            used += (size_t)len;
        else if (room > 4) /* the list is cut: say so */
            memcpy(s->outlier_runs + sizeof s->outlier_runs - 5, "...", 4);
    }
    free(sorted);
}

/* The declared columns of the one row this run printed, as a JSON object;
 * NULL when it printed none or several, or cannot be parsed (the last
 * run's parse says why, in emit_rows). */
static char *run_values_json(point_job *j, const exec_spawn_result *r)
{
    const exec_command *c = j->c;
    if (c->declared_columns == 0 || r->out_cut)
        return NULL;
    double limit_s = c->settings.timeout_s > 0 ? c->settings.timeout_s : EXEC_PARSE_DEFAULT_MAX_S;
    exec_parse_bounds bounds = { util_monotonic() + limit_s, limit_s, j->point->stop };
    value *rows = NULL;
    size_t count = 0;
    char *err = NULL, *text = NULL;
    if (exec_parse_within(c->parser, r->out, &bounds, &rows, &count, &err) != 0) {
        free(err);
        return NULL;
    }
    json_t *object = count == 1 ? json_object() : NULL;
    int ok = object != NULL;
    for (size_t i = 0; object && i < c->declared_columns; i++)
        value_json_put(object, c->columns[i].name, value_to_json(&rows[i]), &ok);
    if (ok)
        text = json_dumps(object, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(object);
    for (size_t i = 0; i < count * c->declared_columns; i++)
        value_clear(&rows[i]);
    free(rows);
    return text;
}

/* Keeps run r (numbered from 1 among all the point's runs) as a row of
 * command_run. -1 when memory runs out. */
static int keep_run(point_job *j, const exec_spawn_result *r, int warmup)
{
    point_runs *list = j->point->runs;
    point_run run = {
        .warmup = warmup,
        .exit_status = r->exited ? r->exit_status : -1,
        .wall_s = r->wall_s,
        .user_s = r->user_s,
        .sys_s = r->sys_s,
        .max_rss_kib = r->max_rss_kib,
        .voluntary_switches = r->voluntary_switches,
        .involuntary_switches = r->involuntary_switches,
        .values_json = r->exited && r->exit_status == 0 ? run_values_json(j, r) : NULL,
    };
    return point_runs_append(list, &run);
}

/* Warmup and measured runs, each kept in point->runs (with repeats or
 * warmup); *last keeps the last run's output. */
static int run_all(point_job *j, run_stats *stats, exec_spawn_result *last)
{
    const exec_settings *s = &j->c->settings;
    exec_spawn_request req = {
        .path = j->c->path,
        .argv = j->argv,
        .envp = j->envp,
        .cwd = j->dir,
        .timeout_s = s->timeout_s,
        .output_cap_bytes = s->output_max_bytes,
        .stop = j->point->stop,
        .marker = j->envp[j->envc - 1], /* RUNNER_POINT_DIR=..., unique to the point */
    };
    exec_watchers watchers;
    exec_watchers_begin(&watchers, &req, j->point);
    int total = s->warmup + s->repeats;
    double *wall = calloc((size_t)s->repeats, sizeof *wall);
    int keep = total > 1;
    if (keep && !j->point->runs)
        j->point->runs = calloc(1, sizeof *j->point->runs);
    if (!wall || (keep && !j->point->runs)) {
        free(wall);
        return j->host->fail(j->point, "out of memory");
    }
    double user = 0, sys = 0;
    stats->max_rss_kib = 0;
    for (int run = 0; run < total; run++) {
        exec_spawn_result_free(last);
        char *err = NULL;
        if (exec_spawn_run(&req, last, &err) != 0) {
            j->host->fail(j->point, "%s", err ? err : "out of memory");
            free(err);
            free(wall);
            return RUNNER_ERROR;
        }
        /* A run that was stopped or timed out is no measurement. */
        if (keep && !last->timed_out && !last->stopped && keep_run(j, last, run < s->warmup)) {
            free(wall);
            return j->host->fail(j->point, "out of memory");
        }
        exec_watchers_run_end(&watchers, last);
        if (judge_run(j, last) != 0) {
            free(wall);
            return RUNNER_ERROR;
        }
        if (run < s->warmup)
            continue;
        wall[run - s->warmup] = last->wall_s;
        user += last->user_s;
        sys += last->sys_s;
        if (last->max_rss_kib > stats->max_rss_kib)
            stats->max_rss_kib = last->max_rss_kib;
    }
    summarize(wall, (size_t)s->repeats, s->warmup + 1, stats);
    stats->user_mean = user / s->repeats;
    stats->sys_mean = sys / s->repeats;
    free(wall);
    return RUNNER_OK;
}

static int set_cell(const runner_host *h, runner_point *p, size_t col, const value *v)
{
    switch (v->type) {
    case RUNNER_INTEGER: return h->set_integer(p, col, v->as.integer);
    case RUNNER_REAL: return h->set_real(p, col, v->as.real);
    case RUNNER_BOOLEAN: return h->set_boolean(p, col, v->as.boolean);
    case RUNNER_TEXT: return h->set_text(p, col, v->as.text);
    }
    return RUNNER_OK;
}

static int emit_rows(point_job *j, const run_stats *st, exec_spawn_result *last)
{
    const exec_command *c = j->c;
    const runner_host *h = j->host;
    value *rows = NULL;
    size_t count = 0;
    char *err = NULL;
    if (last->out_cut) { /* the cut may fall inside a line: drop that part */
        char *end = strrchr(last->out, '\n');
        *(end ? end + 1 : last->out) = '\0';
    }
    /* Parsing runs in runner's process: it gets the command's timeout (or
     * its own bound) and stops at a stop request, like the runs did. */
    double limit_s = c->settings.timeout_s > 0 ? c->settings.timeout_s : EXEC_PARSE_DEFAULT_MAX_S;
    exec_parse_bounds bounds = { util_monotonic() + limit_s, limit_s, j->point->stop };
    if (exec_parse_within(c->parser, last->out, &bounds, &rows, &count, &err) != 0) {
        h->fail(j->point, "%s%s", err ? err : "out of memory",
                last->out_cut ? " (stdout was cut at output_max_bytes)" : "");
        free(err);
        return RUNNER_ERROR;
    }
    if (count == 0 && c->declared_columns > 0)
        return h->fail(j->point, "printed no result row on stdout (output = %s)",
                       c->settings.output == EXEC_OUTPUT_JSONL ? "\"jsonl\", one JSON object a line"
                       : c->settings.output == EXEC_OUTPUT_KEYVALUE
                           ? "\"keyvalue\", name=value lines"
                           : "patterns");
    size_t m = c->declared_columns;
    int rc = RUNNER_OK;
    for (size_t r = 0; r < (count ? count : 1) && rc == RUNNER_OK; r++) {
        for (size_t i = 0; i < m && rc == RUNNER_OK; i++)
            rc = set_cell(h, j->point, i, &rows[r * m + i]);
        h->set_real(j->point, m, st->wall_mean);
        h->set_real(j->point, m + 1, st->user_mean);
        h->set_real(j->point, m + 2, st->sys_mean);
        h->set_integer(j->point, m + 3, st->max_rss_kib);
        h->set_integer(j->point, m + 4, last->exit_status);
        if (c->settings.repeats > 1) {
            h->set_real(j->point, m + 5, st->wall_sd);
            h->set_real(j->point, m + 6, st->wall_min);
            h->set_real(j->point, m + 7, st->wall_median);
            h->set_real(j->point, m + 8, st->wall_max);
            h->set_integer(j->point, m + 9, c->settings.repeats);
        }
        if (rc == RUNNER_OK)
            rc = h->emit_row(j->point);
    }
    for (size_t i = 0; i < count * m; i++)
        value_clear(&rows[i]);
    free(rows);
    return rc;
}

int execi_run(const runner_host *host, runner_point *point)
{
    exec_command *c = (exec_command *)point->plugin;
    point_job j = { .c = c, .host = host, .point = point };
    exec_spawn_result last = { 0 };
    char *err = NULL;
    unsigned long long n = atomic_fetch_add(&c->next_dir, 1);
    j.dir = util_format("%s/p%llu-%llu", c->work_root, (unsigned long long)point->index, n);
    int rc = RUNNER_ERROR;
    if (!j.dir || execi_point_dir_make(c, j.dir) != 0) {
        host->fail(point, "cannot make the point's directory %s: %s", j.dir ? j.dir : "",
                   j.dir ? strerror(errno) : "out of memory");
        free(j.dir);
        j.dir = NULL;
        goto done;
    }
    if (build_argv(&j, &err) != 0 || build_env(&j, &err) != 0) {
        host->fail(point, "%s", err ? err : "out of memory");
        goto done;
    }
    run_stats stats = { 0 };
    if (run_all(&j, &stats, &last) != RUNNER_OK)
        goto done;
    if (last.out_cut || last.err_cut)
        host->log(point, RUNNER_LOG_WARNING,
                  "point %llu: %s%s%s cut at %llu bytes "
                  "(output_max_bytes)",
                  (unsigned long long)point->index, last.out_cut ? "stdout" : "",
                  last.out_cut && last.err_cut ? " and " : "", last.err_cut ? "stderr" : "",
                  (unsigned long long)c->settings.output_max_bytes);
    if (stats.outliers > 0)
        host->log(point, RUNNER_LOG_WARNING,
                  "point %llu: %d of %d wall times lie far from "
                  "the median (%.3g s; min %.3g s, max %.3g s): %s (runner show --runs); "
                  "something else ran on the machine, or the first runs warmed caches "
                  "(try warmup)",
                  (unsigned long long)point->index, stats.outliers, c->settings.repeats,
                  stats.wall_median, stats.wall_min, stats.wall_max, stats.outlier_runs);
    rc = emit_rows(&j, &stats, &last);
done:
    if (j.dir && (last.out || last.err))
        point->artifacts = execi_collect_artifacts(c, host, point, j.dir, &last);
    free(err);
    exec_spawn_result_free(&last);
    point_job_free(&j);
    return rc;
}
