/* test_fit: fits with known answers. Data drawn from each model with known
 * parameters and Gaussian noise (GSL's generator, seeded): over 100 seeds
 * the 95 % intervals must cover the truth at least 90 times, for every
 * parameter of every model (and the derived ceilings). Then the refusals,
 * with their exact messages. */
#include "check.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "testdb.h"

#define SEEDS 100
#define MAX_ROWS 64

typedef struct truth_case {
    const char *model;
    double params[FIT_MAX_PARAMS];
    double (*f)(double x, const double *p);
    const double *x;
    size_t n;
    double noise_sd;
    int weighted; /* noise sd grows with x; the sd is given as weights */
    /* derived quantities whose truth is known: name and value */
    const char *derived_name;
    double derived_truth;
} truth_case;

static double amdahl(double x, const double *p) { return 1 / (p[0] + (1 - p[0]) / x); }
static double gustafson(double x, const double *p) { return x - p[0] * (x - 1); }
static double usl(double x, const double *p)
{
    return x / (1 + p[0] * (x - 1) + p[1] * x * (x - 1));
}
static double walkthrough(double x, const double *p) { return p[0] / x + p[1] * x / (x + 1); }
static double linear(double x, const double *p) { return p[0] + p[1] * x; }
static double power_law(double x, const double *p) { return p[0] * pow(x, p[1]); }

static const double workers[] = { 1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128 };
static const double sizes[] = { 1e3, 4e3, 1.6e4, 6.4e4, 2.56e5, 1.024e6, 4.096e6, 1.6384e7,
                                1e3, 4e3, 1.6e4, 6.4e4, 2.56e5, 1.024e6, 4.096e6, 1.6384e7 };
static const double ramp[] = { 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 1, 3, 7, 15, 31, 63 };

static const truth_case cases[] = {
    { "amdahl", { 0.05 }, amdahl, workers, 16, 0.1, 0, "ceiling", 20 },
    { "gustafson", { 0.2 }, gustafson, workers, 16, 0.5, 0, "efficiency_limit", 0.8 },
    { "usl", { 0.03, 5e-4 }, usl, workers, 16, 0.1, 0, "peak_x", 44.0454310910905 },
    { "walkthrough", { 30, 2 }, walkthrough, workers, 16, 0.05, 0, "ceiling", 15.5 },
    { "walkthrough", { 30, 2 }, walkthrough, workers, 16, 0.02, 1, "t1", 31 },
    { "alpha-beta", { 5e-6, 1e-9 }, linear, sizes, 16, 2e-6, 0, "bandwidth", 1e9 },
    { "power", { 2, 0.7 }, power_law, ramp, 16, 0.2, 0, NULL, 0 },
    { "linear", { 1, 3 }, linear, ramp, 16, 0.5, 0, NULL, 0 },
};

