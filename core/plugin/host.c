/* host: the function table plugins call, and the life of one point. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "host.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/log.h"
#include "base/util.h"
#include "mpi/mpi_pool.h"
#include "host_int.h"

/* The point this thread is running inside run(), NULL otherwise. Only the
 * thread itself reads or writes it, so asking "is this call mine?" needs no
 * lock and cannot race with the owner (docs/plugin-abi.md, threads). */
static _Thread_local runner_point *host_running;
/* Points inside run() in this process, and the plugin that entered run()
 * last: exit_guard's view of a thread it cannot ask. */
static atomic_int host_running_count;
static _Atomic(const char *) host_last_plugin;

/* Host calls that change or depend on the point's state, refused from a
 * thread that is not running the point (host_misuse names them). */
/* clang-format off */
enum {
    CALL_NONE, CALL_PARAM_INTEGER, CALL_PARAM_REAL, CALL_PARAM_TEXT, CALL_PARAM_BOOLEAN,
    CALL_SET_INTEGER, CALL_SET_REAL, CALL_SET_TEXT, CALL_SET_BOOLEAN, CALL_EMIT_ROW,
    CALL_FAIL, CALL_RANDOM_U64, CALL_RANDOM_UNIFORM, CALL_ALLREDUCE_SUM, CALL_SERIES, CALL_COUNT
};
/* clang-format on */
/* clang-format off */
static const char *const call_names[CALL_COUNT] = {
    "", "param_integer", "param_real", "param_text", "param_boolean", "set_integer",
    "set_real", "set_text", "set_boolean", "emit_row", "fail", "random_u64",
    "random_uniform", "allreduce_sum", "series",
};
/* clang-format on */
#define MISUSE_AFTER_RETURN 0x100 /* or'ed in: the point was not in run() */

/* 1 (and the call is refused) unless this thread is running p. The first
 * refused call is kept in p->misuse by one atomic compare-and-swap: that is
 * all a foreign thread ever writes, so it cannot race with the owner's use of
 * the point's buffers. host_run_point fails the point when run() returns. */
static int refused(runner_point *p, int call)
{
    if (!p || host_running == p)
        return !p;
    int code = call | (atomic_load(&p->in_run) ? 0 : MISUSE_AFTER_RETURN);
    int none = 0;
    atomic_compare_exchange_strong(&p->misuse, &none, code);
    return 1;
}

static void set_error(runner_point *p, char *message)
{
    if (p->error) { /* the first error is the one the user needs */
        free(message);
        return;
    }
    p->error = message ? message : util_strdup("out of memory");
}

static int64_t param_integer(runner_point *p, size_t i)
{
    if (refused(p, CALL_PARAM_INTEGER))
        return 0;
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_INTEGER) {
        set_error(p, util_format("%s asked for parameter %zu as an integer", p->plugin->name, i));
        return 0;
    }
    return p->params[i].as.integer;
}

static double param_real(runner_point *p, size_t i)
{
    if (refused(p, CALL_PARAM_REAL))
        return 0;
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_REAL) {
        set_error(p, util_format("%s asked for parameter %zu as a real", p->plugin->name, i));
        return 0;
    }
    return p->params[i].as.real;
}

static const char *param_text(runner_point *p, size_t i)
{
    if (refused(p, CALL_PARAM_TEXT))
        return "";
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_TEXT) {
        set_error(p, util_format("%s asked for parameter %zu as text", p->plugin->name, i));
        return "";
    }
    return p->params[i].as.text;
}

static int param_boolean(runner_point *p, size_t i)
{
    if (refused(p, CALL_PARAM_BOOLEAN))
        return 0;
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_BOOLEAN) {
        set_error(p, util_format("%s asked for parameter %zu as a boolean", p->plugin->name, i));
        return 0;
    }
    return p->params[i].as.boolean;
}

static int check_column(runner_point *p, size_t i, runner_type type)
{
    /* RUNNER_INTEGER .. RUNNER_BOOLEAN name set_integer .. set_boolean. */
    if (refused(p, CALL_SET_INTEGER + (int)type - RUNNER_INTEGER))
        return RUNNER_ERROR;
    if (i >= p->plugin->column_count) {
        set_error(p, util_format("%s set column %zu, but it declares %u", p->plugin->name, i,
                                 (unsigned)p->plugin->column_count));
        return RUNNER_ERROR;
    }
    if (p->plugin->columns[i].type != type) {
        set_error(p, util_format("%s set column '%s' as %s, but declares it %s", p->plugin->name,
                                 p->plugin->columns[i].name, value_type_name(type),
                                 value_type_name(p->plugin->columns[i].type)));
        return RUNNER_ERROR;
    }
    value_clear(&p->current[i]);
    return RUNNER_OK;
}

