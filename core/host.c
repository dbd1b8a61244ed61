/* host: the function table plugins call, and the life of one point. */
#include "host.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_pool.h"
#include "util.h"

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
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_INTEGER) {
        set_error(p, util_format("%s asked for parameter %zu as an integer", p->plugin->name, i));
        return 0;
    }
    return p->params[i].as.integer;
}

static double param_real(runner_point *p, size_t i)
{
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_REAL) {
        set_error(p, util_format("%s asked for parameter %zu as a real", p->plugin->name, i));
        return 0;
    }
    return p->params[i].as.real;
}

static const char *param_text(runner_point *p, size_t i)
{
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_TEXT) {
        set_error(p, util_format("%s asked for parameter %zu as text", p->plugin->name, i));
        return "";
    }
    return p->params[i].as.text;
}

static int param_boolean(runner_point *p, size_t i)
{
    if (i >= p->plugin->param_count || p->params[i].type != RUNNER_BOOLEAN) {
        set_error(p, util_format("%s asked for parameter %zu as a boolean", p->plugin->name, i));
        return 0;
    }
    return p->params[i].as.boolean;
}

static int check_column(runner_point *p, size_t i, runner_type type)
{
    if (i >= p->plugin->column_count) {
        set_error(p, util_format("%s set column %zu, but it declares %u", p->plugin->name,
                                 i, (unsigned)p->plugin->column_count));
        return RUNNER_ERROR;
    }
    if (p->plugin->columns[i].type != type) {
        set_error(p, util_format("%s set column '%s' as %s, but declares it %s",
                                 p->plugin->name, p->plugin->columns[i].name,
                                 value_type_name(type),
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
    p->current[i] = value_real(v);
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
static int fail(runner_point *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    set_error(p, util_format("%s: %s", p->plugin->name, buf));
    return RUNNER_ERROR;
}

static void log_message(runner_point *p, runner_log_level level, const char *fmt, ...)
{
    static const char *const level_names[] = { "debug", "info", "warning" };
    if (level == RUNNER_LOG_DEBUG && !getenv("RUNNER_DEBUG"))
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *name = (unsigned)level <= RUNNER_LOG_WARNING ? level_names[level] : "log";
    fprintf(stderr, "runner: %s: %s: %s\n", p->plugin->name, name, buf);
}

static uint64_t seed_of(runner_point *p) { return p->seed; }
static uint64_t random_u64(runner_point *p) { return runner_rng_next(&p->rng); }
static double random_uniform(runner_point *p) { return runner_rng_uniform(&p->rng); }
static int should_stop(runner_point *p) { return p->stop && *p->stop; }
static int rank_of(runner_point *p) { return p->rank; }
static int size_of(runner_point *p) { return p->size; }

static int allreduce_sum(runner_point *p, double *values, size_t count)
{
    if (p->size <= 1 || count == 0)
        return RUNNER_OK;
    if (!values) {
        set_error(p, util_format("%s passed NULL values to allreduce_sum", p->plugin->name));
        return RUNNER_ERROR;
    }
    char *why = NULL;
    if (mpi_pool_allreduce_sum(values, count, &why) != 0) {
        set_error(p, util_format("allreduce_sum of %zu values across %d ranks failed: %s",
                                 count, p->size, why ? why : "out of memory"));
        free(why);
        return RUNNER_ERROR;
    }
    return RUNNER_OK;
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
};

const runner_host *host_table(void) { return &the_host; }

int host_point_init(runner_point *p, const runner_plugin *plugin,
                    const volatile sig_atomic_t *stop)
{
    memset(p, 0, sizeof *p);
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
    p->params = params;
    p->seed = seed;
    runner_rng_seed(&p->rng, seed);
}

void host_point_free(runner_point *p)
{
    if (!p || !p->plugin)
        return;
    clear_rows(p);
    free(p->rows);
    free(p->current);
    free(p->error);
    memset(p, 0, sizeof *p);
}

int host_run_point(runner_point *p)
{
    int rc = p->plugin->run(&the_host, p);
    if (rc != RUNNER_OK && !p->error)
        set_error(p, util_format("%s returned an error without a message", p->plugin->name));
    if (p->error) {
        clear_rows(p);
        return -1;
    }
    return 0;
}
