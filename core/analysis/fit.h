/* fit: least-squares fits of scaling laws to stored rows (`runner fit`,
 * docs/analysis.md). fit_models.c says what each model is; fit.c runs GSL's
 * trust-region solver and turns its covariance into standard errors, 95 %
 * intervals and, by the delta method, intervals of derived quantities;
 * fit_data.c reads x, y (and --by, --weights) of one stored section. */
#ifndef RUNNER_ANALYSIS_FIT_H
#define RUNNER_ANALYSIS_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/value.h"
#include "store/store.h"

#define FIT_MAX_PARAMS 8 /* a user model's; the built-in ones have at most 3 */
#define FIT_MAX_DERIVED 3
#define FIT_CURVE_POINTS 200 /* a user model's stored curve (fit_result) */

/* Which unit a quantity has, in terms of the fitted columns' units. */
typedef enum fit_unit_kind {
    FIT_UNIT_NONE,    /* dimensionless */
    FIT_UNIT_X,       /* x's unit ("workers") */
    FIT_UNIT_Y,       /* y's unit ("s") */
    FIT_UNIT_Y_PER_X, /* y's unit per x's unit ("s/bytes") */
    FIT_UNIT_X_PER_Y  /* x's unit per y's unit ("bytes/s") */
} fit_unit_kind;

/* The unit of a quantity of this kind, for columns x_unit and y_unit
 * ("" when dimensionless): "s", "s/bytes", "1/s"; malloc'd. */
char *fit_unit_text(fit_unit_kind kind, const char *x_unit, const char *y_unit);

/* A model y = f(x; p): its name as typed, its formula, parameters and
 * derived quantities (fit_models.c). */
typedef struct fit_model fit_model;

/* The model called name ("usl"), or NULL. */
const fit_model *fit_model_find(const char *name);
/* "amdahl, amdahl-time, gustafson, gustafson-time, usl, ..., power or linear". */
const char *fit_model_names(void);
const char *fit_model_name(const fit_model *m);
/* The formula in x, as stored in fit.formula ("base/x + J*x/(x+1)"). */
const char *fit_model_formula(const fit_model *m);
size_t fit_model_param_count(const fit_model *m);
/* f(x; p) with p[fit_model_param_count(m)]: a fitted curve's value at x
 * (NaN where the model is undefined, x <= 0 for a model that needs x > 0). */
double fit_model_eval(const fit_model *m, const double *p, double x);

/* A model given as a function (Lua's fit{model = function(x, p) ...}):
 * eval fills fitted[i] = f(x[i]; p) for i < n and returns 0, or returns -1
 * with *err (malloc'd), which ends the fit with that message. analysis/
 * never sees the language the function is written in: script/ passes a
 * trampoline and its context. */
typedef int (*fit_eval_fn)(void *ctx, const double *x, size_t n, const double *p, double *fitted,
                           char **err);

/* A model of param_count (1..FIT_MAX_PARAMS) parameters named names
 * (copied), started from start, evaluated by eval(ctx, ...) (ctx borrowed:
 * it must outlive the model's fits). name and formula are what the fit
 * table stores. Its Jacobian is taken by finite differences; it has no
 * derived quantities. Returns the model (fit_model_user_free) or NULL with
 * *err: too many parameters, out of memory. */
fit_model *fit_model_user_new(const char *name, const char *formula, size_t param_count,
                              const char *const *names, const double *start, fit_eval_fn eval,
                              void *ctx, char **err);
void fit_model_user_free(fit_model *m); /* accepts NULL */

/* One fitted or derived quantity. */
typedef struct fit_estimate {
    const char *name; /* static (the model's) */
    const char *doc;  /* static */
    fit_unit_kind unit;
    int derived;      /* 0: a parameter; 1: derived from them (delta method) */
    double value;     /* NaN: undefined (a ceiling with J = 0) */
    double std_error; /* standard error; NaN when not defined */
    double ci_low;    /* the 95 % interval (interval says how) */
    double ci_high;
    /* How the interval was made (docs/analysis.md, "Honest intervals"):
     * "wald": value -/+ t(0.975, dof) stderr; "log": the same on log(value)
     * (a quantity > 0: the interval stays above 0); "logit": on
     * log(v/(1 - v)) (a fraction in (0, 1): it stays inside); "profile":
     * profile likelihood (a bounded parameter of a built-in model, fits of
     * at most FIT_PROFILE_MAX_ROWS rows, and the derived quantities that
     * are a function of it alone; fit_profile.c). Static. */
    const char *interval;
} fit_estimate;

/* The rows one fit uses. Arrays are the caller's; sd NULL: unweighted. */
typedef struct fit_data {
    size_t n;
    const double *x, *y;
    const double *sd; /* --weights: each y's standard deviation (> 0) */
} fit_data;

typedef struct fit_options {
    size_t max_iterations; /* 0: 200 */
    double confidence;     /* 0: 0.95 */
} fit_options;

