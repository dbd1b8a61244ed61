/* shard: the synthetic logistic-regression data of dp_logreg, cut into k
 * contiguous shards, and the arithmetic one rank does per round: the sum of
 * its samples' log-loss gradients, repeated a calibrated number of passes so
 * that one rank alone spends about `base` seconds of CPU per round. */
#ifndef DP_LOGREG_SHARD_H
#define DP_LOGREG_SHARD_H

#include <stdint.h>

typedef struct {
    int64_t first;    /* index of the shard's first sample in the dataset */
    int64_t samples;  /* samples in this shard */
    int64_t features; /* columns of x, the last one the constant 1 (bias) */
    double *x;        /* samples x features, row-major */
    double *y;        /* labels, 0 or 1 */
} shard;

/* Fills `s` with samples [first, first + samples) of the dataset that
 * `seed` defines. A sample depends only on (seed, its index), so the k
 * shards of any k together hold the same dataset. Returns 0, or -1 when out
 * of memory (s is then empty; shard_free accepts it). */
int shard_make(shard *s, uint64_t seed, int64_t first, int64_t samples, int64_t features);
void shard_free(shard *s);

/* Adds `passes` times the shard's gradient sum at weights w,
 * sum_i (sigmoid(x_i . w) - y_i) x_i, into grad (features entries, zeroed
 * by the caller), then divides by passes: the repeats only cost time. */
void shard_gradient(const shard *s, const double *w, int64_t passes, double *grad);

/* CPU seconds of this thread (CLOCK_THREAD_CPUTIME_ID): calibration in
 * CPU time, not wall time, so a busy machine does not shrink the passes. */
double shard_cpu_s(void);

/* Wall-clock seconds (CLOCK_MONOTONIC). */
double shard_wall_s(void);

/* CPU seconds of one pass over `s`, measured over as many passes as take at
 * least min_cpu_s of CPU; -1 when out of memory. */
double shard_pass_cpu_s(const shard *s, const double *w, double min_cpu_s);

/* A uniform double in [0, 1) that depends only on (seed, a, b): the
 * injected delay of rank a in round b, or feature b of sample a. */
double shard_uniform(uint64_t seed, uint64_t a, uint64_t b);

#endif
