/* fit: nonlinear least squares with GSL's trust-region solver
 * (gsl_multifit_nlinear), standard errors from its covariance scaled by the
 * residual variance, Student-t intervals (gsl_cdf_tdist_Pinv), and derived
 * quantities by the delta method. */
#include "fit_int.h"
#include "numeric.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/budget.h"
#include "base/util.h"

#define DEFAULT_MAX_ITERATIONS 200
#define DEFAULT_CONFIDENCE 0.95
#define XTOL 1e-10 /* the driver's step and gradient tolerances */
#define GTOL 1e-10

typedef struct solver_ctx {
    const fit_model *model;
    const fit_data *data;
    char *eval_err;  /* a user model's failure (owned), which ends the fit */
    double *scratch; /* a user model's values (n): GSL's f may be strided */
} solver_ctx;

/* GSL's residual: f_i = model(x_i) - y_i (the weights are applied by GSL). */
static int residual_fn(const gsl_vector *p, void *arg, gsl_vector *f)
{
    solver_ctx *c = arg;
    /* every evaluation: a script's fit{} counts toward its limits */
    if (!c->eval_err && budget_check(&c->eval_err) != BUDGET_OK)
        return GSL_EBADFUNC;
    if (c->model->eval) {
        /* f may be a column of the finite-difference Jacobian (strided) */
        if (c->eval_err || c->model->eval(c->model->eval_ctx, c->data->x, c->data->n, p->data,
                                          c->scratch, &c->eval_err) != 0)
            return GSL_EBADFUNC;
        for (size_t i = 0; i < c->data->n; i++)
            f->data[i * f->stride] = c->scratch[i] - c->data->y[i];
        return GSL_SUCCESS;
    }
    /* f->data directly: gsl_vector_set checks the range of every element */
    const double *x = c->data->x, *y = c->data->y;
    double (*model_f)(double, const double *) = c->model->f;
    for (size_t i = 0; i < c->data->n; i++)
        f->data[i * f->stride] = model_f(x[i], p->data) - y[i];
    return GSL_SUCCESS;
}

static int jacobian_fn(const gsl_vector *p, void *arg, gsl_matrix *jac)
{
    const solver_ctx *c = arg;
    size_t param_count = c->model->param_count;
    for (size_t i = 0; i < c->data->n; i++) {
        double row[FIT_MAX_PARAMS];
        c->model->df(c->data->x[i], p->data, row);
        memcpy(jac->data + i * jac->tda, row, param_count * sizeof *row);
    }
    return GSL_SUCCESS;
}

/* GSL's gradient test (gsl_multifit_nlinear_test's gtol: max_i |g_i|
 * max(|p_i|, 1) <= gtol max(||f||^2 / 2, 1), g = J'f, both weighted), at the
 * start. The start of a model linear in its parameters is the least-squares
 * solution already: the driver would refuse every step from it, after
 * trying 16 of them over every row (a quarter of a 10^6-row fit's time). */
static int start_is_minimum(gsl_multifit_nlinear_workspace *w)
{
    const gsl_vector *p = gsl_multifit_nlinear_position(w);
    const gsl_vector *f = gsl_multifit_nlinear_residual(w);
    double g_values[FIT_MAX_PARAMS];
    gsl_vector_view g = gsl_vector_view_array(g_values, p->size);
    if (gsl_blas_dgemv(CblasTrans, 1.0, gsl_multifit_nlinear_jac(w), f, 0.0, &g.vector) !=
        GSL_SUCCESS)
        return 0;
    double gradient = 0, norm = gsl_blas_dnrm2(f);
    for (size_t i = 0; i < p->size; i++) {
        double scaled = fabs(g_values[i]) * fmax(fabs(gsl_vector_get(p, i)), 1);
        gradient = scaled > gradient || !isfinite(scaled) ? scaled : gradient;
    }
    return isfinite(gradient) && isfinite(norm) && gradient <= GTOL * fmax(norm * norm / 2, 1);
}

