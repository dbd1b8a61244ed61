/* fake_host.h: a minimal in-process runner_host for plugin unit tests, so
 * the ABI glue (indices, types, rows, seeding, interruption) is tested
 * without the runner binary. Test-only; shared by straggler and speedup. */
#ifndef FAKE_HOST_H
#define FAKE_HOST_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runner/plugin.h"

#define FAKE_MAX_FIELDS 32
#define FAKE_MAX_ROWS 4

typedef struct fake_row {
    int set[FAKE_MAX_FIELDS];
    double real[FAKE_MAX_FIELDS];
    int64_t integer[FAKE_MAX_FIELDS];
} fake_row;

struct runner_point {
    const runner_plugin *plugin;
    double number[FAKE_MAX_FIELDS];  /* parameter values, by index */
    uint64_t seed;
    int stop;                        /* what should_stop() answers */
    int stop_checks;                 /* how often it was asked */
    fake_row current;
    fake_row rows[FAKE_MAX_ROWS];
    int row_count;
    int failed;
    char message[256];
    int misuse;                      /* wrong index or type from the plugin */
};

static inline void fake_misuse(runner_point *point, const char *what, size_t index)
{
    fprintf(stderr, "fake host: plugin misuse: %s(%zu)\n", what, index);
    point->misuse++;
}

static inline int fake_param_ok(runner_point *point, size_t index, runner_type type, const char *what)
{
    if (index >= point->plugin->param_count || point->plugin->params[index].type != type) {
        fake_misuse(point, what, index);
        return 0;
    }
    return 1;
}

static inline int64_t fake_param_integer(runner_point *point, size_t index)
{
    return fake_param_ok(point, index, RUNNER_INTEGER, "param_integer")
        ? (int64_t)point->number[index] : 0;
}

static inline double fake_param_real(runner_point *point, size_t index)
{
    return fake_param_ok(point, index, RUNNER_REAL, "param_real") ? point->number[index] : 0;
}

static const char *fake_param_text(runner_point *point, size_t index)
{
    fake_misuse(point, "param_text", index);
    return "";
}

static inline int fake_param_boolean(runner_point *point, size_t index)
{
    return fake_param_ok(point, index, RUNNER_BOOLEAN, "param_boolean")
        ? point->number[index] != 0 : 0;
}

static inline int fake_column_ok(runner_point *point, size_t index, runner_type type, const char *what)
{
    if (index >= point->plugin->column_count || point->plugin->columns[index].type != type) {
        fake_misuse(point, what, index);
        point->failed = 1;
        return 0;
    }
    return 1;
}

static inline int fake_set_integer(runner_point *point, size_t index, int64_t value)
{
    if (!fake_column_ok(point, index, RUNNER_INTEGER, "set_integer"))
        return RUNNER_ERROR;
    point->current.set[index] = 1;
    point->current.integer[index] = value;
    return RUNNER_OK;
}

static inline int fake_set_real(runner_point *point, size_t index, double value)
{
    if (!fake_column_ok(point, index, RUNNER_REAL, "set_real"))
        return RUNNER_ERROR;
    point->current.set[index] = 1;
    point->current.real[index] = value;
    return RUNNER_OK;
}

static inline int fake_set_text(runner_point *point, size_t index, const char *value)
{
    (void)value;
    fake_column_ok(point, index, RUNNER_TEXT, "set_text");
    return RUNNER_ERROR;
}

static inline int fake_set_boolean(runner_point *point, size_t index, int value)
{
    (void)value;
    fake_column_ok(point, index, RUNNER_BOOLEAN, "set_boolean");
    return RUNNER_ERROR;
}

static inline int fake_emit_row(runner_point *point)
{
    if (point->row_count >= FAKE_MAX_ROWS) {
        fake_misuse(point, "emit_row", (size_t)point->row_count);
        return RUNNER_ERROR;
    }
    point->rows[point->row_count++] = point->current;
    memset(&point->current, 0, sizeof point->current);
    return RUNNER_OK;
}

static inline int fake_fail(runner_point *point, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(point->message, sizeof point->message, fmt, args);
    va_end(args);
    point->failed = 1;
    return RUNNER_ERROR;
}

static inline void fake_log(runner_point *point, runner_log_level level, const char *fmt, ...)
{
    (void)point;
    (void)level;
    (void)fmt;
}

static inline uint64_t fake_seed(runner_point *point)
{
    return point->seed;
}

static inline uint64_t fake_random_u64(runner_point *point)
{
    /* Plugins here seed their own runner_rng; this is never expected. */
    fake_misuse(point, "random_u64", 0);
    return 0;
}

static inline double fake_random_uniform(runner_point *point)
{
    fake_misuse(point, "random_uniform", 0);
    return 0;
}

static inline int fake_should_stop(runner_point *point)
{
    point->stop_checks++;
    return point->stop;
}

static const runner_host fake_host = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_host),
    .param_integer = fake_param_integer,
    .param_real = fake_param_real,
    .param_text = fake_param_text,
    .param_boolean = fake_param_boolean,
    .set_integer = fake_set_integer,
    .set_real = fake_set_real,
    .set_text = fake_set_text,
    .set_boolean = fake_set_boolean,
    .emit_row = fake_emit_row,
    .fail = fake_fail,
    .log = fake_log,
    .seed = fake_seed,
    .random_u64 = fake_random_u64,
    .random_uniform = fake_random_uniform,
    .should_stop = fake_should_stop,
};