static void check_coverage(const truth_case *c, gsl_rng *rng)
{
    const fit_model *m = fit_model_find(c->model);
    CHECK(m != NULL);
    if (!m)
        return;
    size_t p = fit_model_param_count(m);
    int covered[FIT_MAX_PARAMS + 1] = { 0 };
    int failures = 0;
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        gsl_rng_set(rng, seed);
        double y[MAX_ROWS], sd[MAX_ROWS];
        for (size_t i = 0; i < c->n; i++) {
            /* Weighted: the noise is ten times larger at the largest x. */
            sd[i] = c->weighted ? c->noise_sd * (1 + 9 * (c->x[i] - 1) / 127) : c->noise_sd;
            y[i] = c->f(c->x[i], c->params) + gsl_ran_gaussian(rng, sd[i]);
        }
        fit_data data = { .n = c->n, .x = c->x, .y = y, .sd = c->weighted ? sd : NULL };
        fit_result r;
        char *err = NULL;
        if (fit_run(m, &data, NULL, &r, &err) != 0) {
            fprintf(stderr, "%s seed %lu: %s\n", c->model, seed, err);
            free(err);
            failures++;
            continue;
        }
        for (size_t j = 0; j < p; j++)
            covered[j] +=
                r.estimates[j].ci_low <= c->params[j] && c->params[j] <= r.estimates[j].ci_high;
        for (size_t k = p; c->derived_name && k < r.estimate_count; k++)
            if (strcmp(r.estimates[k].name, c->derived_name) == 0)
                covered[FIT_MAX_PARAMS] += r.estimates[k].ci_low <= c->derived_truth &&
                                           c->derived_truth <= r.estimates[k].ci_high;
        CHECK(r.dof == c->n - p);
        CHECK(r.r2 > 0.5 && r.r2 <= 1);
        /* Residuals are y - fitted, row by row. */
        CHECK_NEAR(r.residual[3], y[3] - r.fitted[3], 1e-12);
        fit_result_clear(&r);
    }
    CHECK_INT_EQ(failures, 0);
    for (size_t j = 0; j < p; j++) {
        if (getenv("FIT_VERBOSE") || covered[j] < 90)
            fprintf(stderr, "%s%s: parameter %zu covered in %d of %d seeds\n", c->model,
                    c->weighted ? " (weighted)" : "", j, covered[j], SEEDS);
        CHECK(covered[j] >= 90);
    }
    if (c->derived_name) {
        if (getenv("FIT_VERBOSE") || covered[FIT_MAX_PARAMS] < 90)
            fprintf(stderr, "%s: %s covered in %d of %d seeds\n", c->model, c->derived_name,
                    covered[FIT_MAX_PARAMS], SEEDS);
        CHECK(covered[FIT_MAX_PARAMS] >= 90);
    }
}

/* Exact data: the parameters come back to many digits, and the derived
 * quantities are the formulas of docs/science.md. */
static void check_exact_walkthrough(void)
{
    double y[16];
    const double truth[2] = { 30, 2 };
    for (size_t i = 0; i < 16; i++)
        y[i] = walkthrough(workers[i], truth);
    fit_data data = { .n = 16, .x = workers, .y = y };
    fit_result r;
    char *err = NULL;
    CHECK_INT_EQ(fit_run(fit_model_find("walkthrough"), &data, NULL, &r, &err), 0);
    CHECK_STR_EQ(r.estimates[0].name, "base");
    CHECK_NEAR(r.estimates[0].value, 30, 1e-9);
    CHECK_STR_EQ(r.estimates[1].name, "J");
    CHECK_NEAR(r.estimates[1].value, 2, 1e-9);
    CHECK_STR_EQ(r.estimates[2].name, "t1");
    CHECK_NEAR(r.estimates[2].value, 31, 1e-9);
    CHECK_STR_EQ(r.estimates[3].name, "ceiling");
    CHECK_NEAR(r.estimates[3].value, 15.5, 1e-9);
    CHECK(r.estimates[3].derived && !r.estimates[0].derived);
    CHECK_NEAR(r.r2, 1, 1e-12);
    /* linear in its parameters: the start is the answer, taken without a step */
    CHECK_INT_EQ(r.iterations, 0);
    fit_result_clear(&r);
    /* and with scatter too; a nonlinear model still iterates from its guess */
    for (size_t i = 0; i < 16; i++)
        y[i] = walkthrough(workers[i], truth) * (1 + 0.01 * (double)(i % 3 == 0 ? 1 : -1));
    CHECK_INT_EQ(fit_run(fit_model_find("walkthrough"), &data, NULL, &r, &err), 0);
    CHECK_INT_EQ(r.iterations, 0);
    fit_result_clear(&r);
    for (size_t i = 0; i < 16; i++)
        y[i] = workers[i] / (1 + 0.05 * (workers[i] - 1) + 1e-4 * workers[i] * (workers[i] - 1)) *
               (1 + 0.01 * (double)(i % 3 == 0 ? 1 : -1));
    CHECK_INT_EQ(fit_run(fit_model_find("usl"), &data, NULL, &r, &err), 0);
    CHECK(r.iterations > 0);
    fit_result_clear(&r);
    free(err);
}

