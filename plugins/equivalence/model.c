/* equivalence model: synthetic logistic regression data, its full-batch
 * gradient through CBLAS, and the same gradient rebuilt from shards. The
 * point is to measure rounding, so every step has one fixed order. */
#include "model.h"

#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>

#include <runner/plugin.h> /* runner_rng only */

#define EQUIVALENCE_STOP_ROWS 4096
#define EQUIVALENCE_TWO_PI 6.283185307179586476925286766559 /* no M_PI in strict C11 */

void equivalence_shard_sizes(int64_t samples, int64_t shards, equivalence_split split,
                             int64_t *sizes)
{
    assert(shards >= 1 && shards <= samples);
    if (split == EQUIVALENCE_SPLIT_EVEN) {
        for (int64_t i = 0; i < shards; i++)
            sizes[i] = samples / shards + (i < samples % shards);
        return;
    }
    /* Shard i gets 1 + floor(rest * i / T) with T = 1 + 2 + ... + S, and the
     * few samples the floors leave over (fewer than S) go one each to the
     * largest shards, so sizes never decrease. Exact in int64: rest < 1e8
     * and S <= 4096 for the declared ranges. */
    int64_t rest = samples - shards;
    int64_t total_weight = shards * (shards + 1) / 2;
    int64_t left_over = rest;
    for (int64_t i = 1; i <= shards; i++) {
        int64_t share = rest * i / total_weight;
        sizes[i - 1] = 1 + share;
        left_over -= share;
    }
    for (int64_t i = shards - left_over; i < shards; i++)
        sizes[i]++;
}

/* Box-Muller keeps its second normal for the next call. */
typedef struct normal_source {
    runner_rng rng;
    int has_spare;
    double spare;
} normal_source;

static double normal_next(normal_source *source)
{
    if (source->has_spare) {
        source->has_spare = 0;
        return source->spare;
    }
    double u1 = 1.0 - runner_rng_uniform(&source->rng); /* (0, 1]: log(u1) finite */
    double u2 = runner_rng_uniform(&source->rng);
    double radius = sqrt(-2.0 * log(u1));
    double angle = EQUIVALENCE_TWO_PI * u2;
    source->spare = radius * sin(angle);
    source->has_spare = 1;
    return radius * cos(angle);
}

static double sigmoid(double z)
{
    /* Never exp of a large positive number. */
    if (z >= 0.0)
        return 1.0 / (1.0 + exp(-z));
    double e = exp(z);
    return e / (1.0 + e);
}

void equivalence_data_free(equivalence_data *data)
{
    if (!data)
        return;
    free(data->x);
    free(data->y);
    free(data->w_true);
    free(data->w);
    free(data);
}

/* malloc of count doubles; on failure says in err how many bytes for what. */
static double *alloc_doubles(size_t count, const char *what, char *err, size_t err_size)
{
    size_t bytes;
    double *p;
    if (__builtin_mul_overflow(count, sizeof(double), &bytes)) {
        snprintf(err, err_size, "cannot allocate more than %zu bytes for %s", SIZE_MAX, what);
        return NULL;
    }
    p = malloc(bytes ? bytes : 1);
    if (!p)
        snprintf(err, err_size, "cannot allocate %zu bytes for %s", bytes, what);
    return p;
}