void fit_result_clear(fit_result *r)
{
    if (!r)
        return;
    free(r->fitted);
    free(r->residual);
    free(r->curve_x);
    free(r->curve_f);
    free(r->curve_low);
    free(r->curve_high);
    memset(r, 0, sizeof *r);
}

static int check_domain(const fit_model *m, const fit_data *d, char **err)
{
    if (!m->positive_x)
        return 0;
    size_t bad = 0;
    for (size_t i = 0; i < d->n; i++)
        bad += !(d->x[i] > 0);
    if (bad)
        return util_fail(err, "%s is defined for x > 0 only, and %zu row%s x <= 0", m->name, bad,
                         bad == 1 ? " has" : "s have");
    return 0;
}

/* The derived quantities at p with their standard errors: the gradient by
 * central differences, then sqrt(g' C g). */
static void derive_with_errors(const fit_model *m, const double *p, const gsl_matrix *cov,
                               double *value, double *std_error)
{
    double at[FIT_MAX_PARAMS], up[FIT_MAX_DERIVED], down[FIT_MAX_DERIVED];
    double grad[FIT_MAX_DERIVED][FIT_MAX_PARAMS];
    m->derive(p, value);
    for (size_t j = 0; j < m->param_count; j++) {
        memcpy(at, p, sizeof at);
        /* A step of about eps^(1/3) relative, the best for central differences. */
        double h = 6e-6 * (fabs(p[j]) > 1e-300 ? fabs(p[j]) : 1);
        at[j] = p[j] + h;
        m->derive(at, up);
        at[j] = p[j] - h;
        m->derive(at, down);
        for (size_t k = 0; k < m->derived_count; k++)
            grad[k][j] = (up[k] - down[k]) / (2 * h);
    }
    for (size_t k = 0; k < m->derived_count; k++) {
        double var = 0;
        for (size_t a = 0; a < m->param_count; a++)
            for (size_t b = 0; b < m->param_count; b++)
                var += grad[k][a] * gsl_matrix_get(cov, a, b) * grad[k][b];
        std_error[k] = isfinite(value[k]) && var >= 0 ? sqrt(var) : NAN;
    }
}

static void fill_estimate(fit_estimate *e, const fit_quantity_desc *d, int derived, double value,
                          double std_error, double t)
{
    e->name = d->name;
    e->doc = d->doc;
    e->unit = d->unit;
    e->derived = derived;
    e->value = value;
    e->std_error = std_error;
    e->interval = "wald";
    e->ci_low = isfinite(std_error) ? value - t * std_error : NAN;
    e->ci_high = isfinite(std_error) ? value + t * std_error : NAN;
    if (!isfinite(std_error))
        return;
    /* The delta method on a scale where the bound is at infinity: se of
     * log v is se/v, of logit v is se/(v (1 - v)); the interval is made
     * there and mapped back, so it never crosses the bound. */
    if (d->bound == FIT_BOUND_POSITIVE && value > 0) {
        double half = t * std_error / value;
        e->ci_low = value * exp(-half);
        e->ci_high = value * exp(half);
        e->interval = "log";
    } else if (d->bound == FIT_BOUND_FRACTION && value > 0 && value < 1) {
        double logit = log(value / (1 - value)), half = t * std_error / (value * (1 - value));
        e->ci_low = 1 / (1 + exp(-(logit - half)));
        e->ci_high = 1 / (1 + exp(-(logit + half)));
        e->interval = "logit";
    }
}

/* R^2 = 1 - RSS/TSS, both weighted when the fit is. */
static double r_squared(const fit_data *d, const double *residual)
{
    double sum_w = 0, sum_wy = 0, rss = 0, tss = 0;
    for (size_t i = 0; i < d->n; i++) {
        double w = d->sd ? 1 / (d->sd[i] * d->sd[i]) : 1;
        sum_w += w;
        sum_wy += w * d->y[i];
        rss += w * residual[i] * residual[i];
    }
    double mean = sum_wy / sum_w;
    for (size_t i = 0; i < d->n; i++) {
        double w = d->sd ? 1 / (d->sd[i] * d->sd[i]) : 1;
        tss += w * (d->y[i] - mean) * (d->y[i] - mean);
    }
    return tss > 0 ? 1 - rss / tss : NAN;
}