static void check_refusals(void)
{
    char *err = NULL;
    fit_result r;
    const double x2[] = { 1, 2 }, y2[] = { 3, 2 };
    fit_data two = { .n = 2, .x = x2, .y = y2 };
    CHECK_INT_EQ(fit_run(fit_model_find("usl"), &two, NULL, &r, &err), -1);
    CHECK_STR_EQ(err, "usl has 2 parameters and needs at least 3 rows to estimate their errors; "
                      "2 usable");
    free(err);
    err = NULL;

    const double x0[] = { 0, 1, 2, 3 }, y0[] = { 1, 2, 3, 4 };
    fit_data zero = { .n = 4, .x = x0, .y = y0 };
    CHECK_INT_EQ(fit_run(fit_model_find("power"), &zero, NULL, &r, &err), -1);
    CHECK_STR_EQ(err, "power is defined for x > 0 only, and 1 row has x <= 0");
    free(err);
    err = NULL;

    const double same[] = { 4, 4, 4, 4 };
    fit_data flat = { .n = 4, .x = same, .y = y0 };
    CHECK_INT_EQ(fit_run(fit_model_find("linear"), &flat, NULL, &r, &err), -1);
    CHECK_STR_EQ(err, "linear: the rows do not determine a (do x's values differ enough?)");
    free(err);
    err = NULL;

    /* One iteration is not enough for USL from its linearised start. */
    double y[16];
    const double truth[2] = { 0.03, 5e-4 };
    for (size_t i = 0; i < 16; i++)
        y[i] = usl(workers[i], truth) * (1 + 0.05 * ((i % 3) - 1.0));
    fit_data data = { .n = 16, .x = workers, .y = y };
    fit_options once = { .max_iterations = 1 };
    CHECK_INT_EQ(fit_run(fit_model_find("usl"), &data, &once, &r, &err), -1);
    CHECK(err && strncmp(err,
                         "usl did not converge after 1 iterations (last residual sum of "
                         "squares ",
                         strlen("usl did not converge after 1 iterations (last residual sum of "
                                "squares ")) == 0);
    free(err);
    err = NULL;

    CHECK(fit_model_find("amdahl") != NULL);
    CHECK(fit_model_find("nope") == NULL);
}

static void check_units(void)
{
    char *u = fit_unit_text(FIT_UNIT_Y_PER_X, "bytes", "s");
    CHECK_STR_EQ(u, "s/bytes");
    free(u);
    u = fit_unit_text(FIT_UNIT_X_PER_Y, "bytes", "s");
    CHECK_STR_EQ(u, "bytes/s");
    free(u);
    u = fit_unit_text(FIT_UNIT_Y_PER_X, "", "s");
    CHECK_STR_EQ(u, "s");
    free(u);
}

/* store_fits_write: a fit and its rows, read back; NaN stored NULL; two
 * fits of which the second cannot be stored leave nothing. */
