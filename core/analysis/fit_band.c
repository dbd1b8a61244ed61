/* fit_band: a stored fit's curve with its pointwise confidence band, for
 * what draws fits (the dashboard). The parameters' covariance is not
 * stored; it is rebuilt as fit.c has it at convergence, from the weighted
 * Jacobian at the stored parameters through the same
 * gsl_multifit_nlinear_covar, scaled by rss/dof. */
#include "fit_int.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>

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
    gsl_set_error_handler_off(); /* GSL's default aborts the process */
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
