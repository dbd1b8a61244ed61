/* test_host: the function table a plugin sees, driven by plugins defined in
 * this file: parameters by index, rows, errors (and which message wins),
 * random streams, the stop flag, and ranks in one process. */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "demo_plugin.h"
#include "plugin/host.h"

enum {
    P_COUNT,
    P_SCALE,
    P_LABEL,
    P_FLAG
};
static const runner_param demo_params[] = {
    RUNNER_PARAM_INTEGER("count", "", "rows to emit", 3, 0, 100),
    RUNNER_PARAM_REAL("scale", "s", "a factor", 1.0, 0, 100),
    RUNNER_PARAM_TEXT("label", "a label", "row", NULL),
    RUNNER_PARAM_BOOLEAN("flag", "a flag", 0),
};

enum {
    C_INDEX,
    C_Y,
    C_TAG,
    C_EVEN,
    COLUMN_COUNT
};
static const runner_column demo_columns[] = {
    RUNNER_COLUMN("index", RUNNER_INTEGER, "", "row index"),
    RUNNER_COLUMN("y", RUNNER_REAL, "s", "scale times index"),
    RUNNER_COLUMN("tag", RUNNER_TEXT, "", "label and index"),
    RUNNER_COLUMN("even", RUNNER_BOOLEAN, "", "index is even"),
};

/* The demo descriptor with the given run function. */
static runner_plugin demo_with(int (*run)(const runner_host *, runner_point *))
{
    runner_plugin plugin = DEMO_PLUGIN("1.0.0", demo_params, demo_columns, run);
    return plugin;
}

/* The parameters of one point: count 2, scale 0.5, label "shard", flag true. */
static void make_params(value *params)
{
    params[P_COUNT] = value_integer(2);
    params[P_SCALE] = value_real(0.5);
    params[P_LABEL] = value_text("shard");
    params[P_FLAG] = value_boolean(1);
}

static void clear_params(value *params)
{
    for (size_t i = 0; i < RUNNER_COUNT(demo_params); i++)
        value_clear(&params[i]);
}

static const value *cell(const runner_point *p, size_t row, size_t column)
{
    return &p->rows[row * p->plugin->column_count + column];
}

/* Runs plugin once on the standard parameters with the given seed; the
 * caller checks p and then calls host_point_free. */
static int run_once(runner_point *p, const runner_plugin *plugin, value *params, uint64_t seed,
                    const volatile sig_atomic_t *stop)
{
    CHECK_INT_EQ(host_point_init(p, plugin, stop), 0);
    host_point_reset(p, params, seed);
    return host_run_point(p);
}

static void test_table(void)
{
    const runner_host *host = host_table();
    CHECK_INT_EQ(host->abi_version, RUNNER_PLUGIN_ABI);
    CHECK_INT_EQ(host->struct_size, sizeof(runner_host));
    /* "Every pointer is non-NULL." */
    CHECK(host->param_integer && host->param_real && host->param_text && host->param_boolean);
    CHECK(host->set_integer && host->set_real && host->set_text && host->set_boolean);
    CHECK(host->emit_row && host->fail && host->log && host->seed);
    CHECK(host->random_u64 && host->random_uniform && host->should_stop);
    /* Appended to ABI 1: present, and after everything that came first. */
    CHECK(host->rank && host->size && host->allreduce_sum);
    CHECK(offsetof(runner_host, rank) > offsetof(runner_host, should_stop));
    CHECK(offsetof(runner_host, allreduce_sum) < host->struct_size);
}

/* --- ranks: one process is rank 0 of 1, and a sum over it changes nothing --- */

static int run_ranks(const runner_host *host, runner_point *point)
{
    double values[3] = { 1.5, -2.0, 0.25 };
    if (host->allreduce_sum(point, values, 3) != RUNNER_OK ||
        host->allreduce_sum(point, NULL, 0) != RUNNER_OK)
        return RUNNER_ERROR;
    host->set_integer(point, C_INDEX, host->rank(point) * 100 + host->size(point));
    host->set_real(point, C_Y, values[0] + 10 * values[1] + 100 * values[2]);
    return host->emit_row(point);
}

