/* fit_models: the scaling laws `runner fit` knows, as data: formula,
 * parameters with units, derivatives, a starting point, derived
 * quantities. docs/analysis.md explains each; docs/science.md the
 * walk-through's round. */
#include "fit_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* --- starting points ------------------------------------------------------
 * Least squares of z = a g1(x) + b g2(x) over the rows (b = 0 with one
 * basis function), in closed form: only a guess for the solver, which then
 * does the fit. A degenerate system leaves the fallback in place. */
typedef void (*basis_fn)(double x, double y, double *g1, double *g2, double *z);

static void guess_linear(const fit_data *d, basis_fn basis, int two, double *a, double *b)
{
    double s11 = 0, s12 = 0, s22 = 0, s1z = 0, s2z = 0;
    for (size_t i = 0; i < d->n; i++) {
        double g1, g2 = 0, z;
        basis(d->x[i], d->y[i], &g1, &g2, &z);
        if (!isfinite(g1) || !isfinite(g2) || !isfinite(z))
            continue;
        s11 += g1 * g1;
        s12 += g1 * g2;
        s22 += g2 * g2;
        s1z += g1 * z;
        s2z += g2 * z;
    }
    if (!two) {
        if (s11 > 0)
            *a = s1z / s11;
        return;
    }
    double det = s11 * s22 - s12 * s12;
    if (!(fabs(det) > 1e-300) || !isfinite(det))
        return;
    *a = (s1z * s22 - s2z * s12) / det;
    *b = (s2z * s11 - s1z * s12) / det;
}

/* --- linear: y = a + b x -------------------------------------------------- */

static double linear_f(double x, const double *p) { return p[0] + p[1] * x; }
static void linear_df(double x, const double *p, double *dfdp)
{
    (void)p;
    dfdp[0] = 1;
    dfdp[1] = x;
}
static void linear_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = 1;
    *g2 = x;
    *z = y;
}
static void linear_start(const fit_data *d, double *p)
{
    p[0] = d->n ? d->y[0] : 0;
    p[1] = 0;
    guess_linear(d, linear_basis, 1, &p[0], &p[1]);
}

/* --- alpha-beta: message time y = alpha + beta n -------------------------- */

static void alpha_beta_derive(const double *p, double *out)
{
    out[0] = 1 / p[1];    /* bandwidth, x per y (bytes/s) */
    out[1] = p[0] / p[1]; /* n_half: the size whose transfer costs one start-up */
}

/* --- power: y = a x^b ----------------------------------------------------- */

static double power_f(double x, const double *p) { return p[0] * pow(x, p[1]); }
static void power_df(double x, const double *p, double *dfdp)
{
    double xb = pow(x, p[1]);
    dfdp[0] = xb;
    dfdp[1] = p[0] * xb * log(x);
}
static void power_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = 1;
    *g2 = log(x);
    *z = y > 0 ? log(y) : NAN; /* ln y = ln a + b ln x, where y > 0 */
}
static void power_start(const fit_data *d, double *p)
{
    double ln_a = 0, b = 1;
    guess_linear(d, power_basis, 1, &ln_a, &b);
    p[0] = exp(ln_a);
    p[1] = b;
    if (!isfinite(p[0]))
        p[0] = 1;
}

/* --- amdahl: speedup y = 1 / (s + (1 - s)/x) ------------------------------ */

static double amdahl_f(double x, const double *p) { return 1 / (p[0] + (1 - p[0]) / x); }
static void amdahl_df(double x, const double *p, double *dfdp)
{
    double den = p[0] + (1 - p[0]) / x;
    dfdp[0] = -(1 - 1 / x) / (den * den);
}
/* Karp–Flatt: the serial fraction each speedup implies, (1/y - 1/x)/(1 - 1/x). */
static void amdahl_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = x > 1 ? 1 : NAN;
    *g2 = 0;
    *z = (1 / y - 1 / x) / (1 - 1 / x);
}
static void amdahl_start(const fit_data *d, double *p)
{
    double s = 0.1, unused = 0;
    guess_linear(d, amdahl_basis, 0, &s, &unused);
    p[0] = s > 1e-6 && s < 1 ? s : s >= 1 ? 0.99 : 1e-3;
}
static void amdahl_derive(const double *p, double *out) { out[0] = 1 / p[0]; }

/* --- gustafson: scaled speedup y = x - s (x - 1) -------------------------- */

