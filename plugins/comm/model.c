/* comm model: exact byte counts of one round of gradient exchange. Counts
 * are int64 and every product is overflow-checked, because a 1e15-parameter
 * model on 1e7 workers is a legal point whose answer does not fit. */
#include "model.h"

int comm_copy_bytes(int64_t model_params, int64_t bytes_per_param, int64_t *copy_bytes)
{
    int64_t bytes;
    if (__builtin_mul_overflow(model_params, bytes_per_param, &bytes))
        return -1;
    *copy_bytes = bytes;
    return 0;
}

/* 2 W k: every worker pushes its gradient (W) to the server and pulls the
 * new weights (W) back; all of it crosses the server's link. */
static int comm_ps(int64_t copy_bytes, int64_t workers, comm_round *out)
{
    int64_t per_worker, bytes;
    if (__builtin_mul_overflow(copy_bytes, workers, &per_worker) ||
        __builtin_mul_overflow(per_worker, 2, &bytes))
        return -1;
    out->bytes_per_round = bytes;
    out->rounding_bytes = 0.0;
    out->cluster_bytes_per_round = bytes;
    out->busiest_link_bytes = per_worker;
    out->bytes_exact = (double)bytes;
    out->copies_per_round = 2.0 * (double)workers;
    return 0;
}

/* 2 (k - 1) W / k: reduce-scatter then all-gather, each sending k - 1 chunks
 * of W / k. The numerator 2 (k - 1) W overflows long before the result does,
 * so with W = q k + r:
 *     2 (k - 1) W / k = 2 (W - q) - 2 r / k,  where 0 <= 2 r / k < 2,
 * and 2 r / k = c + f / k with c in {0, 1}, 0 <= f < k. */
static int comm_ring(int64_t copy_bytes, int64_t workers, comm_round *out)
{
    int64_t k = workers;
    int64_t q = copy_bytes / k, r = copy_bytes % k;
    int64_t half = copy_bytes - q;      /* W - q, 2 (W - q) may overflow */
    int64_t c, f, down, bytes, cluster, k_minus_1 = k - 1;

    if (r >= k - r) {                   /* 2 r >= k, written without 2 r */
        c = 1;
        f = r - (k - r);
    } else {
        c = 0;
        f = 2 * r;                      /* < k, cannot overflow */
    }
    /* exact = 2 (W - q) - c - f / k; round to nearest, halves up. */
    if (f == 0) {
        down = c;
        out->rounding_bytes = 0.0;
    } else if (k - f >= f) {
        down = c;
        out->rounding_bytes = -(double)f / (double)k;
    } else {
        down = c + 1;
        out->rounding_bytes = (double)(k - f) / (double)k;
    }
    if (__builtin_add_overflow(half, half - down, &bytes))
        return -1;
    /* k workers each sending 2 (k - 1) W / k: an integer in total. */
    if (__builtin_mul_overflow(copy_bytes, k_minus_1, &cluster) ||
        __builtin_mul_overflow(cluster, 2, &cluster))
        return -1;
    out->bytes_per_round = bytes;
    out->cluster_bytes_per_round = cluster;
    out->busiest_link_bytes = bytes; /* every worker's link alike */
    out->bytes_exact = (double)bytes + out->rounding_bytes;
    out->copies_per_round = 2.0 * (double)k_minus_1 / (double)k;
    return 0;
}

int comm_round_bytes(comm_scheme scheme, int64_t copy_bytes, int64_t workers, comm_round *out)
{
    return scheme == COMM_SCHEME_PS ? comm_ps(copy_bytes, workers, out)
                                    : comm_ring(copy_bytes, workers, out);
}

const char *comm_scheme_name(comm_scheme scheme)
{
    return scheme == COMM_SCHEME_PS ? "ps" : "ring";
}

const char *comm_counted_at(comm_scheme scheme)
{
    return scheme == COMM_SCHEME_PS ? "server" : "worker";
}