static int set_integer(runner_point *p, size_t i, int64_t v)
{
    if (check_column(p, i, RUNNER_INTEGER) != RUNNER_OK)
        return RUNNER_ERROR;
    p->current[i] = value_integer(v);
    return RUNNER_OK;
}

static int set_real(runner_point *p, size_t i, double v)
{
    if (check_column(p, i, RUNNER_REAL) != RUNNER_OK)
        return RUNNER_ERROR;
    /* One zero, as for parameters (param_check): SQLite stores -0.0 as 0.0,
     * so the sign would differ between what Lua sees now and what a resume
     * reads back. */
    p->current[i] = value_real(v == 0 ? 0.0 : v);
    return RUNNER_OK;
}

static int set_text(runner_point *p, size_t i, const char *v)
{
    if (check_column(p, i, RUNNER_TEXT) != RUNNER_OK)
        return RUNNER_ERROR;
    p->current[i] = value_text(v ? v : "");
    if (!p->current[i].type) {
        set_error(p, NULL);
        return RUNNER_ERROR;
    }
    return RUNNER_OK;
}

static int set_boolean(runner_point *p, size_t i, int v)
{
    if (check_column(p, i, RUNNER_BOOLEAN) != RUNNER_OK)
        return RUNNER_ERROR;
    p->current[i] = value_boolean(v != 0);
    return RUNNER_OK;
}

static int emit_row(runner_point *p)
{
    if (refused(p, CALL_EMIT_ROW))
        return RUNNER_ERROR;
    size_t columns = p->plugin->column_count;
    if (p->row_count == p->row_capacity) {
        size_t cap = p->row_capacity ? p->row_capacity * 2 : 4;
        value *rows = realloc(p->rows, cap * columns * sizeof *rows);
        if (!rows) {
            set_error(p, NULL);
            return RUNNER_ERROR;
        }
        p->rows = rows;
        p->row_capacity = cap;
    }
    /* The row takes the current cells (and their text) as they are. */
    memcpy(&p->rows[p->row_count * columns], p->current, columns * sizeof *p->current);
    memset(p->current, 0, columns * sizeof *p->current);
    p->row_count++;
    return RUNNER_OK;
}

/* The plugin's own message, prefixed with its name ("comm: ..."): plugins
 * never name themselves, so every plugin's failures read alike and a
 * message in the point table says who wrote it (docs/plugin-abi.md). */
__attribute__((format(printf, 2, 3))) static int fail(runner_point *p, const char *fmt, ...)
{
    if (refused(p, CALL_FAIL))
        return RUNNER_ERROR;
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    set_error(p, util_format("%s: %s", p->plugin->name, buf));
    return RUNNER_ERROR;
}

__attribute__((format(printf, 3, 4))) static void log_message(runner_point *p,
                                                              runner_log_level level,
                                                              const char *fmt, ...)
{
    static const char *const level_names[] = { "debug", "info", "warning" };
    if (level == RUNNER_LOG_DEBUG && !getenv("RUNNER_DEBUG") && !log_enabled(LOG_LEVEL_DEBUG))
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *name = (unsigned)level <= RUNNER_LOG_WARNING ? level_names[level] : "log";
    log_print(level == RUNNER_LOG_WARNING ? LOG_LEVEL_WARN : LOG_LEVEL_INFO, "runner: %s: %s: %s\n",
              p->plugin->name, name, buf);
}

static uint64_t seed_of(runner_point *p) { return p->seed; }
static uint64_t random_u64(runner_point *p)
{
    return refused(p, CALL_RANDOM_U64) ? 0 : runner_rng_next(&p->rng);
}

static double random_uniform(runner_point *p)
{
    return refused(p, CALL_RANDOM_UNIFORM) ? 0 : runner_rng_uniform(&p->rng);
}

static int should_stop(runner_point *p) { return p->stop && *p->stop; }
static int rank_of(runner_point *p) { return p->rank; }
static int size_of(runner_point *p) { return p->size; }

static int allreduce_sum(runner_point *p, double *values, size_t count)
{
    if (refused(p, CALL_ALLREDUCE_SUM))
        return RUNNER_ERROR;
    if (p->size <= 1 || count == 0)
        return RUNNER_OK;
    if (!values) {
        set_error(p, util_format("%s passed NULL values to allreduce_sum", p->plugin->name));
        return RUNNER_ERROR;
    }
    char *why = NULL;
    if (mpi_pool_allreduce_sum(values, count, &why) != 0) {
        set_error(p, util_format("allreduce_sum of %zu values across %d ranks failed: %s", count,
                                 p->size, why ? why : "out of memory"));
        free(why);
        return RUNNER_ERROR;
    }
    return RUNNER_OK;
}

