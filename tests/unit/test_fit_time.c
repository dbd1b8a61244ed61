/* test_fit_time: the models of measured time (amdahl-time, usl-time,
 * gustafson-time) and
 * --noise relative. Times drawn with noise that is 3 % of the value
 * (GSL's generator, seeded), 100 seeds: weighted by 1/y^2 (what --noise
 * relative does: sd = |y|), the 95 % intervals of every parameter cover
 * the truth at least 90 times; and the residual check (fit_noise_grows)
 * flags the unweighted fit of such data in most seeds and data with
 * constant noise in few. */
#include "check.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"

#define SEEDS 100
#define REPS 3
static const double workers[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
#define NX (sizeof workers / sizeof *workers)
#define N (NX * REPS)

static double amdahl_time(double x, const double *p) { return p[0] * (p[1] + (1 - p[1]) / x); }
static double usl_time(double x, const double *p)
{
    return p[0] * (1 + p[1] * (x - 1) + p[2] * x * (x - 1)) / x;
}
static double gustafson_time(double x, const double *p) { return p[0] * x / (x - p[1] * (x - 1)); }

typedef struct time_case {
    const char *model;
    double params[3];
    size_t param_count;
    double (*f)(double x, const double *p);
    /* the times spread enough (10 to 0.5 s) for the residual check to see
     * relative noise; gustafson-time's stay within 10 to 11.1 s, where 3 %
     * of the value is nearly a constant noise */
    int spread;
} time_case;

/* Fits c to seeded data of relative noise `share`; counts per parameter
 * how often the interval covers the truth (weighted: sd = |y|), and how
 * often the unweighted fit's residual check fires. */
static void run_case(const time_case *c, double share, int constant_noise, size_t covered[3],
                     size_t *flagged)
{
    const fit_model *m = fit_model_find(c->model);
    CHECK(m != NULL);
    if (!m)
        return;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double x[N], y[N], sd[N];
    memset(covered, 0, 3 * sizeof *covered);
    *flagged = 0;
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        gsl_rng_set(rng, seed);
        for (size_t i = 0; i < N; i++) {
            x[i] = workers[i % NX];
            double truth = c->f(x[i], c->params);
            double noise_sd =
                constant_noise ? share * c->f(workers[NX - 1], c->params) : share * truth;
            y[i] = truth + gsl_ran_gaussian(rng, noise_sd);
            sd[i] = fabs(y[i]);
        }
        fit_data weighted = { .n = N, .x = x, .y = y, .sd = sd },
                 plain = { .n = N, .x = x, .y = y };
        fit_result r = { 0 };
        char *err = NULL;
        if (fit_run(m, constant_noise ? &plain : &weighted, NULL, &r, &err) != 0) {
            fprintf(stderr, "%s seed %lu: %s\n", c->model, seed, err);
            free(err);
            check_failures++;
            continue;
        }
        for (size_t j = 0; j < c->param_count; j++)
            covered[j] +=
                r.estimates[j].ci_low <= c->params[j] && c->params[j] <= r.estimates[j].ci_high;
        fit_result_clear(&r);
        if (fit_run(m, &plain, NULL, &r, &err) != 0) {
            free(err);
            check_failures++;
            continue;
        }
        double rho, p;
        *flagged += fit_noise_grows(&r, &rho, &p) == 1;
        fit_result_clear(&r);
    }
    gsl_rng_free(rng);
}

