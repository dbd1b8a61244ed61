/* test_host.h: a fake runner host for a plugin's unit test, so the ABI glue
 * (indices, types, row count, failures) is tested without the runner. It
 * checks what the real host checks: every index in range and every set_* of
 * the column's declared type. Header-only; one point at a time. */
#ifndef PLUGIN_TEST_HOST_H
#define PLUGIN_TEST_HOST_H

#include "runner/plugin.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Defined by the plugin.c linked into the test. */
const runner_plugin *runner_plugin_entry(void);

#define TEST_HOST_MAX_PARAMS 16
#define TEST_HOST_MAX_COLUMNS 32
#define TEST_HOST_MAX_ROWS 8

typedef struct test_value {
    int set;
    int64_t integer; /* INTEGER and BOOLEAN */
    double real;
    char text[64];
} test_value;

struct runner_point {
    const runner_plugin *plugin;
    int64_t integers[TEST_HOST_MAX_PARAMS];
    double reals[TEST_HOST_MAX_PARAMS];
    const char *texts[TEST_HOST_MAX_PARAMS];
    uint64_t seed;
    runner_rng rng;
    test_value current[TEST_HOST_MAX_COLUMNS];
    test_value rows[TEST_HOST_MAX_ROWS][TEST_HOST_MAX_COLUMNS];
    int row_count;
    int failed;
    int misuse; /* wrong index or type: a bug in the glue */
    char message[512];
};

static inline int test_host_param_ok(runner_point *p, size_t i, runner_type type)
{
    if (i >= p->plugin->param_count || p->plugin->params[i].type != type) {
        fprintf(stderr, "test_host: parameter %zu read with the wrong type\n", i);
        p->misuse++;
        return 0;
    }
    return 1;
}

static inline int64_t test_host_param_integer(runner_point *p, size_t i)
{
    return test_host_param_ok(p, i, RUNNER_INTEGER) ? p->integers[i] : 0;
}

static inline double test_host_param_real(runner_point *p, size_t i)
{
    return test_host_param_ok(p, i, RUNNER_REAL) ? p->reals[i] : 0.0;
}

static inline const char *test_host_param_text(runner_point *p, size_t i)
{
    return test_host_param_ok(p, i, RUNNER_TEXT) ? p->texts[i] : "";
}

static inline int test_host_param_boolean(runner_point *p, size_t i)
{
    return test_host_param_ok(p, i, RUNNER_BOOLEAN) ? (int)p->integers[i] : 0;
}

static inline test_value *test_host_column(runner_point *p, size_t i, runner_type type)
{
    if (i >= p->plugin->column_count || p->plugin->columns[i].type != type) {
        fprintf(stderr, "test_host: column %zu set with the wrong type\n", i);
        p->misuse++;
        return NULL;
    }
    p->current[i].set = 1;
    return &p->current[i];
}

static inline int test_host_set_integer(runner_point *p, size_t i, int64_t value)
{
    test_value *v = test_host_column(p, i, RUNNER_INTEGER);
    if (!v)
        return RUNNER_ERROR;
    v->integer = value;
    return RUNNER_OK;
}

static inline int test_host_set_real(runner_point *p, size_t i, double value)
{
    test_value *v = test_host_column(p, i, RUNNER_REAL);
    if (!v)
        return RUNNER_ERROR;
    v->real = value;
    return RUNNER_OK;
}

static inline int test_host_set_text(runner_point *p, size_t i, const char *value)
{
    test_value *v = test_host_column(p, i, RUNNER_TEXT);
    if (!v)
        return RUNNER_ERROR;
    snprintf(v->text, sizeof v->text, "%s", value);
    return RUNNER_OK;
}

static inline int test_host_set_boolean(runner_point *p, size_t i, int value)
{
    test_value *v = test_host_column(p, i, RUNNER_BOOLEAN);
    if (!v)
        return RUNNER_ERROR;
    v->integer = value;
    return RUNNER_OK;
}

static inline int test_host_emit_row(runner_point *p)
{
    if (p->row_count == TEST_HOST_MAX_ROWS) {
        p->misuse++;
        return RUNNER_ERROR;
    }
    memcpy(p->rows[p->row_count++], p->current, sizeof p->current);
    memset(p->current, 0, sizeof p->current);
    return RUNNER_OK;
}

static inline int test_host_fail(runner_point *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
    p->failed = 1;
    p->row_count = 0; /* the real host discards a failed point's rows */
    return RUNNER_ERROR;
}

