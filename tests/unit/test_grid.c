/* test_grid: which points a sweep section runs, and in what order: defaults,
 * crossed axes (first declared parameter slowest), zipped axes, and the
 * limits on the point count. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "demo_plugin.h"
#include "plugin/grid.h"

enum {
    P_A,
    P_B,
    P_C,
    P_D
};
static const runner_param demo_params[] = {
    RUNNER_PARAM_INTEGER("a", "", "an integer", 1, 0, 100),
    RUNNER_PARAM_REAL("b", "s", "a real", 0.5, 0, 10),
    RUNNER_PARAM_TEXT("c", "a text", "x", NULL),
    RUNNER_PARAM_BOOLEAN("d", "a flag", 0),
};
static const runner_column demo_columns[] = {
    RUNNER_COLUMN("y", RUNNER_REAL, "", "an output"),
};

static const runner_plugin demo = DEMO_PLUGIN("1.0.0", demo_params, demo_columns, demo_never_run);

#define PARAM_COUNT RUNNER_COUNT(demo_params)

/* grid_set takes malloc'd arrays; these build them. */
static value *integers(size_t count, const int64_t *v)
{
    value *values = malloc(count * sizeof *values);
    for (size_t i = 0; values && i < count; i++)
        values[i] = value_integer(v[i]);
    return values;
}

static value *reals(size_t count, const double *v)
{
    value *values = malloc(count * sizeof *values);
    for (size_t i = 0; values && i < count; i++)
        values[i] = value_real(v[i]);
    return values;
}

static value *texts(size_t count, const char *const *v)
{
    value *values = malloc(count * sizeof *values);
    for (size_t i = 0; values && i < count; i++)
        values[i] = value_text(v[i]);
    return values;
}

static value *booleans(size_t count, const int *v)
{
    value *values = malloc(count * sizeof *values);
    for (size_t i = 0; values && i < count; i++)
        values[i] = value_boolean(v[i]);
    return values;
}

static char msg[256];

static void test_defaults_only(void)
{
    grid *g = grid_new(&demo);
    CHECK(g != NULL);
    if (!g)
        return;
    uint64_t count = 0;
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    CHECK_INT_EQ(count, 1);
    CHECK_INT_EQ(grid_point_count(g), 1);
    value point[PARAM_COUNT];
    grid_point(g, 0, point);
    CHECK_INT_EQ(point[P_A].type, RUNNER_INTEGER);
    CHECK_INT_EQ(point[P_A].as.integer, 1);
    CHECK_INT_EQ(point[P_B].type, RUNNER_REAL);
    CHECK(point[P_B].as.real == 0.5);
    CHECK_INT_EQ(point[P_C].type, RUNNER_TEXT);
    CHECK_STR_EQ(point[P_C].as.text, "x");
    CHECK_INT_EQ(point[P_D].type, RUNNER_BOOLEAN);
    CHECK_INT_EQ(point[P_D].as.boolean, 0);
    grid_free(g);
    grid_free(NULL); /* accepted */
}

/* One value fixes a parameter: still one point, with that value. */
static void test_single_value_fixes(void)
{
    grid *g = grid_new(&demo);
    double b[] = { 7.25 };
    const char *c[] = { "fixed" };
    CHECK_INT_EQ(grid_set(g, P_B, reals(1, b), 1, 0), 0);
    CHECK_INT_EQ(grid_set(g, P_C, texts(1, c), 1, 0), 0);
    uint64_t count = 0;
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    CHECK_INT_EQ(count, 1);
    value point[PARAM_COUNT];
    grid_point(g, 0, point);
    CHECK_INT_EQ(point[P_A].as.integer, 1); /* still the default */
    CHECK(point[P_B].as.real == 7.25);
    CHECK_STR_EQ(point[P_C].as.text, "fixed");
    grid_free(g);
}

/* The cartesian order follows declaration order (a slowest, then b, c),
 * whatever order the script set the axes in. */