static int series(runner_point *p, const char *name, double step, double value)
{
    return refused(p, CALL_SERIES) ? RUNNER_ERROR : host_series(p, name, step, value);
}

static const runner_host the_host = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_host),
    .param_integer = param_integer,
    .param_real = param_real,
    .param_text = param_text,
    .param_boolean = param_boolean,
    .set_integer = set_integer,
    .set_real = set_real,
    .set_text = set_text,
    .set_boolean = set_boolean,
    .emit_row = emit_row,
    .fail = fail,
    .log = log_message,
    .seed = seed_of,
    .random_u64 = random_u64,
    .random_uniform = random_uniform,
    .should_stop = should_stop,
    .rank = rank_of,
    .size = size_of,
    .allreduce_sum = allreduce_sum,
    .series = series,
};

const runner_host *host_table(void) { return &the_host; }

int host_point_init(runner_point *p, const runner_plugin *plugin, const volatile sig_atomic_t *stop)
{
    memset(p, 0, sizeof *p);
    atomic_init(&p->in_run, 0);
    atomic_init(&p->misuse, 0);
    p->plugin = plugin;
    p->stop = stop;
    p->size = 1;
    p->current = calloc(plugin->column_count, sizeof *p->current);
    return p->current ? 0 : -1;
}

static void clear_rows(runner_point *p)
{
    size_t columns = p->plugin->column_count;
    for (size_t i = 0; i < p->row_count * columns; i++)
        value_clear(&p->rows[i]);
    for (size_t i = 0; i < columns; i++)
        value_clear(&p->current[i]);
    p->row_count = 0;
}

void host_point_reset(runner_point *p, const value *params, uint64_t seed)
{
    clear_rows(p);
    free(p->error);
    p->error = NULL;
    artifact_list_free(p->artifacts);
    p->artifacts = NULL;
    point_runs_free(p->runs);
    p->runs = NULL;
    p->timed_out = 0;
    p->params = params;
    p->seed = seed;
    runner_rng_seed(&p->rng, seed);
    p->series_kept = p->samples_kept = p->series_dropped = p->series_bad = 0;
    p->system = (store_point_system){ 0 };
    p->system_measured = 0;
}

void host_point_free(runner_point *p)
{
    if (!p || !p->plugin)
        return;
    clear_rows(p);
    free(p->rows);
    free(p->current);
    free(p->error);
    artifact_list_free(p->artifacts);
    point_runs_free(p->runs);
    memset(p, 0, sizeof *p);
}

/* The message for a refused call, replacing any error the plugin set: the
 * point's state cannot be trusted. NULL when there was none. */
static char *misuse_message(const runner_point *p, int code)
{
    const char *call = call_names[(code & ~MISUSE_AFTER_RETURN) % CALL_COUNT];
    if (code & MISUSE_AFTER_RETURN)
        return util_format("%s called %s on a point whose run() had returned; a point may be "
                           "used only until its run() returns, and only from the thread "
                           "running it",
                           p->plugin->name, call);
    return util_format("%s called %s from a thread runner did not start; host calls that use "
                       "a point are allowed only from the thread running its run() "
                       "(docs/plugin-abi.md)",
                       p->plugin->name, call);
}

/* This thread's CPU time (user + system), s. */
static double thread_cpu_s(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int host_run_point(runner_point *p)
{
    runner_point *outer = host_running;
    host_running = p;
    atomic_store(&host_last_plugin, p->plugin->name);
    atomic_fetch_add(&host_running_count, 1);
    atomic_store(&p->in_run, 1);
    double cpu0 = thread_cpu_s();
    p->began = util_monotonic();
    int rc = p->plugin->run(&the_host, p);
    host_series_point_end(p, util_monotonic() - p->began, thread_cpu_s() - cpu0);
    atomic_store(&p->in_run, 0);
    atomic_fetch_sub(&host_running_count, 1);
    host_running = outer;
    /* A foreign call that came before this point (after an earlier one on
     * the same runner_point returned) fails this one: it is the next run of
     * the same plugin on the same slot, and the only one left to fail. */
    int misuse = atomic_exchange(&p->misuse, 0);
    if (misuse) {
        free(p->error);
        p->error = misuse_message(p, misuse);
        if (!p->error)
            p->error = util_strdup("out of memory");
    }
    if (rc != RUNNER_OK && !p->error)
        set_error(p, util_format("%s returned an error without a message", p->plugin->name));
    if (p->error) {
        clear_rows(p);
        return -1;
    }
    return 0;
}

const runner_point *host_running_point(void) { return host_running; }

int host_points_running(void) { return atomic_load(&host_running_count); }

const char *host_last_plugin_name(void) { return atomic_load(&host_last_plugin); }
