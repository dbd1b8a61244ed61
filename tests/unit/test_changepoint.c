/* test_changepoint: binary segmentation with the Mann–Whitney test on
 * seeded histories of 30 sweeps of 10 runs (2 % noise): a 5 % step planted
 * at sweep 17 is found there, with its ratio's interval holding 1.05, in
 * at least 95 of 100 seeds; with no step nothing is found in at least 95
 * of 100; two steps are both found. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "check.h"

#define SWEEPS 30
#define RUNS 10
#define SEEDS 100
/* the bootstrap of each change's ratio: 2000, not the command's 10^4, to
 * keep 300 histories quick */
#define RESAMPLES 2000

static double runs[SWEEPS][RUNS];
static const double *groups[SWEEPS];
static size_t sizes[SWEEPS];

/* Sweep i (0-based) is `steps` times 5 % slower from index `at` (and, with
 * a second step, from `at2`). */
static void draw(gsl_rng *rng, size_t at, size_t at2)
{
    for (size_t i = 0; i < SWEEPS; i++) {
        double level = 20 * (i >= at ? 1.05 : 1) * (i >= at2 ? 1.05 : 1);
        for (size_t r = 0; r < RUNS; r++)
            runs[i][r] = level * (1 + gsl_ran_gaussian(rng, 0.02));
        groups[i] = runs[i];
        sizes[i] = RUNS;
    }
}

/* A long history with a clear step (1000 sweeps of 200 runs, 5 % up at
 * sweep 501): many splits' p-values underflow to 0, and the first of
 * them once won, naming a change at sweep 428 with a ratio of 1 beside
 * the real one. Splits are ranked by log p: one change, at 500. */
static void test_long_history(void)
{
    enum {
        LONG = 1000,
        LONG_RUNS = 200
    };
    static double base[LONG_RUNS], up[LONG_RUNS];
    static const double *long_groups[LONG];
    static size_t long_sizes[LONG];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    for (size_t i = 0; i < LONG_RUNS; i++) {
        base[i] = 1 + gsl_ran_gaussian(rng, 0.02);
        up[i] = 1.05 * base[i];
    }
    gsl_rng_free(rng);
    for (size_t g = 0; g < LONG; g++) {
        long_groups[g] = g < LONG / 2 ? base : up;
        long_sizes[g] = LONG_RUNS;
    }
    changepoint found[8];
    size_t n = 0;
    CHECK_INT_EQ(changepoint_find(long_groups, long_sizes, LONG, 0.01, 1000, found, 8, &n), 0);
    CHECK_INT_EQ(n, 1);
    CHECK_INT_EQ(n ? found[0].at : 0, LONG / 2);
    CHECK(n && found[0].low <= 1.05 && 1.05 <= found[0].high);
}

int main(void)
{
    test_long_history();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    changepoint found[8];
    size_t n, named = 0, quiet = 0, both = 0;
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        gsl_rng_set(rng, seed);
        draw(rng, 16, SWEEPS); /* sweep 17, 1-based */
        CHECK_INT_EQ(changepoint_find(groups, sizes, SWEEPS, 0.01, RESAMPLES, found, 8, &n), 0);
        named += n == 1 && found[0].at == 16 && found[0].low <= 1.05 && 1.05 <= found[0].high &&
                 found[0].low > 1;
        draw(rng, SWEEPS, SWEEPS);
        CHECK_INT_EQ(changepoint_find(groups, sizes, SWEEPS, 0.01, RESAMPLES, found, 8, &n), 0);
        quiet += n == 0;
        draw(rng, 10, 20);
        CHECK_INT_EQ(changepoint_find(groups, sizes, SWEEPS, 0.01, RESAMPLES, found, 8, &n), 0);
        both += n == 2 && found[0].at == 10 && found[1].at == 20;
    }
    gsl_rng_free(rng);
    printf("5 %% step at sweep 17 of 30 named alone (interval holding 1.05) in %zu of %d seeds; "
           "no step: nothing found in %zu; steps at 11 and 21: both in %zu\n",
           named, SEEDS, quiet, both);
    CHECK(named >= 95);
    CHECK(quiet >= 95);
    CHECK(both >= 90);
    return check_done("test_changepoint");
}