static void test_cartesian_order(void)
{
    grid *g = grid_new(&demo);
    const char *c[] = { "p", "q" };
    int64_t a[] = { 10, 20, 30 };
    double b[] = { 1.5 };
    CHECK_INT_EQ(grid_set(g, P_C, texts(2, c), 2, 0), 0); /* set first... */
    CHECK_INT_EQ(grid_set(g, P_B, reals(1, b), 1, 0), 0);
    CHECK_INT_EQ(grid_set(g, P_A, integers(3, a), 3, 0), 0); /* ...set last */
    uint64_t count = 0;
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    CHECK_INT_EQ(count, 6);
    CHECK_INT_EQ(grid_point_count(g), 6);

    static const int64_t expected_a[] = { 10, 10, 20, 20, 30, 30 };
    static const char *const expected_c[] = { "p", "q", "p", "q", "p", "q" };
    for (uint64_t i = 0; i < 6; i++) {
        value point[PARAM_COUNT];
        grid_point(g, i, point);
        CHECK_INT_EQ(point[P_A].as.integer, expected_a[i]);
        CHECK(point[P_B].as.real == 1.5);
        CHECK_STR_EQ(point[P_C].as.text, expected_c[i]);
        CHECK_INT_EQ(point[P_D].as.boolean, 0);
    }
    grid_free(g);
}

/* Setting a parameter again replaces the earlier setting. */
static void test_set_again_replaces(void)
{
    grid *g = grid_new(&demo);
    int64_t many[] = { 1, 2, 3, 4 };
    int64_t one[] = { 50 };
    CHECK_INT_EQ(grid_set(g, P_A, integers(4, many), 4, 0), 0);
    CHECK_INT_EQ(grid_set(g, P_A, integers(1, one), 1, 0), 0);
    uint64_t count = 0;
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    CHECK_INT_EQ(count, 1);
    value point[PARAM_COUNT];
    grid_point(g, 0, point);
    CHECK_INT_EQ(point[P_A].as.integer, 50);
    grid_free(g);
}

/* Axes of one zip group advance together, as one dimension placed where the
 * group's first declared parameter is; other axes cross with it. */
static void test_zip(void)
{
    grid *g = grid_new(&demo);
    int64_t a[] = { 1, 2 };
    double b[] = { 0.1, 0.2, 0.3 };
    int d[] = { 1, 0, 1 };
    const char *c[] = { "p", "q" };
    CHECK_INT_EQ(grid_set(g, P_D, booleans(3, d), 3, 7), 0);
    CHECK_INT_EQ(grid_set(g, P_C, texts(2, c), 2, 0), 0);
    CHECK_INT_EQ(grid_set(g, P_B, reals(3, b), 3, 7), 0);
    CHECK_INT_EQ(grid_set(g, P_A, integers(2, a), 2, 0), 0);
    uint64_t count = 0;
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    CHECK_INT_EQ(count, 12); /* 2 (a) x 3 (b with d) x 2 (c) */

    for (uint64_t i = 0; i < 12; i++) {
        value point[PARAM_COUNT];
        grid_point(g, i, point);
        size_t ia = (size_t)(i / 6), ibd = (size_t)(i / 2 % 3), ic = (size_t)(i % 2);
        CHECK_INT_EQ(point[P_A].as.integer, a[ia]);
        CHECK(point[P_B].as.real == b[ibd]);
        CHECK_INT_EQ(point[P_D].as.boolean, d[ibd]); /* always b's partner */
        CHECK_STR_EQ(point[P_C].as.text, c[ic]);
    }
    /* Spelled out once: point 5 is a = 1, b = 0.3 with d = true, c = q. */
    value point[PARAM_COUNT];
    grid_point(g, 5, point);
    CHECK_INT_EQ(point[P_A].as.integer, 1);
    CHECK(point[P_B].as.real == 0.3);
    CHECK_INT_EQ(point[P_D].as.boolean, 1);
    CHECK_STR_EQ(point[P_C].as.text, "q");
    grid_free(g);
}