int equivalence_data_new(int64_t samples, int64_t features, uint64_t seed, equivalence_stop_fn stop,
                         void *context, equivalence_data **out, char *err, size_t err_size)
{
    int64_t columns = features + 1;
    size_t cells;
    char what[128];
    equivalence_data *data = calloc(1, sizeof *data);
    if (!data) {
        snprintf(err, err_size, "cannot allocate the data set header");
        return -1;
    }
    data->samples = samples;
    data->columns = columns;
    snprintf(what, sizeof what, "the %lld x %lld samples (samples x (features + 1))",
             (long long)samples, (long long)columns);
    if (__builtin_mul_overflow((size_t)samples, (size_t)columns, &cells))
        cells = SIZE_MAX; /* alloc_doubles then fails with the message */
    if (!(data->x = alloc_doubles(cells, what, err, err_size)) ||
        !(data->y = alloc_doubles((size_t)samples, "the labels", err, err_size)) ||
        !(data->w_true = alloc_doubles((size_t)columns, "the weights", err, err_size)) ||
        !(data->w = alloc_doubles((size_t)columns, "the weights", err, err_size))) {
        equivalence_data_free(data);
        return -1;
    }

    normal_source normal = { .has_spare = 0 };
    runner_rng_seed(&normal.rng, seed);
    double scale = 1.0 / sqrt((double)columns);
    for (int64_t j = 0; j < columns; j++) {
        data->w_true[j] = scale * normal_next(&normal);
        data->w[j] = -data->w_true[j];
    }
    for (int64_t i = 0; i < samples; i++) {
        if (stop && i % EQUIVALENCE_STOP_ROWS == 0 && stop(context)) {
            equivalence_data_free(data);
            return -2;
        }
        double *row = data->x + (size_t)i * (size_t)columns;
        double logit = data->w_true[0];
        row[0] = 1.0;
        for (int64_t j = 1; j < columns; j++) {
            row[j] = normal_next(&normal);
            logit += row[j] * data->w_true[j];
        }
        data->y[i] = runner_rng_uniform(&normal.rng) < sigmoid(logit) ? 1.0 : 0.0;
    }
    *out = data;
    return 0;
}

/* OpenBLAS runs on one thread, set once for the process before the first
 * CBLAS call: a threaded dgemv splits X among threads and adds their partial
 * sums in another order, which changes the last bits of the gradient, and
 * these bits are what the plugin measures; so the same point gives the same
 * rows whatever OPENBLAS_NUM_THREADS says. Nothing is lost: points already
 * run in parallel at the sweep level. (Process-wide in the pthreads and
 * serial OpenBLAS builds; an OpenMP build keeps the count per thread.) */
static once_flag blas_threads_once = ONCE_FLAG_INIT;

static void blas_single_thread(void) { openblas_set_num_threads(1); }

void equivalence_gradient(const equivalence_data *data, int64_t first, int64_t count,
                          double *residual, double *grad)
{
    call_once(&blas_threads_once, blas_single_thread);
    /* CBLAS takes int sizes in the LP64 OpenBLAS: rows <= 1e8 and columns
     * <= 10001 by the plugin's declared ranges. */
    const double *x = data->x + (size_t)first * (size_t)data->columns;
    int rows = (int)count, columns = (int)data->columns;

    cblas_dgemv(CblasRowMajor, CblasNoTrans, rows, columns, 1.0, x, columns, data->w, 1, 0.0,
                residual, 1);
    for (int64_t i = 0; i < count; i++)
        residual[i] = sigmoid(residual[i]) - data->y[first + i];
    cblas_dgemv(CblasRowMajor, CblasTrans, rows, columns, 1.0 / (double)count, x, columns, residual,
                1, 0.0, grad, 1);
}

static double max_abs_diff(const double *a, const double *b, int64_t n)
{
    double max = 0.0;
    for (int64_t j = 0; j < n; j++)
        max = fmax(max, fabs(a[j] - b[j]));
    return max;
}

int equivalence_compare(const equivalence_data *data, int64_t shards, equivalence_split split,
                        equivalence_stop_fn stop, void *context, equivalence_result *result,
                        char *err, size_t err_size)
{
    return equivalence_compare_ranks(data, shards, split, 0, 1, NULL, NULL, stop, context, result,
                                     err, err_size);
}