static double gustafson_f(double x, const double *p) { return x - p[0] * (x - 1); }
static void gustafson_df(double x, const double *p, double *dfdp)
{
    (void)p;
    dfdp[0] = -(x - 1);
}
static void gustafson_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = -(x - 1);
    *g2 = 0;
    *z = y - x;
}
static void gustafson_start(const fit_data *d, double *p)
{
    double unused = 0;
    p[0] = 0.1;
    guess_linear(d, gustafson_basis, 0, &p[0], &unused);
}
static void gustafson_derive(const double *p, double *out) { out[0] = 1 - p[0]; }

/* --- usl: speedup y = x / (1 + s (x - 1) + k x (x - 1)) ------------------- */

static double usl_f(double x, const double *p)
{
    return x / (1 + p[0] * (x - 1) + p[1] * x * (x - 1));
}
static void usl_df(double x, const double *p, double *dfdp)
{
    double den = 1 + p[0] * (x - 1) + p[1] * x * (x - 1);
    dfdp[0] = -x * (x - 1) / (den * den);
    dfdp[1] = -x * x * (x - 1) / (den * den);
}
/* x/y - 1 = s (x - 1) + k x (x - 1): linear in s and k. */
static void usl_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = x - 1;
    *g2 = x * (x - 1);
    *z = x / y - 1;
}
static void usl_start(const fit_data *d, double *p)
{
    p[0] = 0.05;
    p[1] = 1e-4;
    guess_linear(d, usl_basis, 1, &p[0], &p[1]);
    if (!(p[0] >= 0 && p[0] < 1))
        p[0] = 0.05;
    if (!(p[1] >= 0))
        p[1] = 1e-6;
}
/* k* = sqrt((1 - s)/k), where the speedup peaks; and the speedup there. */
static void usl_derive(const double *p, double *out)
{
    double peak = p[1] > 0 && p[0] < 1 ? sqrt((1 - p[0]) / p[1]) : NAN;
    out[0] = peak;
    out[1] = isfinite(peak) ? usl_f(peak, p) : NAN;
}

/* --- amdahl-time: time y = T1 (s + (1 - s)/x) ----------------------------- */

static double amdahl_time_f(double x, const double *p) { return p[0] * (p[1] + (1 - p[1]) / x); }
static void amdahl_time_df(double x, const double *p, double *dfdp)
{
    dfdp[0] = p[1] + (1 - p[1]) / x;
    dfdp[1] = p[0] * (1 - 1 / x);
}
/* y = a + b/x with a = T1 s, b = T1 (1 - s): linear in a and b. */
static void amdahl_time_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = 1;
    *g2 = 1 / x;
    *z = y;
}
static void amdahl_time_start(const fit_data *d, double *p)
{
    double a = 0, b = d->n ? d->y[0] : 1;
    guess_linear(d, amdahl_time_basis, 1, &a, &b);
    p[0] = a + b > 0 ? a + b : (d->n ? d->y[0] : 1);
    p[1] = a + b > 0 ? a / (a + b) : 0.1;
    if (!(p[1] > 1e-6 && p[1] < 1))
        p[1] = p[1] >= 1 ? 0.99 : 1e-3;
}
/* the speedup limit, T1 / (T1 s) */
static void amdahl_time_derive(const double *p, double *out) { out[0] = 1 / p[1]; }

/* --- usl-time: time y = T1 (1 + s (x - 1) + k x (x - 1)) / x --------------- */

static double usl_time_f(double x, const double *p)
{
    return p[0] * (1 + p[1] * (x - 1) + p[2] * x * (x - 1)) / x;
}
static void usl_time_df(double x, const double *p, double *dfdp)
{
    dfdp[0] = (1 + p[1] * (x - 1) + p[2] * x * (x - 1)) / x;
    dfdp[1] = p[0] * (x - 1) / x;
    dfdp[2] = p[0] * (x - 1);
}
/* y = (T1 (1 - s))/x + T1 (s - k) + T1 k x: linear in its three terms;
 * two at a time is what guess_linear solves, so first T1 (1 - s) and
 * T1 s from the Amdahl form, then k from what remains. */