static void test_ranks_in_one_process(void)
{
    runner_plugin plugin = demo_with(run_ranks);
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_point p;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), 0);
    CHECK_INT_EQ(p.rank, 0);
    CHECK_INT_EQ(p.size, 1);
    CHECK_INT_EQ(p.row_count, 1);
    if (p.row_count == 1) {
        CHECK_INT_EQ(cell(&p, 0, C_INDEX)->as.integer, 1);     /* rank 0, size 1 */
        CHECK(cell(&p, 0, C_Y)->as.real == 1.5 - 20.0 + 25.0); /* untouched */
    }
    host_point_free(&p);
    clear_params(params);
}

/* --- parameters by index, one row back ------------------------------------ */

static int run_echo(const runner_host *host, runner_point *point)
{
    host->set_integer(point, C_INDEX, host->param_integer(point, P_COUNT));
    host->set_real(point, C_Y, host->param_real(point, P_SCALE));
    host->set_text(point, C_TAG, host->param_text(point, P_LABEL));
    host->set_boolean(point, C_EVEN, host->param_boolean(point, P_FLAG));
    return host->emit_row(point);
}

static void test_params_by_index(void)
{
    runner_plugin plugin = demo_with(run_echo);
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_point p;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), 0);
    CHECK(p.error == NULL);
    CHECK_INT_EQ(p.row_count, 1);
    if (p.row_count == 1) {
        CHECK_INT_EQ(cell(&p, 0, C_INDEX)->as.integer, 2);
        CHECK(cell(&p, 0, C_Y)->as.real == 0.5);
        CHECK_STR_EQ(cell(&p, 0, C_TAG)->as.text, "shard");
        CHECK(cell(&p, 0, C_TAG)->as.text != params[P_LABEL].as.text); /* copied */
        CHECK_INT_EQ(cell(&p, 0, C_EVEN)->type, RUNNER_BOOLEAN);
        CHECK_INT_EQ(cell(&p, 0, C_EVEN)->as.boolean, 1);
    }
    host_point_free(&p);
    clear_params(params);
}

/* Asking for a parameter as the wrong type, or one that does not exist,
 * fails the point with a message naming the index. */
static int run_wrong_param_type(const runner_host *host, runner_point *point)
{
    host->param_real(point, P_COUNT); /* an integer */
    return RUNNER_OK;
}

static int run_param_out_of_range(const runner_host *host, runner_point *point)
{
    host->param_integer(point, 7);
    return RUNNER_OK;
}

static void test_wrong_param(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_plugin plugin = demo_with(run_wrong_param_type);
    runner_point p;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), -1);
    CHECK_STR_EQ(p.error, "demo asked for parameter 0 as a real");
    host_point_free(&p);

    plugin = demo_with(run_param_out_of_range);
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), -1);
    CHECK_STR_EQ(p.error, "demo asked for parameter 7 as an integer");
    host_point_free(&p);
    clear_params(params);
}

/* --- rows ----------------------------------------------------------------- */

/* Emits `count` rows. The tag is written into a buffer that is overwritten
 * right after set_text, so only a copy can survive; odd rows leave y unset;
 * index is set twice and the second value counts. */
static int run_rows(const runner_host *host, runner_point *point)
{
    int64_t count = host->param_integer(point, P_COUNT);
    const char *label = host->param_text(point, P_LABEL);
    for (int64_t i = 0; i < count; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "%s%" PRId64, label, i);
        host->set_text(point, C_TAG, tag);
        memset(tag, 'X', sizeof tag - 1);
        tag[sizeof tag - 1] = '\0';
        host->set_integer(point, C_INDEX, -1);
        host->set_integer(point, C_INDEX, i);
        if (i % 2 == 0)
            host->set_real(point, C_Y, 1.5 * (double)i);
        host->set_boolean(point, C_EVEN, i % 2 == 0);
        if (host->emit_row(point) != RUNNER_OK)
            return RUNNER_ERROR;
    }
    return RUNNER_OK;
}

