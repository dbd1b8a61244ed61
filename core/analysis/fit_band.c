/* fit_band: a stored fit's curve with its pointwise confidence band, for
 * what draws fits (the dashboard). The parameters' covariance is not
 * stored; it is rebuilt as fit.c has it at convergence, from the weighted
 * Jacobian at the stored parameters through the same
 * gsl_multifit_nlinear_covar, scaled by rss/dof. */
#include "fit_int.h"
#include "numeric.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define DEFAULT_CONFIDENCE 0.95

int fit_band(const fit_band_input *in, const double *at, size_t count, double *value, double *low,
             double *high, char **err)
{
    const fit_model *m = in->model;
    size_t p = m->param_count, n = in->n;
    if (!m->df)
        return util_fail(err, "%s: a model given as a function has no band to draw", m->name);
    if (in->dof == 0 || n < p + 1)
        return util_fail(err, "%s: %zu rows leave no degrees of freedom for a band", m->name, n);
    numeric_init(); /* GSL's default handler aborts; cli_main turned it off already */
    gsl_matrix *jac = gsl_matrix_alloc(n, p), *cov = gsl_matrix_alloc(p, p);
    if (!jac || !cov) {
        gsl_matrix_free(jac);
        gsl_matrix_free(cov);
        return util_fail(err, "out of memory for the band of %zu rows", n);
    }
    double row[FIT_MAX_PARAMS];
    for (size_t i = 0; i < n; i++) {
        /* GSL's Jacobian under weights is sqrt(W) J. */
        double scale = in->sd ? 1 / in->sd[i] : 1;
        m->df(in->x[i], in->params, row);
        for (size_t j = 0; j < p; j++)
            gsl_matrix_set(jac, i, j, scale * row[j]);
    }
    gsl_multifit_nlinear_covar(jac, 1e-12, cov);
    gsl_matrix_scale(cov, in->rss / (double)in->dof);
    double confidence = in->confidence > 0 ? in->confidence : DEFAULT_CONFIDENCE;
    double t = gsl_cdf_tdist_Pinv(0.5 + confidence / 2, (double)in->dof);
    for (size_t k = 0; k < count; k++) {
        double f = m->f(at[k], in->params), var = 0;
        m->df(at[k], in->params, row);
        for (size_t a = 0; a < p; a++)
            for (size_t b = 0; b < p; b++)
                var += row[a] * gsl_matrix_get(cov, a, b) * row[b];
        double half = isfinite(f) && var >= 0 ? t * sqrt(var) : NAN;
        value[k] = f;
        low[k] = f - half;
        high[k] = f + half;
    }
    gsl_matrix_free(jac);
    gsl_matrix_free(cov);
    return 0;
}

/* The values of m at p for the curve's x into f; 0, or -1 (the model failed;
 * its message is dropped: the curve is only lost, not the fit). */
static int eval_curve(const fit_model *m, const double *x, size_t n, const double *p, double *f)
{
    char *why = NULL;
    int rc = m->eval(m->eval_ctx, x, n, p, f, &why);
    free(why);
    return rc;
}

int fiti_user_curve(const fit_model *m, const fit_data *d, const double *p, const double *cov,
                    double t, fit_result *out)
{
    size_t count = FIT_CURVE_POINTS, params = m->param_count;
    double lo = d->x[0], hi = d->x[0];
    for (size_t i = 1; i < d->n; i++) {
        lo = d->x[i] < lo ? d->x[i] : lo;
        hi = d->x[i] > hi ? d->x[i] : hi;
    }
    out->curve_x = malloc(count * sizeof *out->curve_x);
    out->curve_f = malloc(count * sizeof *out->curve_f);
    out->curve_low = malloc(count * sizeof *out->curve_low);
    out->curve_high = malloc(count * sizeof *out->curve_high);
    /* g[j][k]: the gradient in parameter j at x k, by central differences */
    double *g = malloc(params * count * sizeof *g), *up = malloc(count * sizeof *up);
    int rc = -1;
    if (!out->curve_x || !out->curve_f || !out->curve_low || !out->curve_high || !g || !up)
        goto done;
    rc = 0;
    /* the spacing plot_fit gives a built-in model's curve */
    int logspaced = lo > 0 && hi >= 10 * lo;
    for (size_t k = 0; k < count; k++) {
        double share = (double)k / (double)(count - 1);
        out->curve_x[k] = logspaced ? lo * pow(hi / lo, share) : lo + (hi - lo) * share;
    }
    if (eval_curve(m, out->curve_x, count, p, out->curve_f) != 0)
        goto done;
    double at[FIT_MAX_PARAMS];
    for (size_t j = 0; j < params; j++) {
        memcpy(at, p, params * sizeof *at);
        /* as derive_with_errors (fit.c): about eps^(1/3) relative */
        double h = 6e-6 * (fabs(p[j]) > 1e-300 ? fabs(p[j]) : 1);
        at[j] = p[j] + h;
        if (eval_curve(m, out->curve_x, count, at, up) != 0)
            goto done;
        at[j] = p[j] - h;
        if (eval_curve(m, out->curve_x, count, at, &g[j * count]) != 0)
            goto done;
        for (size_t k = 0; k < count; k++)
            g[j * count + k] = (up[k] - g[j * count + k]) / (2 * h);
    }
    for (size_t k = 0; k < count; k++) {
        double f = out->curve_f[k], var = 0;
        for (size_t a = 0; a < params; a++)
            for (size_t b = 0; b < params; b++)
                var += g[a * count + k] * cov[a * params + b] * g[b * count + k];
        double half = isfinite(f) && var >= 0 ? t * sqrt(var) : NAN;
        out->curve_low[k] = f - half;
        out->curve_high[k] = f + half;
    }
    out->curve_n = count;
done:
    free(g);
    free(up);
    if (out->curve_n == 0) {
        free(out->curve_x);
        free(out->curve_f);
        free(out->curve_low);
        free(out->curve_high);
        out->curve_x = out->curve_f = out->curve_low = out->curve_high = NULL;
    }
    return rc;
}