static void usl_time_kappa_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = x - 1;
    *g2 = 0;
    *z = y;
}
static void usl_time_start(const fit_data *d, double *p)
{
    amdahl_time_start(d, p);
    double t1 = p[0], s = p[1];
    /* k from the residual of the Amdahl curve, (y - T1 (s + (1-s)/x)) / T1 = k (x - 1) */
    double kappa = 0, unused = 0;
    double *r = malloc((d->n ? d->n : 1) * sizeof *r);
    if (r && t1 > 0) {
        for (size_t i = 0; i < d->n; i++)
            r[i] = (d->y[i] - amdahl_time_f(d->x[i], p)) / t1;
        fit_data resid = { .n = d->n, .x = d->x, .y = r };
        guess_linear(&resid, usl_time_kappa_basis, 0, &kappa, &unused);
    }
    free(r);
    p[0] = t1;
    p[1] = s;
    p[2] = kappa > 0 ? kappa : 1e-6;
}
static void usl_time_derive(const double *p, double *out)
{
    double speedup_p[2] = { p[1], p[2] };
    usl_derive(speedup_p, out);
}

/* --- gustafson-time: weak-scaling time y = T1 x / (x - s (x - 1)) ---------
 * x workers on x times the work, each run's time against one worker on one
 * unit (T1): the scaled speedup x T1 / y is Gustafson's x - s (x - 1). */

static double gustafson_time_f(double x, const double *p)
{
    return p[0] * x / (x - p[1] * (x - 1));
}
static void gustafson_time_df(double x, const double *p, double *dfdp)
{
    double den = x - p[1] * (x - 1);
    dfdp[0] = x / den;
    dfdp[1] = p[0] * x * (x - 1) / (den * den);
}
/* x / y = (x - s (x - 1)) / T1 = a x + b (x - 1)... linear in 1/T1 and s/T1:
 * x/y = x (1/T1) - (x - 1) (s/T1). */
static void gustafson_time_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = x;
    *g2 = -(x - 1);
    *z = x / y;
}
static void gustafson_time_start(const fit_data *d, double *p)
{
    double a = d->n && d->y[0] != 0 ? 1 / d->y[0] : 1, b = 0;
    guess_linear(d, gustafson_time_basis, 1, &a, &b);
    p[0] = a > 0 ? 1 / a : (d->n ? d->y[0] : 1);
    p[1] = a > 0 ? b / a : 0.1;
    if (!isfinite(p[1]) || p[1] >= 1)
        p[1] = 0.1;
}
/* 1 - s: the efficiency as x grows (scaled speedup per worker); T1/(1 - s):
 * the time it tends to. */
static void gustafson_time_derive(const double *p, double *out)
{
    out[0] = 1 - p[1];
    out[1] = p[1] < 1 ? p[0] / (1 - p[1]) : NAN;
}

/* --- walkthrough: round y = base/x + J x/(x + 1) (docs/science.md §3, §5) - */

static double walkthrough_f(double x, const double *p) { return p[0] / x + p[1] * x / (x + 1); }
static void walkthrough_df(double x, const double *p, double *dfdp)
{
    (void)p;
    dfdp[0] = 1 / x;
    dfdp[1] = x / (x + 1);
}
static void walkthrough_basis(double x, double y, double *g1, double *g2, double *z)
{
    *g1 = 1 / x;
    *g2 = x / (x + 1);
    *z = y;
}
static void walkthrough_start(const fit_data *d, double *p)
{
    p[0] = d->n ? d->y[0] * d->x[0] : 1;
    p[1] = 0;
    guess_linear(d, walkthrough_basis, 1, &p[0], &p[1]);
}
/* T1 = base + J/2 (one worker's round, its wait J/2), ceiling = T1/J. */
static void walkthrough_derive(const double *p, double *out)
{
    out[0] = p[0] + p[1] / 2;
    out[1] = p[1] != 0 ? (p[0] + p[1] / 2) / p[1] : NAN;
}