static void check_store(void)
{
    store *s = testdb_open(testdb_fresh_path("fit.db"), NULL);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = 0, section_id = 0;
    store_sweep_info info = { .script_path = "fit.lua",
                              .script_text = "",
                              .script_sha256 = "00",
                              .options_json = "{}",
                              .overrides_json = "{}",
                              .runner_version = "0.1.0",
                              .host = "testhost",
                              .command_line = "runner sweep fit.lua",
                              .started_at = 1e9 };
    CHECK_INT_EQ(store_sweep_begin(s, &info, &sweep_id, &err), 0);
    CHECK_INT_EQ(store_section_begin(s, sweep_id, 1, "demo", "t", 1, 3, &section_id, &err), 0);
    store_fit_param params[2] = {
        { .name = "base", .unit = "s", .value = 30, .std_error = 0.5, .ci_low = 29, .ci_high = 31 },
        { .name = "ceiling",
          .derived = 1,
          .value = NAN,
          .std_error = NAN,
          .ci_low = NAN,
          .ci_high = NAN },
    };
    store_row_key keys[3] = { { 1, 10 }, { 1, 11 }, { 2, 12 } };
    double x[3] = { 1, 2, 4 }, y[3] = { 31, 16, 9 }, fitted[3] = { 30.5, 16.5, 9 },
           residual[3] = { 0.5, -0.5, 0 };
    value by = value_real(2);
    store_fit fit = { .sweep_id = sweep_id,
                      .section_id = section_id,
                      .model = "walkthrough",
                      .formula = "base/x + J*x/(x+1)",
                      .x_column = "workers",
                      .y_column = "round_s",
                      .x_unit = "workers",
                      .y_unit = "s",
                      .by_column = "jitter",
                      .by_value = &by,
                      .n = 3,
                      .dof = 1,
                      .iterations = 2,
                      .r2 = 0.99,
                      .rss = 0.5,
                      .residual_sd = 0.7,
                      .confidence = 0.95,
                      .param_count = 2,
                      .params = params,
                      .keys = keys,
                      .x = x,
                      .y = y,
                      .fitted = fitted,
                      .residual = residual };
    int64_t ids[2] = { 0, 0 };
    int kept = 0;
    CHECK_INT_EQ(store_fits_write(s, &fit, 1, STORE_ANSWER_ADD, ids, &kept, &err), 0);
    CHECK(ids[0] > 0);
    table *t = NULL;
    CHECK_INT_EQ(store_fit_params(s, ids[0], &t, &err), 0);
    if (t) {
        CHECK_INT_EQ(t->row_count, 2);
        CHECK_STR_EQ(table_cell(t, 0, 0)->as.text, "base");
        CHECK_STR_EQ(table_cell(t, 0, 1)->as.text, "param");
        CHECK_NEAR(table_cell(t, 0, 4)->as.real, 29, 0);
        CHECK_STR_EQ(table_cell(t, 1, 1)->as.text, "derived");
        CHECK_INT_EQ(table_cell(t, 1, 2)->type, 0); /* NaN: NULL, undefined */
        table_free(t);
    }
    /* The second fit names a sweep that does not exist: neither is stored
     * (the check foreign keys made, made by hand: they are off while a fit
     * is written). */
    store_fit bad = fit;
    bad.sweep_id = sweep_id + 100;
    store_fit both[2] = { fit, bad };
    CHECK_INT_EQ(store_fits_write(s, both, 2, STORE_ANSWER_ADD, ids, &kept, &err), -1);
    CHECK(err &&
          strstr(err, "cannot store the fit: a row it references is no longer stored") != NULL);
    free(err);
    err = NULL;
    t = NULL;
    CHECK_INT_EQ(store_fit_params(s, ids[0] + 1, &t, &err), 0);
    CHECK(t && t->row_count == 0);
    table_free(t);
    store_close(s);
}

/* A user model through the C callback (what Lua's trampoline is): the
 * Jacobian is GSL's finite differences, which evaluate into a strided
 * column, so a callback writing contiguous values must still be right.
 * y = a exp(-b x) with noise: the intervals cover the truth in at least 90
 * of 100 seeds; a callback failure ends the fit with its own message. */
typedef struct decay_ctx {
    size_t calls;
    size_t fail_at; /* 0: never */
} decay_ctx;