/* Two zip groups are two dimensions, crossed with each other. */
static void test_two_zip_groups(void)
{
    grid *g = grid_new(&demo);
    int64_t a[] = { 1, 2 };
    const char *c[] = { "p", "q" };
    double b[] = { 0.1, 0.2, 0.3 };
    int d[] = { 0, 1, 0 };
    CHECK_INT_EQ(grid_set(g, P_A, integers(2, a), 2, 1), 0);
    CHECK_INT_EQ(grid_set(g, P_C, texts(2, c), 2, 1), 0);
    CHECK_INT_EQ(grid_set(g, P_B, reals(3, b), 3, 2), 0);
    CHECK_INT_EQ(grid_set(g, P_D, booleans(3, d), 3, 2), 0);
    uint64_t count = 0;
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    CHECK_INT_EQ(count, 6);
    for (uint64_t i = 0; i < 6; i++) {
        value point[PARAM_COUNT];
        grid_point(g, i, point);
        size_t iac = (size_t)(i / 3), ibd = (size_t)(i % 3);
        CHECK_INT_EQ(point[P_A].as.integer, a[iac]);
        CHECK_STR_EQ(point[P_C].as.text, c[iac]);
        CHECK(point[P_B].as.real == b[ibd]);
        CHECK_INT_EQ(point[P_D].as.boolean, d[ibd]);
    }
    grid_free(g);
}

static void test_zip_length_mismatch(void)
{
    grid *g = grid_new(&demo);
    const char *c[] = { "p", "q", "r" };
    int64_t a[] = { 1, 2 };
    CHECK_INT_EQ(grid_set(g, P_C, texts(3, c), 3, 1), 0);
    CHECK_INT_EQ(grid_set(g, P_A, integers(2, a), 2, 1), 0);
    uint64_t count = 12345;
    msg[0] = '\0';
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), -1);
    /* Named in declaration order, not in the order they were set. */
    CHECK_STR_EQ(msg, "zipped parameters 'a' (2 values) and 'c' (3 values) must have the "
                      "same length");
    CHECK_INT_EQ(count, 12345); /* untouched on failure */
    grid_free(g);
}