static void test_rows_in_order(void)
{
    runner_plugin plugin = demo_with(run_rows);
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    params[P_COUNT] = value_integer(9); /* more than the first allocation */
    runner_point p;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), 0);
    CHECK(p.error == NULL);
    CHECK_INT_EQ(p.row_count, 9);
    for (size_t r = 0; r < p.row_count && r < 9; r++) {
        char expected[32];
        snprintf(expected, sizeof expected, "shard%zu", r);
        CHECK_INT_EQ(cell(&p, r, C_INDEX)->as.integer, (int64_t)r);
        CHECK_STR_EQ(cell(&p, r, C_TAG)->as.text, expected);
        CHECK_INT_EQ(cell(&p, r, C_EVEN)->as.boolean, r % 2 == 0);
        if (r % 2 == 0) {
            CHECK_INT_EQ(cell(&p, r, C_Y)->type, RUNNER_REAL);
            CHECK(cell(&p, r, C_Y)->as.real == 1.5 * (double)r);
        } else {
            CHECK_INT_EQ(cell(&p, r, C_Y)->type, 0); /* unset: NULL, not the last value */
        }
    }

    /* Reset for the next point: the rows of the last one are gone. */
    params[P_COUNT] = value_integer(0);
    host_point_reset(&p, params, 2);
    CHECK_INT_EQ(p.row_count, 0);
    CHECK_INT_EQ(host_run_point(&p), 0);
    CHECK_INT_EQ(p.row_count, 0); /* zero rows is a valid result */
    host_point_free(&p);
    clear_params(params);
}

/* One zero: a plugin's -0.0 is stored as 0.0 (SQLite keeps no sign), so
 * the row the point holds is already what any reader gets back. */
static int run_negative_zero(const runner_host *host, runner_point *point)
{
    host->set_real(point, C_Y, -0.0);
    return host->emit_row(point);
}

static void test_negative_zero(void)
{
    runner_plugin plugin = demo_with(run_negative_zero);
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_point p;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), 0);
    CHECK_INT_EQ(p.row_count, 1);
    CHECK(p.row_count == 1 && cell(&p, 0, C_Y)->as.real == 0.0 &&
          !signbit(cell(&p, 0, C_Y)->as.real));
    host_point_free(&p);
    clear_params(params);
}

/* --- wrong set_* calls ---------------------------------------------------- */

static int set_result; /* what the last checked set_* returned */

static int run_set_wrong_type(const runner_host *host, runner_point *point)
{
    host->set_real(point, C_Y, 1.0);
    host->emit_row(point);
    set_result = host->set_integer(point, C_Y, 1);
    return RUNNER_OK; /* the plugin ignored the error; the host did not */
}

static int run_set_bad_index(const runner_host *host, runner_point *point)
{
    set_result = host->set_real(point, 9, 1.0);
    host->emit_row(point);
    return RUNNER_OK;
}

static void test_set_errors(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_plugin plugin = demo_with(run_set_wrong_type);
    runner_point p;
    set_result = 12345;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), -1);
    CHECK_INT_EQ(set_result, RUNNER_ERROR);
    CHECK_STR_EQ(p.error, "demo set column 'y' as integer, but declares it real");
    CHECK_INT_EQ(p.row_count, 0); /* the row emitted before is discarded */
    host_point_free(&p);

    plugin = demo_with(run_set_bad_index);
    set_result = 12345;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), -1);
    CHECK_INT_EQ(set_result, RUNNER_ERROR);
    CHECK_STR_EQ(p.error, "demo set column 9, but it declares 4");
    CHECK_INT_EQ(p.row_count, 0);
    host_point_free(&p);
    clear_params(params);
}

