/* shard: dp_logreg's data and per-round arithmetic (shard.h). Plain loops,
 * no BLAS: one thread per rank, so k ranks use k cores and no more. */
#define _POSIX_C_SOURCE 200809L
#include "shard.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* splitmix64 (Steele, Lea & Flood 2014): a counter-based generator, so any
 * sample or delay is computed from its coordinates without a stream. */
static uint64_t shard_mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

double shard_uniform(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t z = shard_mix(shard_mix(shard_mix(seed) ^ a) ^ b);
    return (double)(z >> 11) * 0x1.0p-53;
}

int shard_make(shard *s, uint64_t seed, int64_t first, int64_t samples, int64_t features)
{
    s->first = first;
    s->samples = samples;
    s->features = features;
    s->x = malloc((size_t)(samples * features + 1) * sizeof *s->x);
    s->y = malloc((size_t)(samples + 1) * sizeof *s->y);
    if (!s->x || !s->y) {
        shard_free(s);
        return -1;
    }
    /* The true weights, from the seed's own stream (index UINT64_MAX). */
    double *w_true = malloc((size_t)features * sizeof *w_true);
    if (!w_true) {
        shard_free(s);
        return -1;
    }
    for (int64_t j = 0; j < features; j++)
        w_true[j] = 2.0 * shard_uniform(seed, UINT64_MAX, (uint64_t)j) - 1.0;
    for (int64_t i = 0; i < samples; i++) {
        uint64_t sample = (uint64_t)(first + i);
        double *row = s->x + i * features;
        double z = 0.0;
        for (int64_t j = 0; j + 1 < features; j++) {
            row[j] = 2.0 * shard_uniform(seed, sample, (uint64_t)j) - 1.0;
            z += row[j] * w_true[j];
        }
        row[features - 1] = 1.0;
        z += w_true[features - 1];
        double label_draw = shard_uniform(seed, sample, (uint64_t)features);
        s->y[i] = label_draw < 1.0 / (1.0 + exp(-z)) ? 1.0 : 0.0;
    }
    free(w_true);
    return 0;
}

void shard_free(shard *s)
{
    free(s->x);
    free(s->y);
    s->x = NULL;
    s->y = NULL;
    s->samples = 0;
}

void shard_gradient(const shard *s, const double *w, int64_t passes, double *grad)
{
    int64_t d = s->features;
    for (int64_t pass = 0; pass < passes; pass++) {
        for (int64_t i = 0; i < s->samples; i++) {
            const double *row = s->x + i * d;
            double z = 0.0;
            for (int64_t j = 0; j < d; j++)
                z += row[j] * w[j];
            double residual = 1.0 / (1.0 + exp(-z)) - s->y[i];
            for (int64_t j = 0; j < d; j++)
                grad[j] += residual * row[j];
        }
    }
    if (passes > 1)
        for (int64_t j = 0; j < d; j++)
            grad[j] /= (double)passes;
}

static double shard_clock_s(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

double shard_cpu_s(void) { return shard_clock_s(CLOCK_THREAD_CPUTIME_ID); }

double shard_wall_s(void) { return shard_clock_s(CLOCK_MONOTONIC); }

double shard_pass_cpu_s(const shard *s, const double *w, double min_cpu_s)
{
    double *grad = calloc((size_t)s->features, sizeof *grad);
    if (!grad)
        return -1.0;
    for (int64_t passes = 1;; passes *= 2) {
        for (int64_t j = 0; j < s->features; j++)
            grad[j] = 0.0;
        double start = shard_cpu_s();
        shard_gradient(s, w, passes, grad);
        double spent = shard_cpu_s() - start;
        if (spent >= min_cpu_s || passes >= (INT64_C(1) << 40)) {
            free(grad);
            return spent / (double)passes;
        }
    }
}
