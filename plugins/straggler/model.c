/* straggler model: exact order statistics of uniform delays and a tight
 * Monte Carlo sampler for them (target: >= 100 M draws/s per core, see
 * bench/bench_straggler.c). */
#include "model.h"

#include <math.h>

/* Draws per stop check: about a millisecond of sampling. */
#define STRAGGLER_CHECK_DRAWS ((int64_t)1 << 20)

double straggler_max_delay_exact(double jitter, int64_t workers)
{
    double k = (double)workers;
    return jitter * k / (k + 1.0);
}

double straggler_max_delay_sd(double jitter, int64_t workers)
{
    double k = (double)workers;
    return jitter * sqrt(k / ((k + 1.0) * (k + 1.0) * (k + 2.0)));
}

double straggler_sum_max_unit(runner_rng *rng, int64_t workers, int64_t trials)
{
    /* A local copy keeps the generator state in registers. */
    runner_rng local = *rng;
    double sum = 0.0;
    for (int64_t t = 0; t < trials; t++) {
        /* x -> (x >> 11) * 2^-53 is monotone, so the largest uniform is the
         * conversion of the largest raw draw: compare integers (a branchless
         * cmov), convert once per round. Bit-identical to taking the max of
         * runner_rng_uniform() values. */
        uint64_t largest = 0;
        for (int64_t i = 0; i < workers; i++) {
            uint64_t draw = runner_rng_next(&local);
            largest = draw > largest ? draw : largest;
        }
        sum += (double)(largest >> 11) * 0x1.0p-53;
    }
    *rng = local;
    return sum;
}

int straggler_max_delay_mc(runner_rng *rng, double jitter, int64_t workers,
                           int64_t trials, straggler_stop_fn stop, void *context,
                           double *mean)
{
    int64_t chunk = STRAGGLER_CHECK_DRAWS / workers;
    if (chunk < 1)
        chunk = 1;
    /* Per-chunk partial sums keep rounding error small for 1e10 rounds. */
    double sum = 0.0;
    for (int64_t done = 0; done < trials; done += chunk) {
        if (stop && stop(context))
            return -1;
        int64_t rounds = trials - done < chunk ? trials - done : chunk;
        sum += straggler_sum_max_unit(rng, workers, rounds);
    }
    /* Scale by J once: the sampler works on the unit interval. */
    *mean = jitter * (sum / (double)trials);
    return 0;
}

static double share_of(double part, double whole)
{
    /* 0 / 0 (base = J = 0) has no meaningful share: say so with NaN. */
    return whole > 0.0 ? part / whole : NAN;
}

void straggler_row_fill(straggler_row *row, double base, double jitter,
                        int64_t workers, int64_t trials, double max_delay_mc)
{
    row->compute_s = base / (double)workers;
    row->max_delay_s = max_delay_mc;
    row->max_delay_exact_s = straggler_max_delay_exact(jitter, workers);
    row->max_delay_stderr_s = straggler_max_delay_sd(jitter, workers) / sqrt((double)trials);
    row->round_s = row->compute_s + row->max_delay_s;
    row->round_exact_s = row->compute_s + row->max_delay_exact_s;
    row->wait_share = share_of(row->max_delay_s, row->round_s);
    row->wait_share_exact = share_of(row->max_delay_exact_s, row->round_exact_s);
    row->samples = workers * trials;
}