static void test_coverage(void)
{
    const time_case cases[] = {
        { "amdahl-time", { 10, 0.05, 0 }, 2, amdahl_time, 1 },
        { "usl-time",
          {
              10,
              0.03,
              0.0005,
          },
          3,
          usl_time,
          1 },
        { "gustafson-time", { 10, 0.1, 0 }, 2, gustafson_time, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t covered[3], flagged;
        run_case(&cases[k], 0.03, 0, covered, &flagged);
        printf("%s, 3 %% relative noise, --noise relative: covered", cases[k].model);
        for (size_t j = 0; j < cases[k].param_count; j++) {
            printf(" %zu", covered[j]);
            CHECK(covered[j] >= 90);
        }
        printf(" of %d; the unweighted fit's residual check fired in %zu\n", SEEDS, flagged);
        CHECK(!cases[k].spread || flagged >= 90);
        run_case(&cases[k], 0.03, 1, covered, &flagged);
        printf("%s, constant noise, unweighted: covered", cases[k].model);
        for (size_t j = 0; j < cases[k].param_count; j++) {
            printf(" %zu", covered[j]);
            CHECK(covered[j] >= 90);
        }
        printf(" of %d; the residual check fired in %zu\n", SEEDS, flagged);
        CHECK(flagged <= 5);
    }
}

/* Exact times: the parameters come back, and the derived quantities. */
static void test_exact(void)
{
    double x[NX], y[NX];
    const double p[3] = { 12, 0.1, 0.001 };
    for (size_t i = 0; i < NX; i++) {
        x[i] = workers[i];
        y[i] = usl_time(x[i], p);
    }
    fit_data d = { .n = NX, .x = x, .y = y };
    fit_result r = { 0 };
    char *err = NULL;
    CHECK_INT_EQ(fit_run(fit_model_find("usl-time"), &d, NULL, &r, &err), 0);
    CHECK_NEAR(r.estimates[0].value, 12, 1e-6);
    CHECK_NEAR(r.estimates[1].value, 0.1, 1e-8);
    CHECK_NEAR(r.estimates[2].value, 0.001, 1e-9);
    CHECK_NEAR(r.estimates[3].value, sqrt(0.9 / 0.001), 1e-4); /* peak_x */
    fit_result_clear(&r);
    for (size_t i = 0; i < NX; i++)
        y[i] = amdahl_time(x[i], p);
    CHECK_INT_EQ(fit_run(fit_model_find("amdahl-time"), &d, NULL, &r, &err), 0);
    CHECK_NEAR(r.estimates[0].value, 12, 1e-8);
    CHECK_NEAR(r.estimates[1].value, 0.1, 1e-10);
    CHECK_NEAR(r.estimates[2].value, 10, 1e-8); /* ceiling 1/s */
    fit_result_clear(&r);
    for (size_t i = 0; i < NX; i++)
        y[i] = gustafson_time(x[i], p);
    CHECK_INT_EQ(fit_run(fit_model_find("gustafson-time"), &d, NULL, &r, &err), 0);
    CHECK_NEAR(r.estimates[0].value, 12, 1e-8);
    CHECK_NEAR(r.estimates[1].value, 0.1, 1e-10);
    CHECK_NEAR(r.estimates[2].value, 0.9, 1e-10);     /* efficiency_limit 1 - s */
    CHECK_NEAR(r.estimates[3].value, 12 / 0.9, 1e-8); /* time_limit T1/(1 - s) */
    fit_result_clear(&r);
}

static double amdahl_speedup(double x, const double *p) { return 1 / (p[0] + (1 - p[0]) / x); }

/* Few, noisy speedups (the Wald interval of such a ceiling once read
 * "1.6x [-27.4, 30.6]"): over 100 seeds the serial fraction's interval
 * stays inside (0, 1) and the ceiling's above 0, each says how it was
 * made, and each covers the truth at least 90 times. */
static void test_bounds(void)
{
    const fit_model *m = fit_model_find("amdahl");
    const double truth[1] = { 0.6 }, xs[] = { 1, 2, 3, 4 };
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    size_t cover_s = 0, cover_ceiling = 0, inside = 0, fits = 0;
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        gsl_rng_set(rng, seed);
        double x[4], y[4];
        for (size_t i = 0; i < 4; i++) {
            x[i] = xs[i];
            y[i] = amdahl_speedup(x[i], truth) * (1 + gsl_ran_gaussian(rng, 0.1));
        }
        fit_data d = { .n = 4, .x = x, .y = y };
        fit_result r = { 0 };
        char *err = NULL;
        if (fit_run(m, &d, NULL, &r, &err) != 0) {
            free(err);
            continue;
        }
        fits++;
        const fit_estimate *s = &r.estimates[0], *ceiling = &r.estimates[1];
        int s_inside = s->value > 0 && s->value < 1;
        if (s_inside) {
            /* the profile may reach a bound (s = 0: ceiling infinite) */
            inside += s->ci_low >= 0 && s->ci_high <= 1 && ceiling->ci_low > 0;
            CHECK_STR_EQ(s->interval, "profile");
            CHECK_STR_EQ(ceiling->interval, "profile");
        } else { /* fitted outside (0, 1): the part of it the rows allow */
            inside += s->ci_low >= 0 && s->ci_high <= 1 && ceiling->ci_low > 0;
        }
        cover_s += s->ci_low <= truth[0] && truth[0] <= s->ci_high;
        cover_ceiling += ceiling->ci_low <= 1 / truth[0] && 1 / truth[0] <= ceiling->ci_high;
        fit_result_clear(&r);
    }
    gsl_rng_free(rng);
    printf("amdahl, 4 rows, 10 %% noise: %zu fits, intervals inside their bounds in %zu, "
           "covering s %zu and the ceiling %zu\n",
           fits, inside, cover_s, cover_ceiling);
    CHECK_INT_EQ(inside, fits);
    CHECK(cover_s >= 90 && cover_ceiling >= 90);
}

