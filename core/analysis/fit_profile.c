/* fit_profile: profile-likelihood intervals of a bounded parameter of a
 * built-in model (Bates & Watts 1988, §6.1): the values c of parameter j
 * whose profile, the least residual sum of squares with p_j = c and the
 * other parameters refitted (GSL's gsl_multifit_nlinear), stays within
 * RSS_min (1 + t^2/dof), t the interval's Student quantile. The edges are
 * found on the scale that keeps the bound at infinity (log for a positive
 * parameter, logit for a fraction), bracketed by doubling steps and
 * solved by GSL's Brent root finder; so the interval never crosses the
 * bound and follows the curvature the delta method leaves out
 * (docs/analysis.md, "Honest intervals"). */
#include "fit_int.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/budget.h"

#define PROFILE_ITERATIONS 200
#define PROFILE_TOL 1e-10
#define PROFILE_DOUBLINGS 40 /* steps of se, 2 se, 4 se, ... on the transformed scale */
#define PROFILE_ROOT_ITERATIONS 100

typedef struct profile_ctx {
    const fit_model *m;
    const fit_data *d;
    size_t j;     /* the parameter held */
    double held;  /* its value */
    double *free; /* the others' last optimum (param_count - 1), the next start */
    fit_bound bound;
    double target; /* RSS_min (1 + t^2/dof) */
    int failed;
    char *budget_err; /* a script's limit passed (owned) */
} profile_ctx;

static void full_params(const profile_ctx *c, const double *free, double *p)
{
    for (size_t k = 0, f = 0; k < c->m->param_count; k++)
        p[k] = k == c->j ? c->held : free[f++];
}

static int held_residual(const gsl_vector *v, void *arg, gsl_vector *f)
{
    profile_ctx *c = arg;
    /* every evaluation: a script's fit{} counts toward its limits */
    if (c->budget_err || budget_check(&c->budget_err) != BUDGET_OK)
        return GSL_EBADFUNC;
    double p[FIT_MAX_PARAMS];
    full_params(c, v->data, p);
    for (size_t i = 0; i < c->d->n; i++)
        f->data[i * f->stride] = c->m->f(c->d->x[i], p) - c->d->y[i];
    return GSL_SUCCESS;
}

static int held_jacobian(const gsl_vector *v, void *arg, gsl_matrix *jac)
{
    const profile_ctx *c = arg;
    double p[FIT_MAX_PARAMS], row[FIT_MAX_PARAMS];
    full_params(c, v->data, p);
    for (size_t i = 0; i < c->d->n; i++) {
        c->m->df(c->d->x[i], p, row);
        for (size_t k = 0, f = 0; k < c->m->param_count; k++)
            if (k != c->j)
                jac->data[i * jac->tda + f++] = row[k];
    }
    return GSL_SUCCESS;
}

/* The profile's residual sum of squares at p_j = held (weighted as the
 * fit is); NaN when the refit fails. */
static double profile_rss(profile_ctx *c, double held)
{
    size_t n = c->d->n, p = c->m->param_count;
    c->held = held;
    double full[FIT_MAX_PARAMS];
    if (p == 1) {
        if (c->budget_err || budget_check(&c->budget_err) != BUDGET_OK)
            return NAN;
        full_params(c, c->free, full);
        double rss = 0;
        for (size_t i = 0; i < n; i++) {
            double r = c->m->f(c->d->x[i], full) - c->d->y[i];
            rss += c->d->sd ? r * r / (c->d->sd[i] * c->d->sd[i]) : r * r;
        }
        return rss;
    }
    gsl_multifit_nlinear_fdf fdf = {
        .f = held_residual, .df = held_jacobian, .n = n, .p = p - 1, .params = c
    };
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, p - 1);
    gsl_vector *weights = c->d->sd ? gsl_vector_alloc(n) : NULL;
    double rss = NAN;
    if (w && (!c->d->sd || weights)) {
        gsl_vector_view start = gsl_vector_view_array(c->free, p - 1);
        int status, info = 0;
        if (weights) {
            for (size_t i = 0; i < n; i++)
                weights->data[i * weights->stride] = 1 / (c->d->sd[i] * c->d->sd[i]);
            status = gsl_multifit_nlinear_winit(&start.vector, weights, &fdf, w);
        } else {
            status = gsl_multifit_nlinear_init(&start.vector, &fdf, w);
        }
        if (status == GSL_SUCCESS)
            status = gsl_multifit_nlinear_driver(PROFILE_ITERATIONS, PROFILE_TOL, PROFILE_TOL, 0,
                                                 NULL, NULL, &info, w);
        /* as fit_run: no step lowers the cost from the start, which is then
         * the minimum */
        if (status == GSL_EMAXITER && info == GSL_ENOPROG && gsl_multifit_nlinear_niter(w) <= 1)
            status = GSL_SUCCESS;
        if (status == GSL_SUCCESS) {
            double chi = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
            rss = chi * chi;
            const gsl_vector *at = gsl_multifit_nlinear_position(w);
            for (size_t k = 0; k + 1 < p; k++)
                c->free[k] = gsl_vector_get(at, k);
        }
    }
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(weights);
    return rss;
}

/* The parameter at u on the transformed scale, and back. */
static double from_scale(fit_bound b, double u)
{
    return b == FIT_BOUND_POSITIVE ? exp(u) : 1 / (1 + exp(-u));
}
static double to_scale(fit_bound b, double v)
{
    return b == FIT_BOUND_POSITIVE ? log(v) : log(v / (1 - v));
}

