/* comm model: exact byte counts and alpha-beta times of one round of
 * gradient exchange. Counts are int64 and every product is overflow-checked,
 * because a 1e15-parameter model on 1e7 workers is a legal point whose
 * answer does not fit; times are doubles. */
#include "comm_model.h"

#include <math.h>

int comm_copy_bytes(int64_t model_params, int64_t bytes_per_param, int64_t *copy_bytes)
{
    int64_t bytes;
    if (__builtin_mul_overflow(model_params, bytes_per_param, &bytes))
        return -1;
    *copy_bytes = bytes;
    return 0;
}

/* Nearest integer to m / d (m >= 0, d >= 1), halves up; *rounding is the
 * exact value minus it, in [-0.5, 0.5). Cannot overflow: q + 1 only when
 * d >= 2. */
static void nearest_quotient(int64_t m, int64_t d, int64_t *nearest, double *rounding)
{
    int64_t q = m / d, r = m % d;
    if (r >= d - r) { /* r / d >= 1/2, written without 2 r */
        *nearest = q + 1;
        *rounding = -(double)(d - r) / (double)d;
    } else {
        *nearest = q;
        *rounding = (double)r / (double)d;
    }
}

/* Nearest integer to 2 m / d without forming 2 m: with m = q d + r,
 * 2 m / d = 2 q + 2 r / d and 2 r / d = c + f / d, c in {0, 1}, f < d.
 * Returns -1 if the result does not fit in int64. */
static int nearest_twice_quotient(int64_t m, int64_t d, int64_t *nearest, double *rounding)
{
    int64_t q = m / d, r = m % d, c, f, up, whole;
    if (r >= d - r) {
        c = 1;
        f = r - (d - r);
    } else {
        c = 0;
        f = 2 * r; /* < d, cannot overflow */
    }
    nearest_quotient(f, d, &up, rounding);
    if (__builtin_add_overflow(q, q, &whole) || __builtin_add_overflow(whole, c + up, &whole))
        return -1;
    *nearest = whole;
    return 0;
}

/* One round through s parameter-server shards, each holding W / s of the
 * weights: every worker pushes its gradient (W / s to each shard) and pulls
 * the new weights back. A shard's link carries k W / s each way, one phase
 * after the other: 2 k W / s (with s = 1 the walk-through's 2 W k). With
 * more shards than workers the workers' own links, 2 W, are the busier. */