/* gustafson-time on few, noisy weak-scaling times (five worker counts,
 * 5 % noise): over 100 seeds, s and efficiency_limit stay inside (0, 1)
 * (logit) and T1 and time_limit above 0 (log), and each derived
 * quantity's interval covers its truth at least 90 times. */
static void test_bounds_gustafson(void)
{
    const fit_model *m = fit_model_find("gustafson-time");
    const double truth[2] = { 10, 0.3 }, xs[] = { 1, 2, 4, 8, 16 };
    const double want[4] = { 10, 0.3, 0.7, 10 / 0.7 };
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    size_t cover[4] = { 0 }, inside = 0, fits = 0;
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        gsl_rng_set(rng, seed);
        double x[5], y[5];
        for (size_t i = 0; i < 5; i++) {
            x[i] = xs[i];
            y[i] = gustafson_time(x[i], truth) * (1 + gsl_ran_gaussian(rng, 0.05));
        }
        fit_data d = { .n = 5, .x = x, .y = y };
        fit_result r = { 0 };
        char *err = NULL;
        if (fit_run(m, &d, NULL, &r, &err) != 0) {
            free(err);
            continue;
        }
        fits++;
        const fit_estimate *e = r.estimates;
        if (e[1].value > 0 && e[1].value < 1) {
            inside += e[0].ci_low > 0 && e[1].ci_low >= 0 && e[1].ci_high <= 1 &&
                      e[2].ci_low >= 0 && e[2].ci_high <= 1 && e[3].ci_low > 0;
            CHECK_STR_EQ(e[0].interval, "profile");
            CHECK_STR_EQ(e[1].interval, "profile");
            CHECK_STR_EQ(e[2].interval, "profile"); /* 1 - s: s's profile mapped */
            CHECK_STR_EQ(e[3].interval, "log");     /* T1/(1 - s): two parameters */
        } else {
            inside++; /* outside the bounds: Wald, nothing to map back */
        }
        for (size_t k = 0; k < 4; k++)
            cover[k] += e[k].ci_low <= want[k] && want[k] <= e[k].ci_high;
        fit_result_clear(&r);
    }
    gsl_rng_free(rng);
    printf("gustafson-time, 5 rows, 5 %% noise: %zu fits, inside their bounds in %zu, covering "
           "T1 %zu, s %zu, efficiency_limit %zu, time_limit %zu\n",
           fits, inside, cover[0], cover[1], cover[2], cover[3]);
    CHECK_INT_EQ(fits, SEEDS);
    CHECK_INT_EQ(inside, fits);
    for (size_t k = 0; k < 4; k++)
        CHECK(cover[k] >= 90);
}

/* Near-linear speedups fit a negative serial fraction (s = -0.0038): the
 * Wald interval read s [-0.022, 0.015] and ceiling [-1565, 1037]. The
 * profile keeps what (0, 1) allows: s from 0 to 0.016, the ceiling from
 * 62.6 up, unbounded (the rows cannot rule out s = 0). The edge as
 * SciPy finds it: brentq on RSS(s) - RSS_min (1 + t(0.975, 3)^2/3) gives
 * 0.0159747894728. */
static void test_outside(void)
{
    double x[] = { 1, 2, 3, 4 }, y[] = { 1.0, 2.05, 2.9, 4.1 };
    fit_data d = { .n = 4, .x = x, .y = y };
    fit_result r = { 0 };
    char *err = NULL;
    CHECK_INT_EQ(fit_run(fit_model_find("amdahl"), &d, NULL, &r, &err), 0);
    CHECK(r.estimates[0].value < 0);
    CHECK_STR_EQ(r.estimates[0].interval, "profile");
    CHECK_NEAR(r.estimates[0].ci_low, 0, 0);
    CHECK_NEAR(r.estimates[0].ci_high, 0.015974789, 1e-8);
    CHECK_STR_EQ(r.estimates[1].interval, "profile");
    CHECK_NEAR(r.estimates[1].ci_low, 1 / 0.015974789, 1e-4);
    CHECK(isinf(r.estimates[1].ci_high));
    fit_result_clear(&r);
}

int main(void)
{
    test_outside();
    test_bounds();
    test_bounds_gustafson();
    test_exact();
    test_coverage();
    return check_done("test_fit_time");
}