/* Brent's function: the profile's excess over the target at u. */
static double excess(double u, void *arg)
{
    profile_ctx *c = arg;
    double rss = profile_rss(c, from_scale(c->bound, u));
    if (!isfinite(rss)) {
        c->failed = 1;
        return 0; /* ends the solver; the caller sees failed */
    }
    return rss - c->target;
}

/* One edge: from u0 (the estimate) in direction dir, steps of h, 2h, ...
 * until the profile passes the target, then Brent between the last two.
 * 0 with *edge; when the profile stays under the target all the way to the
 * bound (the rows cannot rule the bound out), the bound itself: 0, 1 or
 * +inf; -1 when a refit failed. */
static int find_edge(profile_ctx *c, double u0, double h, int dir, double *edge)
{
    double free0[FIT_MAX_PARAMS];
    memcpy(free0, c->free, sizeof free0);
    double inside = u0, outside = NAN;
    for (int k = 0; k < PROFILE_DOUBLINGS && !c->failed; k++, h *= 2) {
        double u = u0 + dir * h, v = from_scale(c->bound, u);
        /* the scale's end in doubles: the bound itself */
        if (!isfinite(v) || v <= 0 || (c->bound == FIT_BOUND_FRACTION && v >= 1))
            break;
        double e = excess(u, c);
        if (c->failed)
            break;
        if (e >= 0) {
            outside = u;
            break;
        }
        inside = u;
    }
    if (!c->failed && !isfinite(outside)) { /* still under the target at the bound */
        memcpy(c->free, free0, sizeof free0);
        *edge = dir < 0 ? 0 : c->bound == FIT_BOUND_FRACTION ? 1 : INFINITY;
        return 0;
    }
    int rc = -1;
    if (!c->failed && isfinite(outside)) {
        gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
        gsl_function fn = { excess, c };
        double lo = inside < outside ? inside : outside, hi = inside < outside ? outside : inside;
        /* the refits start where the walk left off; Brent starts over */
        memcpy(c->free, free0, sizeof free0);
        if (s && gsl_root_fsolver_set(s, &fn, lo, hi) == GSL_SUCCESS) {
            int status = GSL_CONTINUE;
            for (int i = 0; i < PROFILE_ROOT_ITERATIONS && status == GSL_CONTINUE && !c->failed;
                 i++) {
                if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
                    break;
                lo = gsl_root_fsolver_x_lower(s);
                hi = gsl_root_fsolver_x_upper(s);
                status = gsl_root_test_interval(lo, hi, 1e-12, 1e-9);
            }
            if (status == GSL_SUCCESS && !c->failed) {
                *edge = from_scale(c->bound, gsl_root_fsolver_root(s));
                rc = 0;
            }
        }
        gsl_root_fsolver_free(s);
    }
    memcpy(c->free, free0, sizeof free0);
    return rc;
}

int fiti_profile(const fit_model *m, const fit_data *d, const double *best, size_t j,
                 double rss_min, size_t dof, double t, double std_error, double *low, double *high,
                 char **err)
{
    fit_bound b = m->params[j].bound;
    double v = best[j];
    int outside = b == FIT_BOUND_FRACTION && (v <= 0 || v >= 1);
    if (m->eval || !m->df || dof == 0 || d->n > FIT_PROFILE_MAX_ROWS || !(rss_min > 0) ||
        !(std_error > 0) || (b != FIT_BOUND_POSITIVE && b != FIT_BOUND_FRACTION) || !isfinite(v) ||
        (b == FIT_BOUND_POSITIVE && !(v > 0)))
        return -1;
    profile_ctx c = { .m = m, .d = d, .j = j, .bound = b };
    double free_values[FIT_MAX_PARAMS];
    for (size_t k = 0, f = 0; k < m->param_count; k++)
        if (k != j)
            free_values[f++] = best[k];
    c.free = free_values;
    c.target = rss_min * (1 + t * t / (double)dof);
    if (outside) {
        /* A fraction fitted outside (0, 1) (a negative serial fraction):
         * the interval is the part of (0, 1) the profile keeps under the
         * level, from the bound the estimate passed inwards; none when the
         * profile is above it there already. */
        int dir = v <= 0 ? +1 : -1;
        double u_bound = to_scale(b, v <= 0 ? 1e-9 : 1 - 1e-9), edge;
        double e = excess(u_bound, &c);
        int rc = c.failed || !(e < 0) ? -1 : find_edge(&c, u_bound, 1, dir, &edge);
        if (c.budget_err) {
            *err = c.budget_err;
            return -2;
        }
        if (rc != 0)
            return -1;
        *low = dir > 0 ? 0 : edge;
        *high = dir > 0 ? edge : 1;
        return 1;
    }
    /* the first step: the delta method's se on the transformed scale */
    double u0 = to_scale(b, v);
    double h = b == FIT_BOUND_POSITIVE ? std_error / v : std_error / (v * (1 - v));
    double lo, hi;
    int rc = find_edge(&c, u0, h, -1, &lo) != 0 || find_edge(&c, u0, h, +1, &hi) != 0 ? -1 : 0;
    if (c.budget_err) {
        *err = c.budget_err;
        return -2;
    }
    if (rc != 0)
        return -1;
    if (!(lo <= v && v <= hi))
        return -1;
    *low = lo;
    *high = hi;
    return 0;
}