static const fit_model models[] = {
    { .name = "amdahl",
      .formula = "1/(s + (1-s)/x)",
      .param_count = 1,
      .params = { { "s", FIT_UNIT_NONE,
                    "serial fraction: the share of one worker's time that does "
                    "not divide",
                    FIT_BOUND_FRACTION } },
      .derived_count = 1,
      .derived = { { "ceiling", FIT_UNIT_NONE, "speedup limit as x grows, 1/s",
                     FIT_BOUND_POSITIVE } },
      .positive_x = 1,
      .f = amdahl_f,
      .df = amdahl_df,
      .start = amdahl_start,
      .derive = amdahl_derive,
      .derived_profile = { 1 } },
    { .name = "gustafson",
      .formula = "x - s*(x-1)",
      .param_count = 1,
      .params = { { "s", FIT_UNIT_NONE, "serial fraction of the scaled run", FIT_BOUND_NONE } },
      .derived_count = 1,
      .derived = { { "efficiency_limit", FIT_UNIT_NONE, "speedup per worker as x grows, 1 - s",
                     FIT_BOUND_NONE } },
      .f = gustafson_f,
      .df = gustafson_df,
      .start = gustafson_start,
      .derive = gustafson_derive },
    { .name = "usl",
      .formula = "x/(1 + sigma*(x-1) + kappa*x*(x-1))",
      .param_count = 2,
      .params = { { "sigma", FIT_UNIT_NONE, "contention: the serial fraction", FIT_BOUND_NONE },
                  { "kappa", FIT_UNIT_NONE, "coherency: the cost of each pair of workers",
                    FIT_BOUND_NONE } },
      .derived_count = 2,
      .derived = { { "peak_x", FIT_UNIT_X, "where the speedup peaks, sqrt((1 - sigma)/kappa)",
                     FIT_BOUND_POSITIVE },
                   { "peak_speedup", FIT_UNIT_NONE, "the speedup at peak_x", FIT_BOUND_POSITIVE } },
      .positive_x = 1,
      .f = usl_f,
      .df = usl_df,
      .start = usl_start,
      .derive = usl_derive },
    { .name = "amdahl-time",
      .formula = "T1*(s + (1-s)/x)",
      .param_count = 2,
      .params = { { "T1", FIT_UNIT_Y, "the time on one worker", FIT_BOUND_POSITIVE },
                  { "s", FIT_UNIT_NONE,
                    "serial fraction: the share of one worker's time that does "
                    "not divide",
                    FIT_BOUND_FRACTION } },
      .derived_count = 1,
      .derived = { { "ceiling", FIT_UNIT_NONE, "speedup limit as x grows, 1/s",
                     FIT_BOUND_POSITIVE } },
      .positive_x = 1,
      .f = amdahl_time_f,
      .df = amdahl_time_df,
      .start = amdahl_time_start,
      .derive = amdahl_time_derive,
      .derived_profile = { 2 } },
    { .name = "usl-time",
      .formula = "T1*(1 + sigma*(x-1) + kappa*x*(x-1))/x",
      .param_count = 3,
      .params = { { "T1", FIT_UNIT_Y, "the time on one worker", FIT_BOUND_POSITIVE },
                  { "sigma", FIT_UNIT_NONE, "contention: the serial fraction", FIT_BOUND_NONE },
                  { "kappa", FIT_UNIT_NONE, "coherency: the cost of each pair of workers",
                    FIT_BOUND_NONE } },
      .derived_count = 2,
      .derived = { { "peak_x", FIT_UNIT_X, "where the speedup peaks, sqrt((1 - sigma)/kappa)",
                     FIT_BOUND_POSITIVE },
                   { "peak_speedup", FIT_UNIT_NONE, "the speedup at peak_x", FIT_BOUND_POSITIVE } },
      .positive_x = 1,
      .f = usl_time_f,
      .df = usl_time_df,
      .start = usl_time_start,
      .derive = usl_time_derive },
    { .name = "gustafson-time",
      .formula = "T1*x/(x - s*(x-1))",
      .param_count = 2,
      .params = { { "T1", FIT_UNIT_Y, "the time of one worker on one unit of work",
                    FIT_BOUND_POSITIVE },
                  { "s", FIT_UNIT_NONE, "serial fraction of the scaled run", FIT_BOUND_FRACTION } },
      .derived_count = 2,
      .derived = { { "efficiency_limit", FIT_UNIT_NONE,
                     "scaled speedup per worker as x grows, 1 - s", FIT_BOUND_FRACTION },
                   { "time_limit", FIT_UNIT_Y, "the time as x grows, T1/(1 - s)",
                     FIT_BOUND_POSITIVE } },
      .positive_x = 1,
      .f = gustafson_time_f,
      .df = gustafson_time_df,
      .start = gustafson_time_start,
      .derive = gustafson_time_derive,
      .derived_profile = { 2 } },
    { .name = "walkthrough",
      .formula = "base/x + J*x/(x+1)",
      .param_count = 2,
      .params = { { "base", FIT_UNIT_Y, "one worker's compute per round", FIT_BOUND_NONE },
                  { "J", FIT_UNIT_Y, "the largest delay of a worker per round (jitter)",
                    FIT_BOUND_NONE } },
      .derived_count = 2,
      .derived = { { "t1", FIT_UNIT_Y, "the one-worker round, base + J/2", FIT_BOUND_POSITIVE },
                   { "ceiling", FIT_UNIT_NONE, "speedup limit as x grows, t1/J",
                     FIT_BOUND_POSITIVE } },
      .positive_x = 1,
      .f = walkthrough_f,
      .df = walkthrough_df,
      .start = walkthrough_start,
      .derive = walkthrough_derive },
    { .name = "alpha-beta",
      .formula = "alpha + beta*x",
      .param_count = 2,
      .params = { { "alpha", FIT_UNIT_Y, "start-up time of one message (latency)", FIT_BOUND_NONE },
                  { "beta", FIT_UNIT_Y_PER_X, "time per unit of size (inverse bandwidth)",
                    FIT_BOUND_NONE } },
      .derived_count = 2,
      .derived = { { "bandwidth", FIT_UNIT_X_PER_Y, "1/beta", FIT_BOUND_POSITIVE },
                   { "n_half", FIT_UNIT_X,
                     "the size whose transfer costs one start-up, "
                     "alpha/beta",
                     FIT_BOUND_NONE } },
      .f = linear_f,
      .df = linear_df,
      .start = linear_start,
      .derive = alpha_beta_derive },
    { .name = "power",
      .formula = "a*x^b",
      .param_count = 2,
      .params = { { "a", FIT_UNIT_Y, "y at x = 1", FIT_BOUND_NONE },
                  { "b", FIT_UNIT_NONE, "the exponent", FIT_BOUND_NONE } },
      .positive_x = 1,
      .f = power_f,
      .df = power_df,
      .start = power_start },
    { .name = "linear",
      .formula = "a + b*x",
      .param_count = 2,
      .params = { { "a", FIT_UNIT_Y, "intercept, y at x = 0", FIT_BOUND_NONE },
                  { "b", FIT_UNIT_Y_PER_X, "slope", FIT_BOUND_NONE } },
      .f = linear_f,
      .df = linear_df,
      .start = linear_start },
};