static int decay_eval(void *ctx, const double *x, size_t n, const double *p, double *fitted,
                      char **err)
{
    decay_ctx *c = ctx;
    if (c->fail_at && ++c->calls >= c->fail_at) {
        *err = strdup("decay.lua:3: boom");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        fitted[i] = p[0] * exp(-p[1] * x[i]);
    return 0;
}

static void check_user_model(gsl_rng *rng)
{
    const char *names[] = { "a", "b" };
    double start[] = { 1.0, 0.1 };
    decay_ctx ctx = { 0, 0 };
    char *err = NULL;
    fit_model *m =
        fit_model_user_new("decay", "a*exp(-b*x)", 2, names, start, decay_eval, &ctx, &err);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_STR_EQ(fit_model_name(m), "decay");
    CHECK_STR_EQ(fit_model_formula(m), "a*exp(-b*x)");
    double x[30], y[30];
    size_t covered = 0;
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        gsl_rng_set(rng, seed);
        for (size_t i = 0; i < 30; i++) {
            x[i] = 0.25 * (double)(i + 1);
            y[i] = 3 * exp(-0.5 * x[i]) + gsl_ran_gaussian(rng, 0.05);
        }
        fit_data data = { .n = 30, .x = x, .y = y };
        fit_result r;
        if (fit_run(m, &data, NULL, &r, &err) != 0) {
            CHECK_STR_EQ(err, "");
            free(err);
            err = NULL;
            continue;
        }
        CHECK_INT_EQ(r.estimate_count, 2);
        covered += r.estimates[0].ci_low <= 3 && 3 <= r.estimates[0].ci_high &&
                   r.estimates[1].ci_low <= 0.5 && 0.5 <= r.estimates[1].ci_high;
        fit_result_clear(&r);
    }
    /* both intervals at once: about 0.95^2 of the seeds */
    CHECK(covered >= 85);
    /* a failing callback, at the start and during the iterations */
    for (size_t at = 1; at <= 4; at += 3) {
        ctx = (decay_ctx){ 0, at };
        fit_data data = { .n = 30, .x = x, .y = y };
        fit_result r;
        CHECK_INT_EQ(fit_run(m, &data, NULL, &r, &err), -1);
        CHECK_STR_EQ(err, "decay.lua:3: boom");
        free(err);
        err = NULL;
    }
    fit_model_user_free(m);
    const char *many[FIT_MAX_PARAMS + 1] = { 0 };
    double zeros[FIT_MAX_PARAMS + 1] = { 0 };
    CHECK(fit_model_user_new("big", "", FIT_MAX_PARAMS + 1, many, zeros, decay_eval, &ctx, &err) ==
          NULL);
    CHECK_STR_EQ(err, "a model has 1 to 8 parameters, not 9");
    free(err);
}

/* fit_band rebuilds the covariance fit_run had: for the line a + b x the
 * band at x = 0 is a's own interval, weighted or not; a user model has no
 * band. */
static void check_band(gsl_rng *rng)
{
    double x[40], y[40], sd[40];
    for (size_t i = 0; i < 40; i++) {
        x[i] = 1 + (double)i;
        sd[i] = 0.5 + 0.05 * (double)i;
        y[i] = 3 + 0.5 * x[i] + gsl_ran_gaussian(rng, sd[i]);
    }
    const fit_model *m = fit_model_find("linear");
    for (int weighted = 0; weighted < 2; weighted++) {
        fit_data data = { .n = 40, .x = x, .y = y, .sd = weighted ? sd : NULL };
        fit_result r;
        char *err = NULL;
        CHECK_INT_EQ(fit_run(m, &data, NULL, &r, &err), 0);
        double p[2] = { r.estimates[0].value, r.estimates[1].value };
        fit_band_input in = { .model = m,
                              .params = p,
                              .n = 40,
                              .x = x,
                              .sd = data.sd,
                              .rss = r.rss,
                              .dof = r.dof,
                              .confidence = r.confidence };
        double at[2] = { 0, 20 }, f[2], low[2], high[2];
        CHECK_INT_EQ(fit_band(&in, at, 2, f, low, high, &err), 0);
        CHECK_NEAR(f[0], p[0], 1e-12);
        CHECK_NEAR(low[0], r.estimates[0].ci_low, 1e-9 * fabs(r.estimates[0].ci_low));
        CHECK_NEAR(high[0], r.estimates[0].ci_high, 1e-9 * fabs(r.estimates[0].ci_high));
        /* narrower in the middle of the rows than at their edge */
        CHECK(high[1] - low[1] < high[0] - low[0]);
        fit_result_clear(&r);
    }
    const char *names[1] = { "k" };
    double start[1] = { 1 };
    decay_ctx ctx = { 0, 0 };
    char *err = NULL;
    fit_model *user = fit_model_user_new("decay", "", 1, names, start, decay_eval, &ctx, &err);
    fit_band_input in = { .model = user, .params = start, .n = 40, .x = x, .dof = 39, .rss = 1 };
    double at = 1, f, low, high;
    CHECK_INT_EQ(fit_band(&in, &at, 1, &f, &low, &high, &err), -1);
    CHECK_STR_EQ(err, "decay: a model given as a function has no band to draw");
    free(err);
    fit_model_user_free(user);
}