int fit_run(const fit_model *model, const fit_data *data, const fit_options *options,
            fit_result *out, char **err)
{
    memset(out, 0, sizeof *out);
    size_t n = data->n, p = model->param_count;
    size_t max_iterations =
        options && options->max_iterations ? options->max_iterations : DEFAULT_MAX_ITERATIONS;
    double confidence =
        options && options->confidence > 0 ? options->confidence : DEFAULT_CONFIDENCE;
    if (n < p + 1)
        return util_fail(err,
                         "%s has %zu parameter%s and needs at least %zu rows to estimate their "
                         "errors; %zu usable",
                         model->name, p, p == 1 ? "" : "s", p + 1, n);
    if (check_domain(model, data, err) != 0)
        return -1;
    numeric_init(); /* GSL's default handler aborts; cli_main turned it off already */

    int rc = -1;
    solver_ctx ctx = { model, data, NULL, NULL };
    /* a user model's Jacobian: GSL's forward differences (df NULL) */
    gsl_multifit_nlinear_fdf fdf = {
        .f = residual_fn, .df = model->eval ? NULL : jacobian_fn, .n = n, .p = p, .params = &ctx
    };
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, p);
    gsl_vector *weights = data->sd ? gsl_vector_alloc(n) : NULL;
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    out->fitted = malloc(n * sizeof *out->fitted);
    out->residual = malloc(n * sizeof *out->residual);
    if (model->eval)
        ctx.scratch = malloc(n * sizeof *ctx.scratch);
    if (!w || (data->sd && !weights) || !cov || !out->fitted || !out->residual ||
        (model->eval && !ctx.scratch)) {
        util_fail(err, "out of memory fitting %zu rows", n);
        goto done;
    }
    double start[FIT_MAX_PARAMS] = { 0 };
    if (model->eval)
        memcpy(start, model->start_values, sizeof start);
    else
        model->start(data, start);
    gsl_vector_view start_view = gsl_vector_view_array(start, p);
    int status;
    if (weights) {
        for (size_t i = 0; i < n; i++)
            gsl_vector_set(weights, i, 1 / (data->sd[i] * data->sd[i]));
        status = gsl_multifit_nlinear_winit(&start_view.vector, weights, &fdf, w);
    } else {
        status = gsl_multifit_nlinear_init(&start_view.vector, &fdf, w);
    }
    if (ctx.eval_err) { /* the user model failed at the start */
        *err = ctx.eval_err;
        ctx.eval_err = NULL;
        goto done;
    }
    int info = 0;
    if (status == GSL_SUCCESS && !start_is_minimum(w))
        status = gsl_multifit_nlinear_driver(max_iterations, XTOL, GTOL, 0, NULL, NULL, &info, w);
    double chi = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
    out->iterations = gsl_multifit_nlinear_niter(w);
    if (ctx.eval_err) {
        *err = ctx.eval_err;
        ctx.eval_err = NULL;
        goto done;
    }
    /* GSL reports EMAXITER with info ENOPROG when no step from the start
     * lowers the cost: the start (exact for the models linear in their
     * parameters) is already the minimum. */
    if (status == GSL_EMAXITER && info == GSL_ENOPROG && out->iterations <= 1)
        status = GSL_SUCCESS;
    if (status != GSL_SUCCESS || !isfinite(chi)) {
        util_fail(
            err, "%s did not converge after %zu iterations (last residual sum of squares %.6g%s%s)",
            model->name, out->iterations, chi * chi, status == GSL_EMAXITER ? "" : "; ",
            status == GSL_EMAXITER ? "" : gsl_strerror(status));
        goto done;
    }
    const gsl_vector *best = gsl_multifit_nlinear_position(w);
    double values[FIT_MAX_PARAMS];
    for (size_t j = 0; j < p; j++)
        values[j] = gsl_vector_get(best, j);
    /* (J'WJ)^-1 scaled by the residual variance: the weights are taken as
     * relative (scipy's absolute_sigma = False), so errors reflect the
     * scatter the data show. */
    gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 1e-12, cov);
    out->dof = n - p;
    out->rss = chi * chi;
    out->residual_sd = sqrt(out->rss / (double)out->dof);
    gsl_matrix_scale(cov, out->rss / (double)out->dof);
    for (size_t j = 0; j < p; j++) {
        double var = gsl_matrix_get(cov, j, j);
        if (!isfinite(values[j]) || !(var > 0 || (var == 0 && out->rss == 0)) || !isfinite(var)) {
            util_fail(err, "%s: the rows do not determine %s (do x's values differ enough?)",
                      model->name, model->params[j].name);
            goto done;
        }
    }
    double t = gsl_cdf_tdist_Pinv(0.5 + confidence / 2, (double)out->dof);
    for (size_t j = 0; j < p; j++)
        fill_estimate(&out->estimates[j], &model->params[j], 0, values[j],
                      sqrt(gsl_matrix_get(cov, j, j)), t);
    if (model->derived_count) {
        double derived[FIT_MAX_DERIVED], derived_error[FIT_MAX_DERIVED];
        derive_with_errors(model, values, cov, derived, derived_error);
        for (size_t k = 0; k < model->derived_count; k++)
            fill_estimate(&out->estimates[p + k], &model->derived[k], 1, derived[k],
                          derived_error[k], t);
    }
    /* Profile likelihood for the bounded parameters (fit_profile.c), and
     * the derived quantities that are a monotone function of one of them;
     * where it does not apply the delta method's interval stays. */
    for (size_t j = 0; j < p; j++) {
        double low, high;
        int profiled = fiti_profile(model, data, values, j, out->rss, out->dof, t,
                                    out->estimates[j].std_error, &low, &high, err);
        if (profiled == -2)
            goto done;
        if (profiled < 0)
            continue;
        out->estimates[j].ci_low = low;
        out->estimates[j].ci_high = high;
        out->estimates[j].interval = "profile";
        for (size_t k = 0; k < model->derived_count; k++) {
            if (model->derived_profile[k] != j + 1)
                continue;
            double at[FIT_MAX_PARAMS], ends[2][FIT_MAX_DERIVED];
            memcpy(at, values, sizeof at);
            at[j] = low;
            model->derive(at, ends[0]);
            at[j] = high;
            model->derive(at, ends[1]);
            fit_estimate *e = &out->estimates[p + k];
            double a = fmin(ends[0][k], ends[1][k]), b = fmax(ends[0][k], ends[1][k]);
            /* (an estimate outside the bound, profiled == 1: its derived
             * value is outside too, and the interval is what the bound
             * allows) */
            if (!isnan(a) && !isnan(b) && (profiled == 1 || (a <= e->value && e->value <= b))) {
                e->ci_low = a;
                e->ci_high = b;
                e->interval = "profile";
            }
        }
    }
    out->estimate_count = p + model->derived_count;
    if (model->eval && model->eval(model->eval_ctx, data->x, n, values, out->fitted, err) != 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        if (!model->eval)
            out->fitted[i] = model->f(data->x[i], values);
        out->residual[i] = data->y[i] - out->fitted[i];
    }
    out->r2 = r_squared(data, out->residual);
    /* cov is p x p from gsl_matrix_alloc: its rows are contiguous */
    if (model->eval && fiti_user_curve(model, data, values, cov->data, t, out) != 0) {
        util_fail(err, "out of memory for the curve of %s", model->name);
        goto done;
    }
    out->model = model;
    out->n = n;
    out->confidence = confidence;
    rc = 0;
done:
    free(ctx.eval_err);
    free(ctx.scratch);
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(weights);
    gsl_matrix_free(cov);
    if (rc != 0) {
        size_t iterations = out->iterations;
        fit_result_clear(out);
        out->iterations = iterations;
    }
    return rc;
}
