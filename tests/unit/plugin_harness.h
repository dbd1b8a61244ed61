/* plugin_harness.h: runs a plugin's descriptor through the real host
 * (core/plugin/host.c) in a plugin's unit test. Parameters start at the declared
 * defaults; overrides are checked by param_check() as a sweep checks them;
 * one point at a time; rows and error are read back from the runner_point.
 * Header-only, on check.h; link the test with runner_core.
 *
 * Ownership: a harness owns its parameter vector and its point (rows, error);
 * harness_free() releases both. harness_set() takes ownership of the value it
 * is given, accepted or not. What is read back (point.rows, point.error,
 * harness_text()) is borrowed and valid until the next harness_run() or
 * harness_free(). Do not copy a harness once initialised: its point holds
 * the address of its stop flag. */
#ifndef RUNNER_PLUGIN_HARNESS_H
#define RUNNER_PLUGIN_HARNESS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plugin/host.h"
#include "plugin/param.h"
#include "plugin/plugin_loader.h"
#include "base/value.h"

/* Defined by RUNNER_PLUGIN_DEFINE in the plugin.c linked into the test. */
const runner_plugin *runner_plugin_entry(void);

typedef struct harness {
    const runner_plugin *plugin;
    value *params;              /* plugin->param_count values, owned */
    volatile sig_atomic_t stop; /* the host's stop flag: 1 = the user asked to stop */
    runner_point point;         /* after harness_run: rows, row_count, error */
    char message[256];          /* why harness_set() refused a value */
} harness;

/* What plugin_load_file() checks of a descriptor: ABI version, struct size,
 * then plugin_validate(). Returns 0, or -1 with the reason on stderr. */
static inline int harness_validate(const runner_plugin *plugin)
{
    char reason[512];
    if (plugin->abi_version != RUNNER_PLUGIN_ABI) {
        fprintf(stderr, "harness: %s declares ABI %u, the host is %d\n", plugin->name,
                (unsigned)plugin->abi_version, RUNNER_PLUGIN_ABI);
        return -1;
    }
    if (plugin->struct_size < sizeof(runner_plugin)) {
        fprintf(stderr, "harness: %s: struct_size %u < %zu\n", plugin->name,
                (unsigned)plugin->struct_size, sizeof(runner_plugin));
        return -1;
    }
    if (plugin_validate(plugin, reason, sizeof reason) != 0) {
        fprintf(stderr, "harness: invalid descriptor: %s\n", reason);
        return -1;
    }
    return 0;
}

/* Every parameter at its declared default, a point ready to run, stop flag
 * clear. Out of memory ends the test program: nothing else can be tested. */
static inline void harness_init(harness *h, const runner_plugin *plugin)
{
    memset(h, 0, sizeof *h);
    h->plugin = plugin;
    h->params = calloc(plugin->param_count ? plugin->param_count : 1, sizeof *h->params);
    int failed = !h->params || host_point_init(&h->point, plugin, &h->stop) != 0;
    for (uint32_t i = 0; !failed && i < plugin->param_count; i++) {
        h->params[i] = param_default(&plugin->params[i]);
        failed = h->params[i].type == 0;
    }
    if (failed) {
        fprintf(stderr, "harness: out of memory for a %s point\n", plugin->name);
        exit(100);
    }
}

/* Replaces parameter `name` with v (owned from here on) after param_check(),
 * which converts losslessly (integer 3 to real 3.0) and checks range and
 * choices. Returns 0, or -1 with the reason in h->message. An unknown name is
 * a mistake in the test and counts as a failed check. */
static inline int harness_set(harness *h, const char *name, value v)
{
    long i = param_find(h->plugin, name);
    if (i < 0) {
        fprintf(stderr, "harness: %s has no parameter '%s'\n", h->plugin->name, name);
        check_failures++;
        value_clear(&v);
        return -1;
    }
    if (param_check(&h->plugin->params[i], &v, h->message, sizeof h->message) != 0) {
        value_clear(&v);
        return -1;
    }
    value_clear(&h->params[i]);
    h->params[i] = v;
    h->message[0] = '\0';
    return 0;
}

/* Runs the point on the current parameters with the given host seed, after
 * discarding the previous run's rows and error. Returns host_run_point()'s
 * 0, or -1 when the point failed (h->point.error says why, no rows kept). */