/* A user model's stored curve: the function at 200 x log-spaced over the
 * rows' (1 to 40 spans more than ten), inside a band equal to the one
 * fit_band gives the built-in model of the same formula; a function that
 * fails only there leaves the fit whole, without a curve. */
typedef struct line_ctx {
    size_t fail_on_n; /* 0: never; else fail when asked for this many x */
} line_ctx;

static int line_eval(void *ctx, const double *x, size_t n, const double *p, double *fitted,
                     char **err)
{
    const line_ctx *c = ctx;
    if (c->fail_on_n == n) {
        *err = strdup("line.lua:1: not between the rows");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        fitted[i] = p[0] + p[1] * x[i];
    return 0;
}

static void check_user_curve(gsl_rng *rng)
{
    double x[40], y[40];
    for (size_t i = 0; i < 40; i++) {
        x[i] = 1 + (double)i;
        y[i] = 3 + 0.5 * x[i] + gsl_ran_gaussian(rng, 0.5);
    }
    const char *names[] = { "a", "b" };
    double start[] = { 1, 1 };
    line_ctx ctx = { 0 };
    char *err = NULL;
    fit_model *user = fit_model_user_new("line", "", 2, names, start, line_eval, &ctx, &err);
    const fit_model *linear = fit_model_find("linear");
    fit_data data = { .n = 40, .x = x, .y = y };
    fit_result r, builtin;
    CHECK_INT_EQ(fit_run(user, &data, NULL, &r, &err), 0);
    CHECK_INT_EQ(fit_run(linear, &data, NULL, &builtin, &err), 0);
    CHECK_INT_EQ(builtin.curve_n, 0);
    CHECK_INT_EQ(r.curve_n, FIT_CURVE_POINTS);
    if (r.curve_n == FIT_CURVE_POINTS) {
        CHECK_NEAR(r.curve_x[0], 1, 1e-12);
        CHECK_NEAR(r.curve_x[FIT_CURVE_POINTS - 1], 40, 1e-12);
        CHECK_NEAR(r.curve_x[1] / r.curve_x[0], r.curve_x[2] / r.curve_x[1], 1e-12);
        double p[2] = { builtin.estimates[0].value, builtin.estimates[1].value };
        double f[FIT_CURVE_POINTS], low[FIT_CURVE_POINTS], high[FIT_CURVE_POINTS];
        fit_band_input in = {
            .model = linear, .params = p, .n = 40, .x = x, .rss = builtin.rss, .dof = builtin.dof
        };
        CHECK_INT_EQ(fit_band(&in, r.curve_x, FIT_CURVE_POINTS, f, low, high, &err), 0);
        for (size_t k = 0; k < FIT_CURVE_POINTS; k += 19) {
            CHECK_NEAR(r.curve_f[k], f[k], 1e-6 * fabs(f[k]));
            CHECK(r.curve_low[k] < r.curve_f[k] && r.curve_f[k] < r.curve_high[k]);
            CHECK_NEAR(r.curve_high[k] - r.curve_low[k], high[k] - low[k],
                       1e-4 * (high[k] - low[k]));
        }
    }
    fit_result_clear(&r);
    fit_result_clear(&builtin);
    ctx.fail_on_n = FIT_CURVE_POINTS;
    CHECK_INT_EQ(fit_run(user, &data, NULL, &r, &err), 0);
    CHECK_INT_EQ(r.curve_n, 0);
    CHECK(r.curve_x == NULL && r.estimate_count == 2);
    fit_result_clear(&r);
    fit_model_user_free(user);
}

int main(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_coverage(&cases[i], rng);
    check_user_model(rng);
    check_band(rng);
    check_user_curve(rng);
    gsl_rng_free(rng);
    check_exact_walkthrough();
    check_refusals();
    check_units();
    check_store();
    return check_done("test_fit");
}