static int comm_ps(int64_t copy_bytes, int64_t workers, int64_t servers, comm_round *out)
{
    int64_t per_direction, cluster;
    if (__builtin_mul_overflow(copy_bytes, workers, &per_direction) ||
        __builtin_mul_overflow(per_direction, 2, &cluster))
        return -1;
    out->cluster_bytes_per_round = cluster; /* workers send k W, servers k W */
    if (workers >= servers) {
        double ignored;
        if (nearest_twice_quotient(per_direction, servers, &out->bytes_per_round,
                                   &out->rounding_bytes) != 0)
            return -1;
        nearest_quotient(per_direction, servers, &out->busiest_link_bytes, &ignored);
        out->copies_per_round = 2.0 * (double)workers / (double)servers;
        out->counted_at = "server";
    } else {
        if (__builtin_mul_overflow(copy_bytes, 2, &out->bytes_per_round))
            return -1;
        out->rounding_bytes = 0.0;
        out->busiest_link_bytes = copy_bytes;
        out->copies_per_round = 2.0;
        out->counted_at = "worker";
    }
    out->bytes_exact = (double)out->bytes_per_round + out->rounding_bytes;
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
    int64_t half = copy_bytes - q; /* W - q, 2 (W - q) may overflow */
    int64_t c, f, down, bytes, cluster, k_minus_1 = k - 1;

    if (r >= k - r) { /* 2 r >= k, written without 2 r */
        c = 1;
        f = r - (k - r);
    } else {
        c = 0;
        f = 2 * r; /* < k, cannot overflow */
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
    out->counted_at = "worker";
    return 0;
}

/* bytes_per_round = factor * W, an integer, counted at `counted_at`; the
 * cluster sends cluster_factor * W and the busiest link carries link_factor
 * * W each way. Returns -1 on overflow. */
static int comm_whole_copies(int64_t copy_bytes, int64_t factor, int64_t cluster_factor,
                             int64_t link_factor, const char *counted_at, comm_round *out)
{
    if (__builtin_mul_overflow(copy_bytes, factor, &out->bytes_per_round) ||
        __builtin_mul_overflow(copy_bytes, cluster_factor, &out->cluster_bytes_per_round) ||
        __builtin_mul_overflow(copy_bytes, link_factor, &out->busiest_link_bytes))
        return -1;
    out->rounding_bytes = 0.0;
    out->bytes_exact = (double)out->bytes_per_round;
    out->copies_per_round = (double)factor;
    out->counted_at = counted_at;
    return 0;
}

int comm_round_bytes_sharded(comm_scheme scheme, int64_t copy_bytes, int64_t workers,
                             int64_t servers, comm_round *out)
{
    int64_t lg = comm_ceil_log2(workers), cluster_factor;
    switch (scheme) {
    case COMM_SCHEME_PS: return comm_ps(copy_bytes, workers, servers, out);
    case COMM_SCHEME_RING:
    case COMM_SCHEME_HALVING_DOUBLING:
        /* Reduce-scatter then all-gather either way: the same bytes as the
         * ring, in 2 lg p messages instead of 2 (p - 1). */
        return comm_ring(copy_bytes, workers, out);
    case COMM_SCHEME_RECURSIVE_DOUBLING:
        /* lg p exchanges of the whole vector, each worker sending W. */
        if (__builtin_mul_overflow(workers, lg, &cluster_factor))
            return -1;
        return comm_whole_copies(copy_bytes, lg, cluster_factor, lg, "worker", out);
    case COMM_SCHEME_BINARY_TREE:
        /* The root receives lg p copies, then sends lg p copies. */
        if (__builtin_mul_overflow(workers - 1, 2, &cluster_factor))
            return -1;
        return comm_whole_copies(copy_bytes, 2 * lg, cluster_factor, lg, "root", out);
    case COMM_SCHEME_DOUBLE_BINARY_TREE:
        /* Each tree carries W / 2 up and down each of its p - 1 edges; a node
         * inner in one tree and a leaf in the other sends W / 2 + W / 2 up and
         * 2 x W / 2 down: 2 W each way. */
        if (workers == 1)
            return comm_whole_copies(copy_bytes, 0, 0, 0, "worker", out);
        if (__builtin_mul_overflow(workers - 1, 2, &cluster_factor))
            return -1;
        return comm_whole_copies(copy_bytes, 2, cluster_factor, 2, "worker", out);
    case COMM_SCHEME_COUNT: break;
    }
    return -1;
}

int comm_round_bytes(comm_scheme scheme, int64_t copy_bytes, int64_t workers, comm_round *out)
{
    return comm_round_bytes_sharded(scheme, copy_bytes, workers, 1, out);
}

int64_t comm_ceil_log2(int64_t p)
{
    int64_t steps = 0;
    for (uint64_t reach = 1; reach < (uint64_t)p; reach *= 2)
        steps++;
    return steps;
}

int64_t comm_floor_log2(int64_t p)
{
    int64_t height = 0;
    while (p > 1) {
        p /= 2;
        height++;
    }
    return height;
}

void comm_time_line(comm_scheme scheme, int64_t workers, const comm_net *net, comm_line *out)
{
    double p = (double)workers;
    double share = (p - 1.0) / p; /* (p - 1) / p of the vector */
    double lg = (double)comm_ceil_log2(workers);
    double bandwidth_copies = 0.0, reduce_copies = 0.0;
    int64_t steps = 0;

    switch (scheme) {
    case COMM_SCHEME_PS: {
        /* Each worker sends its s pushes one after another, then each shard
         * its k replies; a shard's link carries k W / s each way in turn
         * (or the workers' links W, if s > k); a shard sums k gradients of
         * W / s. */
        double s = (double)net->servers;
        steps = workers + net->servers;
        bandwidth_copies = 2.0 * fmax(p / s, 1.0);
        reduce_copies = (p - 1.0) / s;
        break;
    }
    case COMM_SCHEME_RING:
        /* 2 (p - 1) steps of n / p: reduce-scatter (reducing each), all-gather. */
        steps = 2 * (workers - 1);
        bandwidth_copies = 2.0 * share;
        reduce_copies = share;
        break;
    case COMM_SCHEME_RECURSIVE_DOUBLING:
        /* ceil(lg p) steps, each exchanging and reducing the whole vector. */
        steps = comm_ceil_log2(workers);
        bandwidth_copies = lg;
        reduce_copies = lg;
        break;
    case COMM_SCHEME_HALVING_DOUBLING:
        /* Recursive halving (n/2, n/4, ... reduced), recursive doubling back. */
        steps = 2 * comm_ceil_log2(workers);
        bandwidth_copies = 2.0 * share;
        reduce_copies = share;
        break;
    case COMM_SCHEME_BINARY_TREE:
        /* Binomial-tree reduce (ceil(lg p) rounds of n, reduced), then a
         * binomial-tree broadcast of n; not pipelined. */
        steps = 2 * comm_ceil_log2(workers);
        bandwidth_copies = 2.0 * lg;
        reduce_copies = lg;
        break;
    case COMM_SCHEME_DOUBLE_BINARY_TREE:
        /* NCCL's model (src/graph/tuning.cc): latency 2 log2i(p) hops up and
         * down a tree of height floor(lg p), bandwidth busbw / 2, i.e. 2 n
         * per link with the reduction and broadcast pipelined in small
         * chunks; an inner node reduces n (two children's n / 2). */
        if (workers > 1) {
            steps = 2 * comm_floor_log2(workers);
            bandwidth_copies = 2.0;
            reduce_copies = 1.0;
        }
        break;
    case COMM_SCHEME_COUNT: break;
    }
    out->latency_steps = steps;
    out->latency_term_s = (double)steps * net->latency_s;
    out->bandwidth_s_per_byte = bandwidth_copies / net->bandwidth_bytes_per_s;
    out->reduce_s_per_byte = reduce_copies / net->reduce_bytes_per_s;
}

double comm_busbw_factor(int64_t workers) { return 2.0 * (double)(workers - 1) / (double)workers; }

void comm_round_time(comm_scheme scheme, double message_bytes, int64_t workers, const comm_net *net,
                     comm_time *out)
{
    comm_line line;
    comm_time_line(scheme, workers, net, &line);
    out->latency_steps = line.latency_steps;
    out->latency_term_s = line.latency_term_s;
    out->bandwidth_term_s = message_bytes * line.bandwidth_s_per_byte;
    out->reduction_term_s = message_bytes * line.reduce_s_per_byte;
    out->time_s = out->latency_term_s + out->bandwidth_term_s + out->reduction_term_s;
    out->algbw_bytes_per_s = out->time_s > 0.0 ? message_bytes / out->time_s : HUGE_VAL;
    /* One worker: nothing crosses a bus, whatever the algorithm bandwidth. */
    out->busbw_bytes_per_s =
        workers > 1 ? out->algbw_bytes_per_s * comm_busbw_factor(workers) : 0.0;
}

static double comm_slope(const comm_line *line)
{
    return line->bandwidth_s_per_byte + line->reduce_s_per_byte;
}

double comm_crossover_bytes(const comm_line *a, const comm_line *b)
{
    double slope_gap = comm_slope(b) - comm_slope(a);
    if (slope_gap == 0.0)
        return NAN;
    double n = (a->latency_term_s - b->latency_term_s) / slope_gap;
    return n > 0.0 && isfinite(n) ? n : NAN;
}

void comm_fastest_range(const comm_line *lines, size_t count, size_t which, double *from,
                        double *to)
{
    const comm_line *mine = &lines[which];
    double low = 0.0, high = HUGE_VAL;
    for (size_t j = 0; j < count; j++) {
        if (j == which)
            continue;
        double slope_gap = comm_slope(&lines[j]) - comm_slope(mine);
        double intercept_gap = mine->latency_term_s - lines[j].latency_term_s;
        if (slope_gap == 0.0) {
            /* Parallel: one is faster everywhere; identical: the earlier. */
            if (intercept_gap > 0.0 || (intercept_gap == 0.0 && j < which))
                low = HUGE_VAL;
            continue;
        }
        /* mine <= line j  <=>  intercept_gap <= n * slope_gap */
        double n = intercept_gap / slope_gap;
        if (slope_gap > 0.0)
            low = fmax(low, n);
        else
            high = fmin(high, n);
    }
    if (low < high) {
        *from = low;
        *to = high;
    } else {
        *from = NAN;
        *to = NAN;
    }
}

const char *comm_scheme_name(comm_scheme scheme)
{
    static const char *const names[COMM_SCHEME_COUNT] = {
        [COMM_SCHEME_PS] = "ps",
        [COMM_SCHEME_RING] = "ring",
        [COMM_SCHEME_RECURSIVE_DOUBLING] = "recursive_doubling",
        [COMM_SCHEME_HALVING_DOUBLING] = "halving_doubling",
        [COMM_SCHEME_BINARY_TREE] = "binary_tree",
        [COMM_SCHEME_DOUBLE_BINARY_TREE] = "double_binary_tree",
    };
    return scheme < COMM_SCHEME_COUNT ? names[scheme] : "unknown";
}

const char *comm_counted_at(comm_scheme scheme)
{
    return scheme == COMM_SCHEME_PS            ? "server"
           : scheme == COMM_SCHEME_BINARY_TREE ? "root"
                                               : "worker";
}