static inline int harness_run(harness *h, uint64_t seed)
{
    host_point_reset(&h->point, h->params, seed);
    return host_run_point(&h->point);
}

/* Accepts a harness that was never initialised if it was zeroed. */
static inline void harness_free(harness *h)
{
    host_point_free(&h->point);
    for (uint32_t i = 0; h->params && i < h->plugin->param_count; i++)
        value_clear(&h->params[i]);
    free(h->params);
    h->params = NULL;
}

/* The cell of column `column` in emitted row `row`, or NULL if there is no
 * such row or column (reported as a failed check). */
static inline const value *harness_cell(const harness *h, size_t row, const char *column)
{
    for (uint32_t i = 0; i < h->plugin->column_count; i++) {
        if (strcmp(h->plugin->columns[i].name, column) != 0)
            continue;
        if (row < h->point.row_count)
            return &h->point.rows[row * h->plugin->column_count + i];
        fprintf(stderr, "harness: no row %zu (the point emitted %zu)\n", row, h->point.row_count);
        check_failures++;
        return NULL;
    }
    fprintf(stderr, "harness: %s has no column '%s'\n", h->plugin->name, column);
    check_failures++;
    return NULL;
}

/* The cell if it holds a value of `type`; otherwise NULL, as a failed check. */
static inline const value *harness_typed(const harness *h, size_t row, const char *column,
                                         runner_type type)
{
    const value *v = harness_cell(h, row, column);
    if (v && v->type != type) {
        fprintf(stderr, "harness: row %zu column '%s' is %s, read as %s\n", row, column,
                v->type ? value_type_name(v->type) : "NULL", value_type_name(type));
        check_failures++;
        return NULL;
    }
    return v;
}

/* Typed reads of an emitted cell. A missing row or column, a NULL or a cell
 * of another type is a failed check, and the result is INT64_MIN, NaN, NULL
 * or -1, so a check on a NULL cell can never pass by accident. */
static inline int64_t harness_integer(const harness *h, size_t row, const char *column)
{
    const value *v = harness_typed(h, row, column, RUNNER_INTEGER);
    return v ? v->as.integer : INT64_MIN;
}

static inline double harness_real(const harness *h, size_t row, const char *column)
{
    const value *v = harness_typed(h, row, column, RUNNER_REAL);
    return v ? v->as.real : NAN;
}

static inline const char *harness_text(const harness *h, size_t row, const char *column)
{
    const value *v = harness_typed(h, row, column, RUNNER_TEXT);
    return v ? v->as.text : NULL;
}

static inline int harness_boolean(const harness *h, size_t row, const char *column)
{
    const value *v = harness_typed(h, row, column, RUNNER_BOOLEAN);
    return v ? v->as.boolean : -1;
}

/* Columns of emitted row `row` that are NULL or not of their declared type,
 * each named on stderr; 0 when the plugin set every column of the row. */
static inline int harness_row_problems(const harness *h, size_t row)
{
    int problems = 0;
    if (row >= h->point.row_count) {
        fprintf(stderr, "harness: no row %zu (the point emitted %zu)\n", row, h->point.row_count);
        return 1;
    }
    for (uint32_t i = 0; i < h->plugin->column_count; i++) {
        const runner_column *c = &h->plugin->columns[i];
        const value *v = &h->point.rows[row * h->plugin->column_count + i];
        if (v->type != c->type) {
            fprintf(stderr, "harness: row %zu column '%s' is %s, declared %s\n", row, c->name,
                    v->type ? value_type_name(v->type) : "NULL", value_type_name(c->type));
            problems++;
        }
    }
    return problems;
}

/* 1 when both points emitted the same rows to the bit (reals compared as
 * bytes: -0.0 differs from 0.0, a NaN only equals the same NaN), else 0. */
static inline int harness_rows_identical(const harness *a, const harness *b)
{
    if (a->plugin != b->plugin || a->point.row_count != b->point.row_count)
        return 0;
    for (size_t i = 0; i < a->point.row_count * a->plugin->column_count; i++) {
        const value *x = &a->point.rows[i], *y = &b->point.rows[i];
        if (x->type != y->type)
            return 0;
        if (x->type == RUNNER_REAL ? memcmp(&x->as.real, &y->as.real, sizeof x->as.real) != 0
                                   : !value_equal(x, y))
            return 0;
    }
    return 1;
}

#endif