static inline void test_host_log(runner_point *p, runner_log_level level, const char *fmt, ...)
{
    va_list ap;
    (void)p;
    (void)level;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static inline uint64_t test_host_seed(runner_point *p) { return p->seed; }
static inline uint64_t test_host_random_u64(runner_point *p) { return runner_rng_next(&p->rng); }
static inline double test_host_random_uniform(runner_point *p) { return runner_rng_uniform(&p->rng); }
static inline int test_host_should_stop(runner_point *p) { (void)p; return 0; }

static const runner_host test_host = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_host),
    .param_integer = test_host_param_integer,
    .param_real = test_host_param_real,
    .param_text = test_host_param_text,
    .param_boolean = test_host_param_boolean,
    .set_integer = test_host_set_integer,
    .set_real = test_host_set_real,
    .set_text = test_host_set_text,
    .set_boolean = test_host_set_boolean,
    .emit_row = test_host_emit_row,
    .fail = test_host_fail,
    .log = test_host_log,
    .seed = test_host_seed,
    .random_u64 = test_host_random_u64,
    .random_uniform = test_host_random_uniform,
    .should_stop = test_host_should_stop,
};

static inline size_t test_host_param_index(const runner_plugin *plugin, const char *name)
{
    for (size_t i = 0; i < plugin->param_count; i++)
        if (strcmp(plugin->params[i].name, name) == 0)
            return i;
    fprintf(stderr, "test_host: no parameter %s\n", name);
    return (size_t)-1;
}

/* A point with every parameter at its declared default. */
static inline void test_host_point_init(runner_point *p, const runner_plugin *plugin, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->plugin = plugin;
    p->seed = seed;
    runner_rng_seed(&p->rng, seed);
    for (size_t i = 0; i < plugin->param_count && i < TEST_HOST_MAX_PARAMS; i++) {
        p->integers[i] = (int64_t)plugin->params[i].default_number;
        p->reals[i] = plugin->params[i].default_number;
        p->texts[i] = plugin->params[i].default_text;
    }
}

static inline void test_host_set_param_integer(runner_point *p, const char *name, int64_t value)
{
    size_t i = test_host_param_index(p->plugin, name);
    if (i < TEST_HOST_MAX_PARAMS)
        p->integers[i] = value;
}

static inline void test_host_set_param_text(runner_point *p, const char *name, const char *value)
{
    size_t i = test_host_param_index(p->plugin, name);
    if (i < TEST_HOST_MAX_PARAMS)
        p->texts[i] = value;
}

/* Column `name` of emitted row `row`, or NULL (with a message) if the row,
 * the column or its value is missing. */
static inline const test_value *test_host_cell(const runner_point *p, int row, const char *name)
{
    for (size_t i = 0; i < p->plugin->column_count; i++) {
        if (strcmp(p->plugin->columns[i].name, name) != 0)
            continue;
        if (row < p->row_count && p->rows[row][i].set)
            return &p->rows[row][i];
        break;
    }
    fprintf(stderr, "test_host: row %d has no value for %s\n", row, name);
    return NULL;
}

static inline int64_t test_host_integer(const runner_point *p, int row, const char *name)
{
    const test_value *v = test_host_cell(p, row, name);
    return v ? v->integer : INT64_MIN;
}

static inline double test_host_real(const runner_point *p, int row, const char *name)
{
    const test_value *v = test_host_cell(p, row, name);
    return v ? v->real : NAN;
}

static inline const char *test_host_text(const runner_point *p, int row, const char *name)
{
    const test_value *v = test_host_cell(p, row, name);
    return v ? v->text : NULL;
}

/* What the loader and the host check of a descriptor, as a count of
 * problems: ABI fields, unique lower_snake_case names, defaults in range and
 * among the choices, no column named like a parameter. */
static inline int test_host_descriptor_problems(const runner_plugin *plugin)
{
    int problems = 0;
    if (plugin->abi_version != RUNNER_PLUGIN_ABI || plugin->struct_size != sizeof(runner_plugin))
        problems++;
    if (plugin->param_count > TEST_HOST_MAX_PARAMS || plugin->column_count > TEST_HOST_MAX_COLUMNS)
        problems++;
    for (size_t i = 0; i < plugin->param_count; i++) {
        const runner_param *param = &plugin->params[i];
        if (strspn(param->name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(param->name))
            problems++;
        if (param->type == RUNNER_TEXT) {
            int found = param->choices == NULL;
            for (const char *const *c = param->choices; c && *c; c++)
                found |= strcmp(*c, param->default_text) == 0;
            problems += !found;
        } else if (param->default_number < param->min || param->default_number > param->max) {
            problems++;
        }
        for (size_t j = 0; j < i; j++)
            problems += strcmp(plugin->params[j].name, param->name) == 0;
        for (size_t j = 0; j < plugin->column_count; j++)
            problems += strcmp(plugin->columns[j].name, param->name) == 0;
    }
    for (size_t i = 0; i < plugin->column_count; i++) {
        const char *name = plugin->columns[i].name;
        if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name))
            problems++;
        for (size_t j = 0; j < i; j++)
            problems += strcmp(plugin->columns[j].name, name) == 0;
    }
    return problems;
}

#endif
