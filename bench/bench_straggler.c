/* bench_straggler: times the straggler samplers (plugins/shared/straggler_model.c)
 * against their target of 100 M delay draws/s per core for the uniform law,
 * and against a bare runner_rng_next loop measured in the same run, so the
 * ratio survives a slower or busier machine. Also prints the other laws,
 * backups and bounded staleness (not gated). Exits 1 if the uniform law at
 * k = 512, through the plugin's own sampler, misses the target. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "straggler_model.h"
#include "runner/plugin.h"

#define TARGET_PER_SECOND 100e6
#define DRAWS_PER_CALL ((int64_t)1 << 20)

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Draws per second of the original uniform kernel at k workers. */
static double legacy_rate(int64_t workers, double seconds, double *sink)
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

/* Draws per second of what the plugin runs: straggler_sync_mc() when
 * staleness is 0, else straggler_ssp_mc(). */
static double plugin_rate(straggler_delay delay, int64_t workers, int64_t backups,
                          int64_t staleness, double seconds, double *sink)
{
    runner_rng rng;
    runner_rng_seed(&rng, 1);
    int64_t per_round = workers + backups;
    int64_t rounds = DRAWS_PER_CALL / per_round > 0 ? DRAWS_PER_CALL / per_round : 1;
    int64_t draws = 0;
    double start = now_seconds(), elapsed;
    do {
        straggler_mc mc;
        int status =
            staleness > 0
                ? straggler_ssp_mc(&rng, &delay, 0.5, workers, staleness, rounds, NULL, NULL, &mc)
                : straggler_sync_mc(&rng, &delay, workers, backups, rounds, NULL, NULL, &mc);
        if (status != 0)
            return 0.0;
        *sink += mc.order_stat.mean;
        draws += rounds * per_round;
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

static void print_rate(const char *what, double rate, double reference)
{
    printf("%-36s %8.1f M draws/s  %5.2fx target (100 M/s)  %4.2f of bare generator\n", what,
           rate / 1e6, rate / TARGET_PER_SECOND, rate / reference);
}

int main(void)
{
    static const struct {
        const char *name;
        straggler_delay delay;
        int64_t workers, backups, staleness;
    } cases[] = {
        { "uniform, k = 512 (gated)", { STRAGGLER_UNIFORM, 2.0, 0 }, 512, 0, 0 },
        { "uniform, k = 8", { STRAGGLER_UNIFORM, 2.0, 0 }, 8, 0, 0 },
        { "uniform, k = 1", { STRAGGLER_UNIFORM, 2.0, 0 }, 1, 0, 0 },
        { "exponential, k = 512", { STRAGGLER_EXPONENTIAL, 1.0, 0 }, 512, 0, 0 },
        { "lognormal, k = 512", { STRAGGLER_LOGNORMAL, 1.0, 1.0 }, 512, 0, 0 },
        { "pareto, k = 512", { STRAGGLER_PARETO, 0.6, 2.5 }, 512, 0, 0 },
        { "uniform, k = 512, 2 backups", { STRAGGLER_UNIFORM, 2.0, 0 }, 512, 2, 0 },
        { "pareto, k = 64, 2 backups", { STRAGGLER_PARETO, 0.6, 2.5 }, 64, 2, 0 },
        { "uniform, k = 512, staleness 2", { STRAGGLER_UNIFORM, 2.0, 0 }, 512, 0, 2 },
        { "lognormal, k = 512, staleness 2", { STRAGGLER_LOGNORMAL, 1.0, 1.0 }, 512, 0, 2 },
    };
    double sink = 0.0;
    uint64_t generator_sink = 0;

    double reference = generator_rate(1.0, &generator_sink);
    printf("%-36s %8.1f M draws/s (reference)\n", "bare runner_rng_next", reference / 1e6);
    print_rate("straggler_sum_max_unit, k = 512", legacy_rate(512, 0.5, &sink), reference);
    double gated = 0.0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double rate = plugin_rate(cases[i].delay, cases[i].workers, cases[i].backups,
                                  cases[i].staleness, i == 0 ? 1.0 : 0.5, &sink);
        if (i == 0)
            gated = rate;
        print_rate(cases[i].name, rate, reference);
    }
    /* Printed so the compiler cannot drop the loops. */
    printf("(sinks: %g %llx)\n", sink, (unsigned long long)generator_sink);
    return gated >= TARGET_PER_SECOND ? 0 : 1;
}
