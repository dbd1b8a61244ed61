/* equivalence model (docs/science.md section 1): the full-batch logistic
 * regression gradient against shard gradients combined two ways. Pure
 * functions of the model, no host: the plugin and the tests share them. */
#ifndef EQUIVALENCE_MODEL_H
#define EQUIVALENCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum equivalence_split {
    EQUIVALENCE_SPLIT_UNEVEN, /* shard i (1-based) gets about i / (1 + ... + S) of the data */
    EQUIVALENCE_SPLIT_EVEN    /* sizes differ by at most one */
} equivalence_split;

/* Returns non-zero when the caller wants a long computation abandoned. */
typedef int (*equivalence_stop_fn)(void *context);

/* Fills sizes[0 .. shards - 1] with shard sizes that sum to samples, each
 * >= 1 (1 <= shards <= samples). Uneven: one sample each, the other
 * samples - shards split in proportion 1 : 2 : ... : shards (floors, the
 * remainder one each to the largest), so sizes never decrease and the
 * largest is about S times the smallest once samples >> S^2. Even:
 * samples / shards, the first samples % shards of them one larger. */
void equivalence_shard_sizes(int64_t samples, int64_t shards, equivalence_split split,
                             int64_t *sizes);

/* A synthetic data set and the point the gradient is taken at. */
typedef struct equivalence_data {
    int64_t samples; /* N, rows of x */
    int64_t columns; /* D + 1: column 0 is the bias, all ones */
    double *x;       /* N x (D + 1), row-major */
    double *y;       /* N labels, 0.0 or 1.0 */
    double *w_true;  /* D + 1 weights the labels were drawn from */
    double *w;       /* D + 1: the evaluation point, -w_true */
} equivalence_data;

/* Draws a data set from runner_rng seeded with `seed`, in this order:
 * w_true (D + 1 values N(0, 1 / (D + 1)), so the true logit has unit
 * variance on average), then per row D features N(0, 1) and one uniform u
 * giving the label y = [u < sigmoid(x . w_true)]. Normals by Box-Muller.
 * Rows are drawn in order, so a larger N extends a smaller one's data.
 * Calls stop(context) every 4096 rows (stop may be NULL).
 * Returns 0 and *out (free with equivalence_data_free), -1 with a message
 * in err if memory runs out, -2 if stop asked to stop. */
int equivalence_data_new(int64_t samples, int64_t features, uint64_t seed, equivalence_stop_fn stop,
                         void *context, equivalence_data **out, char *err, size_t err_size);

/* Accepts NULL. */
void equivalence_data_free(equivalence_data *data);

/* Mean gradient g = X_s^T (sigmoid(X_s w) - y_s) / count over rows
 * [first, first + count) into grad (D + 1 values), through two CBLAS
 * dgemv calls. residual is scratch for count values. count >= 1. The first
 * call sets OpenBLAS to one thread for the process, so the bits do not depend
 * on OPENBLAS_NUM_THREADS. */
void equivalence_gradient(const equivalence_data *data, int64_t first, int64_t count,
                          double *residual, double *grad);

typedef struct equivalence_result {
    double grad_max_abs;          /* max_j |g_j| of the full-batch gradient */
    double weighted_max_abs_diff; /* max_j |sum_i (n_i / N) g_i,j - g_j| */
    double plain_max_abs_diff;    /* max_j |(1 / S) sum_i g_i,j - g_j| */
    int64_t shard_min, shard_max; /* smallest and largest n_i */
} equivalence_result;

/* Computes the full gradient once over all rows and each shard's own mean
 * gradient (its own forward pass) over consecutive row blocks, and compares
 * both combinations with the full gradient. 1 <= shards <= data->samples.
 * Calls stop(context) between shards. Returns 0 and fills *result, -1 with
 * a message in err if memory runs out, -2 if stop asked to stop.
 * equivalence_compare_ranks() on one rank. */
int equivalence_compare(const equivalence_data *data, int64_t shards, equivalence_split split,
                        equivalence_stop_fn stop, void *context, equivalence_result *result,
                        char *err, size_t err_size);

/* Sums values[0 .. count - 1] element-wise over every rank, in place, like
 * MPI_Allreduce with MPI_SUM. Returns 0, or non-zero when it failed. */
typedef int (*equivalence_reduce_fn)(void *context, double *values, size_t count);

/* equivalence_compare() with the shards spread over `ranks` processes that
 * each hold the same data: rank r computes the gradients of shards r,
 * r + ranks, r + 2 ranks, ... and sums them, in shard order, both ways
 * (n_i / N g_i and g_i); reduce() then adds the ranks' sums, and every rank
 * compares the result with the full gradient it computed alone. With one
 * rank (reduce may then be NULL) the sums are formed in exactly
 * equivalence_compare's order, so the bits are the same; with more, the
 * reduction adds the ranks' partial sums in MPI's order, which moves the
 * weighted difference only at the level of rounding.
 *
 * Every rank calls reduce() the same number of times whatever happens (a
 * rank that runs out of memory or is asked to stop says so in a first,
 * two-value reduce, and then all give up together), so no rank waits for
 * another forever. Returns 0 and fills *result, -1 with a message in err
 * (memory, on this rank or another, or a failed reduce), -2 if stop asked
 * any rank to stop. */
int equivalence_compare_ranks(const equivalence_data *data, int64_t shards, equivalence_split split,
                              int rank, int ranks, equivalence_reduce_fn reduce,
                              void *reduce_context, equivalence_stop_fn stop, void *stop_context,
                              equivalence_result *result, char *err, size_t err_size);

#endif
