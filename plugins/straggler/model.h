/* straggler model (science.md section 3): a synchronous round of k workers
 * waits for the slowest, each delayed by an independent Uniform(0, J).
 * Pure functions of the model, no host: the plugin and the tests share them. */
#ifndef STRAGGLER_MODEL_H
#define STRAGGLER_MODEL_H

#include <stdint.h>

#include "runner/plugin.h" /* runner_rng only */

/* E[max of k Uniform(0, J)] = J k / (k + 1). */
double straggler_max_delay_exact(double jitter, int64_t workers);

/* Standard deviation of that maximum: J sqrt(k / ((k + 1)^2 (k + 2))). */
double straggler_max_delay_sd(double jitter, int64_t workers);

/* Sum over `trials` rounds of the largest of `workers` Uniform[0, 1) draws
 * (53-bit, as runner_rng_uniform), taken from rng in order. The caller
 * scales by J and divides by the number of rounds. */
double straggler_sum_max_unit(runner_rng *rng, int64_t workers, int64_t trials);

/* Returns non-zero when the caller wants a long estimate abandoned. */
typedef int (*straggler_stop_fn)(void *context);

/* Monte Carlo estimate of E[max of k Uniform(0, J)] over `trials` rounds.
 * Calls stop(context) about every 2^20 draws (at least once per round, so a
 * round of more than 2^20 workers is never interrupted mid-way); stop may be
 * NULL. Returns 0 and sets *mean, or -1 if stop asked to stop (*mean unset). */
int straggler_max_delay_mc(runner_rng *rng, double jitter, int64_t workers,
                           int64_t trials, straggler_stop_fn stop, void *context,
                           double *mean);

/* One output row of the straggler plugin. */
typedef struct straggler_row {
    double compute_s;           /* base / k */
    double max_delay_s;         /* Monte Carlo E[max] */
    double max_delay_exact_s;   /* J k / (k + 1) */
    double max_delay_stderr_s;  /* exact sd / sqrt(trials) */
    double round_s;             /* compute_s + max_delay_s */
    double round_exact_s;       /* compute_s + max_delay_exact_s */
    double wait_share;          /* max_delay_s / round_s; NaN if round_s is 0 */
    double wait_share_exact;    /* likewise with the exact values */
    int64_t samples;            /* k * trials delays drawn */
} straggler_row;

/* Fills every field from the parameters and a Monte Carlo E[max]. */
void straggler_row_fill(straggler_row *row, double base, double jitter,
                        int64_t workers, int64_t trials, double max_delay_mc);

#endif