/* A fit's answer; fitted and residual hold n values (fit_result_clear). */
typedef struct fit_result {
    const fit_model *model;
    size_t n, dof;
    size_t estimate_count; /* parameters first, then derived quantities */
    fit_estimate estimates[FIT_MAX_PARAMS + FIT_MAX_DERIVED];
    double r2;          /* 1 - RSS/TSS (both weighted under --weights) */
    double rss;         /* residual sum of squares (weighted: chi-square) */
    double residual_sd; /* sqrt(rss / dof): y's unit when unweighted */
    double confidence;  /* 0.95 */
    size_t iterations;
    double *fitted;   /* f(x_i; p), y's unit */
    double *residual; /* y_i - fitted_i, y's unit (never weighted) */
    /* A user model's curve, which nothing can draw from a formula later:
     * curve_n (FIT_CURVE_POINTS) x spread over the fitted ones (log-spaced
     * when x > 0 spans a factor of 10), the model there and its pointwise
     * band as fit_band has it (gradients by central differences); NaN where
     * undefined. curve_n 0: a built-in model, or the function failed at
     * one of these x (the fit stands; only the drawing is lost). */
    size_t curve_n;
    double *curve_x, *curve_f, *curve_low, *curve_high;
} fit_result;

/* Fits model to data. Returns 0 with *out filled (fit_result_clear it), or
 * -1 with *err (malloc'd) one line: too few rows, no convergence (the
 * iterations and the last residual sum of squares), parameters the data
 * cannot determine. data must hold only finite values and positive sd. */
int fit_run(const fit_model *model, const fit_data *data, const fit_options *options,
            fit_result *out, char **err);
void fit_result_clear(fit_result *r); /* accepts NULL */

/* The residual check (fit_check.c): does the size of the residuals grow
 * with the fitted value, as when the noise is a share of the value? The
 * Goldfeld–Quandt test on the fit's residuals: rows ordered by fitted
 * value, the mean square of the residuals of the top third over that of
 * the bottom third (*ratio), one-sided p from F(n/3, n/3)
 * (gsl_cdf_fdist_Q). Returns 1 when p < FIT_NOISE_GROWS_P (n >= 9), else
 * 0 (*ratio and *p NaN when n < 9); -1: out of memory. */
#define FIT_NOISE_GROWS_P 0.01
int fit_noise_grows(const fit_result *r, double *ratio, double *p);

/* --- reading a section (fit_data.c) -------------------------------------- */

/* One group of a section's rows (all of them without --by): the values to
 * fit and, per row, its key in the result table. Owned by the set. */
typedef struct fit_group {
    value by;            /* the --by column's value; NULL value without --by */
    size_t n, capacity;  /* usable rows */
    double *x, *y, *sd;  /* sd NULL without --weights */
    store_row_key *keys; /* where each row is stored */
    size_t excluded;     /* rows with NaN, inf or NULL in x, y or sd, or sd <= 0 */
} fit_group;

typedef struct fit_group_set {
    fit_group *groups; /* in order of their first row */
    size_t count;
    char *x_unit, *y_unit; /* the columns' units ("" when none) */
} fit_group_set;

/* What to read: column names (by and weights may be NULL). */
typedef struct fit_columns {
    const char *x, *y, *by, *weights;
} fit_columns;

/* --- answering for a section (fit_answer.c) ------------------------------ */

/* The question: a section (its sweep and ordinal name it in messages), a
 * model and the columns. Everything borrowed. */
/* What fit.weight_column holds for a fit with --noise relative. */
#define FIT_RELATIVE_NOISE "--noise relative"

typedef struct fit_question {
    int64_t sweep_id, section_id;
    int ordinal;
    const fit_model *model;
    fit_columns columns;
    /* --noise relative: each y's sd taken as |y| (weights 1/y^2: the noise
     * is a share of the value); columns.weights must then be NULL */
    int relative_noise;
    int again; /* STORE_ANSWER_KEEP, _AGAIN, _ADD or _KEEP_ADD (store.h) */
} fit_question;

/* What `runner fit` and Lua's fit{} print and store: one fit per group. */
typedef struct fit_answer {
    fit_group_set groups;
    fit_result *results; /* groups.count */
    int64_t *ids;        /* groups.count: the stored fit rows */
    size_t excluded;     /* rows left out over every group */
    int kept;            /* 1: the stored fits answered it (store_fits_write) */
} fit_answer;

/* Reads the section, fits every group and stores the fits (fit, fit_param,
 * fit_residual; one transaction). Returns 0 with *out (fit_answer_clear),
 * or -1 with *err one line starting "sweep S, section N" (and the group
 * under --by): a column missing or not numeric, no rows, a fit refused;
 * nothing is stored then. */
int fit_answer_section(store *s, const fit_question *q, fit_answer *out, char **err);
void fit_answer_clear(fit_answer *a); /* accepts NULL */

/* --- a stored fit's curve with its confidence band (fit_band.c) ---------- */

/* A fit as stored: what its band is computed from. Everything borrowed. */
typedef struct fit_band_input {
    const fit_model *model;
    const double *params; /* fit_model_param_count(model) fitted values */
    size_t n;             /* rows fitted */
    const double *x;      /* their x */
    const double *sd;     /* a weighted fit's y standard deviations; NULL: unweighted */
    double rss;           /* as stored: chi-square for a weighted fit */
    size_t dof;
    double confidence; /* 0: 0.95 */
} fit_band_input;

/* The fitted curve at at[count] with its pointwise confidence band (of the
 * curve, not of new rows): value[i] = f(at[i]), low and high = value -/+
 * t(dof) sqrt(g' C g), g the gradient of f in the parameters at at[i] and C
 * their covariance as fit_run has it, (J'WJ)^-1 rss/dof, rebuilt from the
 * rows' x at the stored parameters (so the parameters' own intervals come
 * back). NaN where the model is undefined. Returns 0, or -1 with *err
 * (malloc'd): a user model (no derivatives), no degrees of freedom, out of
 * memory. */
int fit_band(const fit_band_input *in, const double *at, size_t count, double *value, double *low,
             double *high, char **err);

#endif
