/* bench_bootstrap: diff --stat --test bootstrap's cost per point and
 * column — 10^4 resamples (ROBUST_BOOTSTRAP_RESAMPLES) of 10^3 runs a side
 * (target < 1 s, issue 35), and the Mann–Whitney test of the same samples
 * for scale. Prints wall and CPU seconds; the machine's load beside it is
 * the reader's to note (docs/performance.md, "Robust comparison"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/analysis.h"

#define RUNS 1000

static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    static double a[RUNS], b[RUNS];
    unsigned long state = 1;
    for (size_t i = 0; i < RUNS; i++) { /* log-normal-ish timings, b 5 % slower */
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        double u = (double)(state >> 11) / 9007199254740992.0;
        a[i] = 0.02 * exp(0.1 * (u - 0.5));
        b[i] = 1.05 * 0.02 * exp(0.1 * (0.5 - u));
    }
    double best_wall = INFINITY, best_cpu = INFINITY;
    robust_bootstrap r;
    for (int rep = 0; rep < 3; rep++) {
        double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
        if (robust_bootstrap_ratio(a, RUNS, b, RUNS, 0.95, ROBUST_BOOTSTRAP_RESAMPLES,
                                   ROBUST_BOOTSTRAP_SEED, &r) != 0)
            return 1;
        double w = seconds(CLOCK_MONOTONIC) - w0, c = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
        best_wall = w < best_wall ? w : best_wall;
        best_cpu = c < best_cpu ? c : best_cpu;
    }
    printf("bootstrap: %d resamples of %d runs a side: %.3f s (%.3f CPU-s), best of 3; "
           "target < 1 s: %s (ratio %.4f [%.4f, %.4f])\n",
           ROBUST_BOOTSTRAP_RESAMPLES, RUNS, best_wall, best_cpu, best_wall < 1 ? "PASS" : "MISS",
           r.ratio, r.low, r.high);
    robust_mwu m;
    double w0 = seconds(CLOCK_MONOTONIC);
    for (int rep = 0; rep < 100; rep++)
        if (robust_mwu_test(a, RUNS, b, RUNS, &m) != 0)
            return 1;
    printf("mwu: %d runs a side: %.3f ms a test (p = %.3g)\n", RUNS,
           (seconds(CLOCK_MONOTONIC) - w0) * 10, m.p_value);
    return 0;
}