/* --- fail() and errors without a message ---------------------------------- */

static int fail_result;

/* Fails when the flag is set, after emitting two rows; otherwise one row. */
static int run_fail(const runner_host *host, runner_point *point)
{
    if (!host->param_boolean(point, P_FLAG)) {
        host->set_integer(point, C_INDEX, 0);
        return host->emit_row(point);
    }
    for (int i = 0; i < 2; i++) {
        host->set_integer(point, C_INDEX, i);
        host->emit_row(point);
    }
    fail_result = host->fail(point, "diverged at round %d (loss %.1f)", 3, 2.5);
    host->fail(point, "a second failure"); /* the first message is kept */
    return fail_result;
}

static int run_silent_error(const runner_host *host, runner_point *point)
{
    host->set_integer(point, C_INDEX, 1);
    host->emit_row(point);
    return RUNNER_ERROR;
}

static void test_fail(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_plugin plugin = demo_with(run_fail);
    runner_point p;
    fail_result = 12345;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), -1);
    CHECK_INT_EQ(fail_result, RUNNER_ERROR);
    CHECK_STR_EQ(p.error, "demo: diverged at round 3 (loss 2.5)");
    CHECK_INT_EQ(p.row_count, 0);

    /* The same point object runs the next point with a clean slate. */
    params[P_FLAG] = value_boolean(0);
    host_point_reset(&p, params, 1);
    CHECK(p.error == NULL);
    CHECK_INT_EQ(host_run_point(&p), 0);
    CHECK(p.error == NULL);
    CHECK_INT_EQ(p.row_count, 1);
    host_point_free(&p);

    plugin = demo_with(run_silent_error);
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), -1);
    CHECK_STR_EQ(p.error, "demo returned an error without a message");
    CHECK_INT_EQ(p.row_count, 0);
    host_point_free(&p);
    clear_params(params);
}

/* --- random streams ------------------------------------------------------- */

/* Row 0 carries seed(); rows 1..5 a random_u64 in index and a
 * random_uniform in y. */
static int run_random(const runner_host *host, runner_point *point)
{
    host->set_integer(point, C_INDEX, (int64_t)host->seed(point));
    host->emit_row(point);
    for (int i = 0; i < 5; i++) {
        host->set_integer(point, C_INDEX, (int64_t)host->random_u64(point));
        host->set_real(point, C_Y, host->random_uniform(point));
        host->emit_row(point);
    }
    return RUNNER_OK;
}

static void draws(const runner_point *p, uint64_t *u64, double *uniform)
{
    for (size_t r = 1; r < 6 && r < p->row_count; r++) {
        u64[r - 1] = (uint64_t)cell(p, r, C_INDEX)->as.integer;
        uniform[r - 1] = cell(p, r, C_Y)->as.real;
    }
}

static void test_random_streams(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_plugin plugin = demo_with(run_random);
    runner_point p;
    uint64_t first_u64[5] = { 0 }, again_u64[5] = { 0 }, other_u64[5] = { 0 };
    double first_uniform[5] = { 0 }, again_uniform[5] = { 0 }, other_uniform[5] = { 0 };

    CHECK_INT_EQ(run_once(&p, &plugin, params, 42, NULL), 0);
    CHECK_INT_EQ(p.row_count, 6);
    CHECK_INT_EQ(cell(&p, 0, C_INDEX)->as.integer, 42); /* seed() */
    draws(&p, first_u64, first_uniform);

    /* The same seed again, on the same point object: the same stream. */
    host_point_reset(&p, params, 42);
    CHECK_INT_EQ(host_run_point(&p), 0);
    draws(&p, again_u64, again_uniform);
    CHECK(memcmp(first_u64, again_u64, sizeof first_u64) == 0);
    CHECK(memcmp(first_uniform, again_uniform, sizeof first_uniform) == 0);

    /* Another seed: another stream. */
    host_point_reset(&p, params, 43);
    CHECK_INT_EQ(host_run_point(&p), 0);
    draws(&p, other_u64, other_uniform);
    for (int i = 0; i < 5; i++) {
        CHECK(other_u64[i] != first_u64[i]);
        CHECK(other_uniform[i] != first_uniform[i]);
    }
    host_point_free(&p);

    /* The host's stream is the inline xoshiro256** of <runner/plugin.h>,
     * seeded with the same seed, draws interleaved the same way. */
    runner_rng rng;
    runner_rng_seed(&rng, 42);
    for (int i = 0; i < 5; i++) {
        CHECK(runner_rng_next(&rng) == first_u64[i]);
        CHECK(runner_rng_uniform(&rng) == first_uniform[i]);
        CHECK(first_uniform[i] >= 0.0 && first_uniform[i] < 1.0);
    }
    clear_params(params);
}

