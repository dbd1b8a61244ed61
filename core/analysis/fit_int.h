/* fit_int.h: what fit.c and fit_models.c share — a model as data. */
#ifndef RUNNER_ANALYSIS_FIT_INT_H
#define RUNNER_ANALYSIS_FIT_INT_H

#include "fit.h"

/* What values a quantity can take: its interval is made on a scale that
 * keeps it there (fit.c). */
typedef enum fit_bound {
    FIT_BOUND_NONE,     /* any real: Wald */
    FIT_BOUND_POSITIVE, /* > 0 (a time, a ceiling, a peak): on log */
    FIT_BOUND_FRACTION  /* in (0, 1) (a serial fraction): on logit */
} fit_bound;

typedef struct fit_quantity_desc {
    const char *name;
    fit_unit_kind unit;
    const char *doc;
    fit_bound bound;
} fit_quantity_desc;

struct fit_model {
    const char *name;
    const char *formula; /* in x and the parameters' names */
    size_t param_count;
    fit_quantity_desc params[FIT_MAX_PARAMS];
    size_t derived_count;
    fit_quantity_desc derived[FIT_MAX_DERIVED];
    /* The model must be evaluated only where x > 0 (1/x, ln x). */
    int positive_x;
    /* f(x; p), and its partial derivatives in p (dfdp[param_count]). */
    double (*f)(double x, const double *p);
    void (*df)(double x, const double *p, double *dfdp);
    /* A starting point for the solver from the data (never fails: a poor
     * guess only costs iterations). */
    void (*start)(const fit_data *d, double *p);
    /* The derived quantities at p (NaN where undefined); their gradients
     * are taken numerically (fit.c). NULL when derived_count is 0. */
    void (*derive)(const double *p, double *out);
    /* Derived quantity k is a monotone function of parameter
     * derived_profile[k] - 1 alone (0: of several, or none): its interval is
     * that parameter's profile interval mapped through derive. */
    size_t derived_profile[FIT_MAX_DERIVED];
    /* A user model (fit_model_user_new): f, df, start and derive are NULL;
     * eval computes every row at once, from start_values. */
    fit_eval_fn eval;
    void *eval_ctx;
    double start_values[FIT_MAX_PARAMS];
};

/* Profile likelihood (fit_profile.c) for fits of at most this many rows:
 * past it the delta method on log/logit is as good and costs no refits. */
#define FIT_PROFILE_MAX_ROWS 10000

/* The profile-likelihood interval of parameter j of built-in model m, fitted
 * to d at best with residual sum of squares rss_min (weighted as d is), dof
 * degrees of freedom, t the interval's quantile and std_error j's delta-method
 * error (the first step). Only for a parameter bounded above 0 (estimate
 * inside) or inside (0, 1). 0 with *low, *high; 1 with them when a
 * fraction's estimate lies outside (0, 1): the part of (0, 1) the profile
 * keeps under the level, from the bound passed; -1 when it does not apply
 * or a refit fails, or no value inside the bound is under the level (the
 * caller keeps the delta method); -2 with *err when a script's limits ran
 * out (budget.h). */
int fiti_profile(const fit_model *m, const fit_data *d, const double *best, size_t j,
                 double rss_min, size_t dof, double t, double std_error, double *low, double *high,
                 char **err);

/* Fills out's curve (fit_result.curve_*) for a user model fitted to d at
 * p, with cov the parameters' covariance (param_count x param_count, row
 * major, scaled as fit_run has it) and t the interval's quantile. A
 * failure of the model leaves curve_n 0; returns -1 only out of memory. */
int fiti_user_curve(const fit_model *m, const fit_data *d, const double *p, const double *cov,
                    double t, fit_result *out);

#endif