/* A point with every parameter at its default. */
static inline void fake_point_init(runner_point *point, const runner_plugin *plugin, uint64_t seed)
{
    memset(point, 0, sizeof *point);
    point->plugin = plugin;
    point->seed = seed;
    for (uint32_t i = 0; i < plugin->param_count && i < FAKE_MAX_FIELDS; i++)
        point->number[i] = plugin->params[i].default_number;
}

/* Sets a numeric parameter by name, checking it against the declared range
 * as the real host would; returns 0, or -1 if out of range (an unknown name
 * also counts as misuse). */
static inline int fake_param_set(runner_point *point, const char *name, double value)
{
    for (uint32_t i = 0; i < point->plugin->param_count; i++) {
        const runner_param *param = &point->plugin->params[i];
        if (strcmp(param->name, name) != 0)
            continue;
        if (value < param->min || value > param->max)
            return -1;
        point->number[i] = value;
        return 0;
    }
    fprintf(stderr, "fake host: no parameter %s\n", name);
    point->misuse++;
    return -1;
}

static inline int fake_column_index(runner_point *point, const char *name)
{
    for (uint32_t i = 0; i < point->plugin->column_count; i++)
        if (strcmp(point->plugin->columns[i].name, name) == 0)
            return (int)i;
    fprintf(stderr, "fake host: no column %s\n", name);
    point->misuse++;
    return -1;
}

/* Value of a REAL column of an emitted row; NaN if absent or unset. */
static inline double fake_real(runner_point *point, int row, const char *name)
{
    int i = fake_column_index(point, name);
    if (i < 0 || row >= point->row_count || !point->rows[row].set[i])
        return NAN;
    return point->rows[row].real[i];
}

static inline int64_t fake_integer(runner_point *point, int row, const char *name)
{
    int i = fake_column_index(point, name);
    if (i < 0 || row >= point->row_count || !point->rows[row].set[i])
        return -1;
    return point->rows[row].integer[i];
}

static inline int fake_lower_snake(const char *name)
{
    if (!name || !*name)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return name[0] >= 'a' && name[0] <= 'z';
}

/* Checks what the host's loader checks, plus what these plugins promise
 * (every column set in every row). Returns the number of problems found. */
static inline int fake_check_descriptor(const runner_plugin *plugin)
{
    int problems = 0;
#define FAKE_PROBLEM(...) do { fprintf(stderr, "descriptor: " __VA_ARGS__); \
                               fputc('\n', stderr); problems++; } while (0)
    if (plugin->abi_version != RUNNER_PLUGIN_ABI)
        FAKE_PROBLEM("abi_version %u", plugin->abi_version);
    if (plugin->struct_size != sizeof(runner_plugin))
        FAKE_PROBLEM("struct_size %u", plugin->struct_size);
    if (!fake_lower_snake(plugin->name) || !plugin->version || !plugin->summary || !plugin->run)
        FAKE_PROBLEM("name, version, summary or run missing");
    if (plugin->param_count > FAKE_MAX_FIELDS || plugin->column_count > FAKE_MAX_FIELDS)
        FAKE_PROBLEM("too many fields for the fake host");
    for (uint32_t i = 0; i < plugin->param_count; i++) {
        const runner_param *p = &plugin->params[i];
        if (!fake_lower_snake(p->name) || !p->unit || !p->doc)
            FAKE_PROBLEM("param %u: name, unit or doc", i);
        if (!(p->min <= p->default_number && p->default_number <= p->max))
            FAKE_PROBLEM("param %s: default outside [min, max]", p->name);
        if (p->type == RUNNER_INTEGER && (p->min != floor(p->min) || p->max != floor(p->max)
                                          || p->default_number != floor(p->default_number)))
            FAKE_PROBLEM("param %s: integer with fractional bounds or default", p->name);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(plugin->params[j].name, p->name) == 0)
                FAKE_PROBLEM("param %s declared twice", p->name);
    }
    for (uint32_t i = 0; i < plugin->column_count; i++) {
        const runner_column *c = &plugin->columns[i];
        if (!fake_lower_snake(c->name) || !c->unit || !c->doc)
            FAKE_PROBLEM("column %u: name, unit or doc", i);
        if (!strcmp(c->name, "sweep_id") || !strcmp(c->name, "section_id")
            || !strcmp(c->name, "point_id"))
            FAKE_PROBLEM("column %s is reserved", c->name);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(plugin->columns[j].name, c->name) == 0)
                FAKE_PROBLEM("column %s declared twice", c->name);
        for (uint32_t j = 0; j < plugin->param_count; j++)
            if (strcmp(plugin->params[j].name, c->name) == 0)
                FAKE_PROBLEM("column %s is also a parameter", c->name);
    }
#undef FAKE_PROBLEM
    return problems;
}

/* Number of declared columns left unset in an emitted row. */
static inline int fake_unset_columns(runner_point *point, int row)
{
    int unset = 0;
    for (uint32_t i = 0; i < point->plugin->column_count; i++)
        if (!point->rows[row].set[i]) {
            fprintf(stderr, "fake host: column %s unset\n", point->plugin->columns[i].name);
            unset++;
        }
    return unset;
}

#endif