/* The multiplicative inverse of an odd number modulo 2^64 (Newton). */
static uint64_t inverse_mod_2_64(uint64_t a)
{
    uint64_t x = a;
    for (int i = 0; i < 6; i++)
        x *= 2 - a * x;
    return x;
}

static void test_uniform_range(void)
{
    runner_rng rng;
    runner_rng_seed(&rng, 7);
    double lowest = 1.0, highest = 0.0, sum = 0.0;
    int n = 100000;
    for (int i = 0; i < n; i++) {
        double u = runner_rng_uniform(&rng);
        CHECK(u >= 0.0 && u < 1.0);
        if (u < lowest)
            lowest = u;
        if (u > highest)
            highest = u;
        sum += u;
    }
    CHECK(lowest < 0.001);
    CHECK(highest > 0.999);
    CHECK_NEAR(sum / n, 0.5, 0.01);

    /* The largest draw the generator can make still maps below 1: pick the
     * state whose next output is 2^64 - 1 (result = rotl(s[1] * 5, 7) * 9). */
    uint64_t all_ones = UINT64_MAX;
    uint64_t rotated = all_ones * inverse_mod_2_64(9);
    uint64_t times_five = (rotated >> 7) | (rotated << 57);
    rng.s[1] = times_five * inverse_mod_2_64(5);
    rng.s[0] = rng.s[2] = rng.s[3] = 1;
    runner_rng probe = rng;
    CHECK(runner_rng_next(&probe) == UINT64_MAX);
    double top = runner_rng_uniform(&rng);
    CHECK(top < 1.0);
    CHECK(top == 1.0 - 0x1.0p-53);
}

/* --- stop flag ------------------------------------------------------------ */

static int run_should_stop(const runner_host *host, runner_point *point)
{
    host->set_boolean(point, C_EVEN, host->should_stop(point));
    return host->emit_row(point);
}

static void test_should_stop(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params);
    runner_plugin plugin = demo_with(run_should_stop);
    volatile sig_atomic_t stop = 0;
    runner_point p;
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, &stop), 0);
    CHECK_INT_EQ(cell(&p, 0, C_EVEN)->as.boolean, 0);
    stop = 1; /* Ctrl-C */
    host_point_reset(&p, params, 1);
    CHECK_INT_EQ(host_run_point(&p), 0);
    CHECK_INT_EQ(cell(&p, 0, C_EVEN)->as.boolean, 1);
    host_point_free(&p);

    /* Without a flag, never asked to stop. */
    CHECK_INT_EQ(run_once(&p, &plugin, params, 1, NULL), 0);
    CHECK_INT_EQ(cell(&p, 0, C_EVEN)->as.boolean, 0);
    host_point_free(&p);
    clear_params(params);

    host_point_free(NULL); /* accepted */
}

int main(void)
{
    test_table();
    test_params_by_index();
    test_wrong_param();
    test_rows_in_order();
    test_negative_zero();
    test_set_errors();
    test_fail();
    test_random_streams();
    test_uniform_range();
    test_should_stop();
    test_ranks_in_one_process();
    return check_done("test_host");
}