const fit_model *fit_model_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

const char *fit_model_names(void)
{
    return "amdahl, amdahl-time, gustafson, gustafson-time, usl, usl-time, walkthrough, "
           "alpha-beta, power or linear";
}

fit_model *fit_model_user_new(const char *name, const char *formula, size_t param_count,
                              const char *const *names, const double *start, fit_eval_fn eval,
                              void *ctx, char **err)
{
    if (param_count < 1 || param_count > FIT_MAX_PARAMS) {
        util_fail(err, "a model has 1 to %d parameters, not %zu", FIT_MAX_PARAMS, param_count);
        return NULL;
    }
    fit_model *m = calloc(1, sizeof *m);
    int bad = !m || !(m->name = util_strdup(name)) || !(m->formula = util_strdup(formula));
    for (size_t j = 0; !bad && j < param_count; j++) {
        m->params[j] =
            (fit_quantity_desc){ util_strdup(names[j]), FIT_UNIT_NONE, "", FIT_BOUND_NONE };
        m->start_values[j] = start[j];
        bad = !m->params[j].name;
    }
    if (bad) {
        fit_model_user_free(m);
        util_fail(err, "out of memory");
        return NULL;
    }
    m->param_count = param_count;
    m->eval = eval;
    m->eval_ctx = ctx;
    return m;
}

void fit_model_user_free(fit_model *m)
{
    if (!m)
        return;
    /* a user model's strings are its own (casts: the built-in ones are
     * static) */
    free((char *)m->name);
    free((char *)m->formula);
    for (size_t j = 0; j < FIT_MAX_PARAMS; j++)
        free((char *)m->params[j].name);
    free(m);
}

const char *fit_model_name(const fit_model *m) { return m->name; }
const char *fit_model_formula(const fit_model *m) { return m->formula; }
size_t fit_model_param_count(const fit_model *m) { return m->param_count; }

double fit_model_eval(const fit_model *m, const double *p, double x)
{
    return m->positive_x && !(x > 0) ? NAN : m->f(x, p);
}

char *fit_unit_text(fit_unit_kind kind, const char *x_unit, const char *y_unit)
{
    x_unit = x_unit ? x_unit : "";
    y_unit = y_unit ? y_unit : "";
    switch (kind) {
    case FIT_UNIT_X: return util_strdup(x_unit);
    case FIT_UNIT_Y: return util_strdup(y_unit);
    case FIT_UNIT_Y_PER_X:
        return !*x_unit ? util_strdup(y_unit)
                        : util_format("%s/%s", *y_unit ? y_unit : "1", x_unit);
    case FIT_UNIT_X_PER_Y:
        return !*y_unit ? util_strdup(x_unit)
                        : util_format("%s/%s", *x_unit ? x_unit : "1", y_unit);
    case FIT_UNIT_NONE: break;
    }
    return util_strdup("");
}
