/* bench_straggler: times the straggler sampler (plugins/straggler/model.c)
 * against its target of 100 M delay draws/s per core, and against a bare
 * runner_rng_next loop measured in the same run, so the ratio survives a
 * slower or busier machine. Exits 1 if the k = 512 rate misses the target. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "model.h"
#include "runner/plugin.h"

#define TARGET_PER_SECOND 100e6
#define DRAWS_PER_CALL ((int64_t)1 << 20)

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Draws per second of the sampler at k workers, over about `seconds`. */
static double sampler_rate(int64_t workers, double seconds, double *sink)
{
    runner_rng rng;
    runner_rng_seed(&rng, 1);
    int64_t rounds = DRAWS_PER_CALL / workers > 0 ? DRAWS_PER_CALL / workers : 1;
    int64_t draws = 0;
    double start = now_seconds(), elapsed;
    do {
        *sink += straggler_sum_max_unit(&rng, workers, rounds);
        draws += rounds * workers;
        elapsed = now_seconds() - start;
    } while (elapsed < seconds);
    return (double)draws / elapsed;
}

/* Draws per second of the generator alone: the ceiling for any sampler. */
static double generator_rate(double seconds, uint64_t *sink)
{
    runner_rng rng;
    runner_rng_seed(&rng, 1);
    int64_t draws = 0;
    double start = now_seconds(), elapsed;
    do {
        uint64_t mix = 0;
        for (int64_t i = 0; i < DRAWS_PER_CALL; i++)
            mix ^= runner_rng_next(&rng);
        *sink ^= mix;
        draws += DRAWS_PER_CALL;
        elapsed = now_seconds() - start;
    } while (elapsed < seconds);
    return (double)draws / elapsed;
}

int main(void)
{
    static const int64_t workers[] = { 512, 8, 1 };
    double sink = 0.0;
    uint64_t generator_sink = 0;

    double reference = generator_rate(1.0, &generator_sink);
    printf("bare runner_rng_next:   %8.1f M draws/s (reference)\n", reference / 1e6);
    double main_rate = 0.0;
    for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++) {
        double rate = sampler_rate(workers[i], i == 0 ? 1.0 : 0.5, &sink);
        if (i == 0)
            main_rate = rate;
        printf("sampler, k = %-4lld:     %8.1f M draws/s  %5.2fx target (100 M/s)  "
               "%4.2f of bare generator\n",
               (long long)workers[i], rate / 1e6, rate / TARGET_PER_SECOND, rate / reference);
    }
    /* Printed so the compiler cannot drop the loops. */
    printf("(sinks: %g %llx)\n", sink, (unsigned long long)generator_sink);
    return main_rate >= TARGET_PER_SECOND ? 0 : 1;
}