static void test_max_points(void)
{
    grid *g = grid_new(&demo);
    int64_t a[] = { 1, 2, 3 };
    const char *c[] = { "p", "q" };
    CHECK_INT_EQ(grid_set(g, P_A, integers(3, a), 3, 0), 0);
    CHECK_INT_EQ(grid_set(g, P_C, texts(2, c), 2, 0), 0);
    uint64_t count = 0;
    msg[0] = '\0';
    CHECK_INT_EQ(grid_finish(g, 5, &count, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "the grid has 6 points, more than --max-points 5");
    /* The limit is inclusive. */
    CHECK_INT_EQ(grid_finish(g, 6, &count, msg, sizeof msg), 0);
    CHECK_INT_EQ(count, 6);
    grid_free(g);
}

/* Four axes of 65536 values: 2^64 points, one more than uint64_t holds. */
enum {
    WIDE_AXIS = 65536
};
static const runner_param wide_params[] = {
    RUNNER_PARAM_INTEGER("w", "", "axis", 0, 0, WIDE_AXIS),
    RUNNER_PARAM_INTEGER("x", "", "axis", 0, 0, WIDE_AXIS),
    RUNNER_PARAM_INTEGER("y", "", "axis", 0, 0, WIDE_AXIS),
    RUNNER_PARAM_INTEGER("z", "", "axis", 0, 0, WIDE_AXIS),
};
/* A plugin with room for a huge grid. */
static const runner_plugin wide =
    DEMO_PLUGIN_NAMED("wide", "1.0.0", wide_params, demo_columns, demo_never_run);

static value *axis_0_to(size_t count)
{
    value *values = malloc(count * sizeof *values);
    for (size_t i = 0; values && i < count; i++)
        values[i] = value_integer((int64_t)i);
    return values;
}

static void test_count_overflow(void)
{
    grid *g = grid_new(&wide);
    for (uint32_t p = 0; p < 3; p++)
        CHECK_INT_EQ(grid_set(g, p, axis_0_to(WIDE_AXIS), WIDE_AXIS, 0), 0);
    uint64_t count = 0;
    /* Three axes: 2^48 points, counted exactly. */
    msg[0] = '\0';
    CHECK_INT_EQ(grid_finish(g, 1000000, &count, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "the grid has 281474976710656 points, more than --max-points 1000000");
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    CHECK(count == (uint64_t)1 << 48);
    /* The last point is the last value of every axis. */
    value point[4];
    grid_point(g, count - 1, point);
    CHECK_INT_EQ(point[0].as.integer, WIDE_AXIS - 1);
    CHECK_INT_EQ(point[1].as.integer, WIDE_AXIS - 1);
    CHECK_INT_EQ(point[2].as.integer, WIDE_AXIS - 1);
    CHECK_INT_EQ(point[3].as.integer, 0);
    grid_point(g, (uint64_t)1 << 32, point); /* 1 * 2^32 + 0 * 2^16 + 0 */
    CHECK_INT_EQ(point[0].as.integer, 1);
    CHECK_INT_EQ(point[1].as.integer, 0);
    CHECK_INT_EQ(point[2].as.integer, 0);

    /* Four axes: 2^64 does not fit; the count must not wrap to a small number. */
    CHECK_INT_EQ(grid_set(g, 3, axis_0_to(WIDE_AXIS), WIDE_AXIS, 0), 0);
    msg[0] = '\0';
    CHECK_INT_EQ(grid_finish(g, 1000000, &count, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "the grid has more than 2^64 points (limit --max-points 1000000)");
    grid_free(g);
}

/* grid_point's values borrow text from the grid: the same storage every
 * time, not copies the caller would have to free. */
static void test_text_is_borrowed(void)
{
    grid *g = grid_new(&demo);
    value *c = texts(2, (const char *const[]){ "left", "right" });
    CHECK(c != NULL);
    if (!c) {
        grid_free(g);
        return;
    }
    const char *left = c[0].as.text, *right = c[1].as.text;
    CHECK_INT_EQ(grid_set(g, P_C, c, 2, 0), 0);
    uint64_t count = 0;
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    value first[PARAM_COUNT], second[PARAM_COUNT], again[PARAM_COUNT];
    grid_point(g, 0, first);
    grid_point(g, 1, second);
    grid_point(g, 0, again);
    CHECK(first[P_C].as.text == left);
    CHECK(second[P_C].as.text == right);
    CHECK(again[P_C].as.text == left);
    CHECK_STR_EQ(first[P_C].as.text, "left");
    CHECK_STR_EQ(second[P_C].as.text, "right");
    grid_free(g);

    /* A text default is borrowed from the grid too, and copied from the
     * declaration, so the grid owns it. */
    g = grid_new(&demo);
    CHECK_INT_EQ(grid_finish(g, 0, &count, msg, sizeof msg), 0);
    grid_point(g, 0, first);
    grid_point(g, 0, again);
    CHECK(first[P_C].as.text == again[P_C].as.text);
    CHECK(first[P_C].as.text != demo_params[P_C].default_text);
    grid_free(g);
}

int main(void)
{
    test_defaults_only();
    test_single_value_fixes();
    test_cartesian_order();
    test_set_again_replaces();
    test_zip();
    test_two_zip_groups();
    test_zip_length_mismatch();
    test_max_points();
    test_count_overflow();
    test_text_is_borrowed();
    return check_done("test_grid");
}