int equivalence_compare_ranks(const equivalence_data *data, int64_t shards, equivalence_split split,
                              int rank, int ranks, equivalence_reduce_fn reduce,
                              void *reduce_context, equivalence_stop_fn stop, void *stop_context,
                              equivalence_result *result, char *err, size_t err_size)
{
    int64_t n = data->samples, columns = data->columns;
    int64_t *sizes = NULL;
    double *residual = NULL, *grad = NULL, *shard_grad = NULL, *sums = NULL;
    /* This rank's trouble, then (after the first reduce) every rank's:
     * [0] ranks out of memory, [1] ranks asked to stop. */
    double trouble[2] = { 0.0, 0.0 };
    int rc = -1;

    assert(shards >= 1 && shards <= n && ranks >= 1 && rank >= 0 && rank < ranks);
    assert(ranks == 1 || reduce);
    sizes = malloc((size_t)shards * sizeof *sizes);
    if (!sizes)
        snprintf(err, err_size, "cannot allocate the sizes of %lld shards", (long long)shards);
    /* sums: the weighted sum in [0, columns), the plain one in [columns, 2 columns). */
    if (!sizes || !(residual = alloc_doubles((size_t)n, "the residuals", err, err_size)) ||
        !(grad = alloc_doubles((size_t)columns, "the gradient", err, err_size)) ||
        !(shard_grad = alloc_doubles((size_t)columns, "a shard's gradient", err, err_size)) ||
        !(sums = alloc_doubles(2 * (size_t)columns, "the shard sums", err, err_size)))
        trouble[0] = 1.0;

    if (!trouble[0]) {
        equivalence_shard_sizes(n, shards, split, sizes);
        equivalence_gradient(data, 0, n, residual, grad);
        for (int64_t j = 0; j < 2 * columns; j++)
            sums[j] = 0.0;
        int64_t first = 0;
        for (int64_t s = 0; s < shards; s++) {
            if (s % ranks == rank) {
                if (stop && stop(stop_context)) {
                    trouble[1] = 1.0;
                    break;
                }
                equivalence_gradient(data, first, sizes[s], residual, shard_grad);
                double share = (double)sizes[s] / (double)n;
                for (int64_t j = 0; j < columns; j++) {
                    sums[j] += share * shard_grad[j];
                    sums[columns + j] += shard_grad[j];
                }
            }
            first += sizes[s];
        }
    }
    if (ranks > 1 && reduce(reduce_context, trouble, 2) != 0) {
        snprintf(err, err_size, "the reduce of the ranks' status failed");
        goto done;
    }
    if (trouble[0] > 0.0) {
        if (!sums) /* err says what this rank could not allocate */
            goto done;
        snprintf(err, err_size, "%.0f of %d ranks could not allocate the gradients", trouble[0],
                 ranks);
        goto done;
    }
    if (trouble[1] > 0.0) {
        rc = -2;
        goto done;
    }
    if (ranks > 1 && reduce(reduce_context, sums, 2 * (size_t)columns) != 0) {
        snprintf(err, err_size, "the reduce of the shard sums across %d ranks failed", ranks);
        goto done;
    }

    double *weighted = sums, *plain = sums + columns;
    for (int64_t j = 0; j < columns; j++)
        plain[j] /= (double)shards;
    result->shard_min = result->shard_max = sizes[0];
    for (int64_t s = 1; s < shards; s++) {
        if (sizes[s] < result->shard_min)
            result->shard_min = sizes[s];
        if (sizes[s] > result->shard_max)
            result->shard_max = sizes[s];
    }
    result->grad_max_abs = 0.0;
    for (int64_t j = 0; j < columns; j++)
        result->grad_max_abs = fmax(result->grad_max_abs, fabs(grad[j]));
    result->weighted_max_abs_diff = max_abs_diff(weighted, grad, columns);
    result->plain_max_abs_diff = max_abs_diff(plain, grad, columns);
    rc = 0;
done:
    free(sizes);
    free(residual);
    free(grad);
    free(shard_grad);
    free(sums);
    return rc;
}
