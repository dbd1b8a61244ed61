/* Unit tests of the comm model and its plugin glue. The byte figures are the
 * walk-through's (docs/science.md section 2), which are exact arithmetic: the
 * test asserts them to the last printed digit, and the exact byte counts.
 * The alpha-beta times are checked against the formulas worked by hand
 * (decimal literals below), the crossovers against equal times and a brute
 * force search for the fastest scheme. */
#include "check.h"
#include "comm_model.h"
#include "plugin_harness.h"

#include <stdio.h>
#include <string.h>

#define MIB 1048576.0
#define GIB 1073741824.0

/* The figure as a report prints it: "%.1f" of the exact bytes in `unit`. */
static const char *printed(double bytes, double unit, char *buffer, size_t size)
{
    snprintf(buffer, size, "%.1f", bytes / unit);
    return buffer;
}

static comm_round round_of(comm_scheme scheme, int64_t copy_bytes, int64_t workers)
{
    comm_round round;
    memset(&round, 0, sizeof round);
    CHECK_INT_EQ(comm_round_bytes(scheme, copy_bytes, workers, &round), 0);
    return round;
}

/* 1e6 float32 parameters: W = 4e6 bytes; the walk-through's "MB" are MiB. */
static void test_walkthrough_table(void)
{
    char buffer[32];
    int64_t w = 0;
    CHECK_INT_EQ(comm_copy_bytes(1000000, 4, &w), 0);
    CHECK_INT_EQ(w, 4000000);
    CHECK_STR_EQ(printed((double)w, MIB, buffer, sizeof buffer), "3.8");

    comm_round ps8 = round_of(COMM_SCHEME_PS, w, 8);
    comm_round ring8 = round_of(COMM_SCHEME_RING, w, 8);
    comm_round ps64 = round_of(COMM_SCHEME_PS, w, 64);
    comm_round ring64 = round_of(COMM_SCHEME_RING, w, 64);
    CHECK_INT_EQ(ps8.bytes_per_round, 64000000);
    CHECK_INT_EQ(ring8.bytes_per_round, 7000000);
    CHECK_INT_EQ(ps64.bytes_per_round, 512000000);
    CHECK_INT_EQ(ring64.bytes_per_round, 7875000);
    CHECK_STR_EQ(printed(ps8.bytes_exact, MIB, buffer, sizeof buffer), "61.0");
    CHECK_STR_EQ(printed(ring8.bytes_exact, MIB, buffer, sizeof buffer), "6.7");
    CHECK_STR_EQ(printed(ps64.bytes_exact, MIB, buffer, sizeof buffer), "488.3");
    CHECK_STR_EQ(printed(ring64.bytes_exact, MIB, buffer, sizeof buffer), "7.5");
    CHECK(ring8.rounding_bytes == 0.0 && ring64.rounding_bytes == 0.0);

    CHECK(ps8.copies_per_round == 16.0);
    CHECK(ring8.copies_per_round == 1.75);
    CHECK(ring64.copies_per_round == 2.0 * 63.0 / 64.0);
    /* Everything the ps moves crosses one link; the ring spreads about the
     * same total, 2 (k - 1) W, over k links. */
    CHECK_INT_EQ(ps8.cluster_bytes_per_round, 64000000);
    CHECK_INT_EQ(ring8.cluster_bytes_per_round, 56000000);
    CHECK_INT_EQ(ring64.cluster_bytes_per_round, 504000000);
    /* Per direction of the busiest link: the server's k W in (and k W out)
     * against each worker's 2 (k - 1) W / k out (and as much in). */
    CHECK_INT_EQ(ps8.busiest_link_bytes, 32000000);
    CHECK_INT_EQ(ps64.busiest_link_bytes, 256000000);
    CHECK_INT_EQ(ring8.busiest_link_bytes, 7000000);
    CHECK_INT_EQ(ring64.busiest_link_bytes, 7875000);
}

/* "48 GB per copy, 84 GB per round on 8 workers" are decimal GB. */
static void test_12e9_parameters(void)
{
    char buffer[32];
    int64_t w = 0;
    CHECK_INT_EQ(comm_copy_bytes(12000000000LL, 4, &w), 0);
    CHECK_INT_EQ(w, 48000000000LL);
    CHECK_STR_EQ(printed((double)w, GIB, buffer, sizeof buffer), "44.7");
    comm_round ring8 = round_of(COMM_SCHEME_RING, w, 8);
    CHECK_INT_EQ(ring8.bytes_per_round, 84000000000LL);
    CHECK_STR_EQ(printed(ring8.bytes_exact, GIB, buffer, sizeof buffer), "78.2");
}

/* Third 30-second experiment: 1e6 -> 1e9 parameters at 64 workers. */
static void test_1e9_parameters(void)
{
    char buffer[32];
    int64_t small = 0, big = 0;
    CHECK_INT_EQ(comm_copy_bytes(1000000, 4, &small), 0);
    CHECK_INT_EQ(comm_copy_bytes(1000000000, 4, &big), 0);
    comm_round ring = round_of(COMM_SCHEME_RING, big, 64);
    comm_round ps = round_of(COMM_SCHEME_PS, big, 64);
    CHECK_INT_EQ(ring.bytes_per_round, 7875000000LL);
    CHECK_STR_EQ(printed(ring.bytes_exact, GIB, buffer, sizeof buffer), "7.3");
    CHECK_INT_EQ(ring.bytes_per_round,
                 1000 * round_of(COMM_SCHEME_RING, small, 64).bytes_per_round);
    CHECK_INT_EQ(ps.bytes_per_round, 512000000000LL);
    CHECK_STR_EQ(printed(ps.bytes_exact, GIB, buffer, sizeof buffer), "476.8");
    CHECK(ps.bytes_exact / GIB > 100.0 && ps.bytes_exact / GIB < 1000.0);
}

/* The ring's 2 (k - 1) W / k against the exact rational, computed here the
 * naive way (small numbers, no overflow): nearest integer, halves up. */
static void test_ring_rounding(void)
{
    comm_round one_third = round_of(COMM_SCHEME_RING, 1, 3); /* 4/3 */
    CHECK_INT_EQ(one_third.bytes_per_round, 1);
    CHECK_NEAR(one_third.rounding_bytes, 1.0 / 3.0, 1e-15);
    comm_round half = round_of(COMM_SCHEME_RING, 1, 4); /* 3/2 */
    CHECK_INT_EQ(half.bytes_per_round, 2);
    CHECK(half.rounding_bytes == -0.5);
    comm_round two_thirds = round_of(COMM_SCHEME_RING, 5, 3); /* 20/3 */
    CHECK_INT_EQ(two_thirds.bytes_per_round, 7);
    CHECK_NEAR(two_thirds.rounding_bytes, -1.0 / 3.0, 1e-15);
    /* default copy on 3 workers: 16e6 / 3 */
    comm_round three = round_of(COMM_SCHEME_RING, 4000000, 3);
    CHECK_INT_EQ(three.bytes_per_round, 5333333);
    CHECK_NEAR(three.bytes_exact, 16e6 / 3.0, 1e-9);

    int wrong = 0;
    for (int64_t w = 0; w <= 300; w++) {
        for (int64_t k = 1; k <= 70; k++) {
            int64_t numerator = 2 * (k - 1) * w;
            int64_t nearest = (2 * numerator + k) / (2 * k); /* floor(x + 1/2) */
            comm_round r;
            if (comm_round_bytes(COMM_SCHEME_RING, w, k, &r) != 0 || r.bytes_per_round != nearest ||
                r.cluster_bytes_per_round != numerator || r.busiest_link_bytes != nearest ||
                r.rounding_bytes != (double)(numerator - nearest * k) / (double)k ||
                r.rounding_bytes < -0.5 || r.rounding_bytes >= 0.5 ||
                (numerator % k == 0) != (r.rounding_bytes == 0.0))
                wrong++;
        }
    }
    CHECK_INT_EQ(wrong, 0);

    CHECK_INT_EQ(round_of(COMM_SCHEME_RING, 4000000, 1).bytes_per_round, 0);
    CHECK_INT_EQ(round_of(COMM_SCHEME_PS, 4000000, 1).bytes_per_round, 8000000);
}

static void test_overflow(void)
{
    int64_t w = 0;
    comm_round r;
    CHECK_INT_EQ(comm_copy_bytes(1000000000000000LL, 64, &w), 0); /* largest legal copy */
    CHECK_INT_EQ(w, 64000000000000000LL);
    CHECK_INT_EQ(comm_copy_bytes(INT64_MAX / 2 + 1, 2, &w), -1);
    CHECK_INT_EQ(comm_round_bytes(COMM_SCHEME_PS, 64000000000000000LL, 10000000, &r), -1);
    CHECK_INT_EQ(comm_round_bytes(COMM_SCHEME_PS, INT64_MAX / 2, 1, &r), 0);
    CHECK_INT_EQ(r.bytes_per_round, INT64_MAX - 1);
    CHECK_INT_EQ(comm_round_bytes(COMM_SCHEME_PS, INT64_MAX / 2 + 1, 1, &r), -1);
    /* 2 (k - 1) W overflows long before 2 (k - 1) W / k: the model must not
     * form the numerator. W = 4e18 on 2 workers moves exactly W. */
    CHECK_INT_EQ(comm_round_bytes(COMM_SCHEME_RING, 4000000000000000000LL, 2, &r), 0);
    CHECK_INT_EQ(r.bytes_per_round, 4000000000000000000LL);
    CHECK_INT_EQ(r.cluster_bytes_per_round, 8000000000000000000LL); /* both send W */
    /* ...but the cluster total 2 (k - 1) W must fit too. */
    CHECK_INT_EQ(comm_round_bytes(COMM_SCHEME_RING, 4000000000000000000LL, 3, &r), -1);
}

/* The default network: alpha 5 us, 100 Gb/s links, 1e11 bytes/s reduction. */
static comm_net net_of(double latency_s, double bandwidth, double reduce, int64_t servers)
{
    comm_net net = { latency_s, bandwidth, reduce, servers };
    return net;
}

static comm_time time_of(comm_scheme scheme, double n, int64_t workers, const comm_net *net)
{
    comm_time t;
    memset(&t, 0, sizeof t);
    comm_round_time(scheme, n, workers, net, &t);
    return t;
}

#define CHECK_REL(a, b) CHECK_NEAR((a), (b), 1e-13 * fabs(b))

/* Each formula of docs/science.md, p = 8 ranks, n = W = 4e6 bytes, alpha 5e-6 s,
 * beta = 1 / 12.5e9 = 8e-11 s/B, gamma = 1 / 1e11 = 1e-11 s/B, worked by hand:
 *   ring   2 (p-1) a = 7e-5,  2 n (p-1)/p b = 5.6e-4,  n (p-1)/p g = 3.5e-5
 *   rd     lg p a = 1.5e-5,   n lg p b = 9.6e-4,       n lg p g = 1.2e-4
 *   hd     2 lg p a = 3e-5,   as ring 5.6e-4 and 3.5e-5
 *   tree   2 lg p a = 3e-5,   2 n lg p b = 1.92e-3,    n lg p g = 1.2e-4
 *   dbt    2 lg p a = 3e-5,   2 n b = 6.4e-4,          n g = 4e-5
 *   ps s=1 (k+s) a = 4.5e-5,  2 k n b = 5.12e-3,       (k-1) n g = 2.8e-4 */
static void test_time_formulas(void)
{
    comm_net net = net_of(5e-6, 12.5e9, 1e11, 1);
    static const struct {
        comm_scheme scheme;
        int64_t steps;
        double latency, bandwidth, reduction, total;
    } expect[] = {
        { COMM_SCHEME_RING, 14, 7e-5, 5.6e-4, 3.5e-5, 6.65e-4 },
        { COMM_SCHEME_RECURSIVE_DOUBLING, 3, 1.5e-5, 9.6e-4, 1.2e-4, 1.095e-3 },
        { COMM_SCHEME_HALVING_DOUBLING, 6, 3e-5, 5.6e-4, 3.5e-5, 6.25e-4 },
        { COMM_SCHEME_BINARY_TREE, 6, 3e-5, 1.92e-3, 1.2e-4, 2.07e-3 },
        { COMM_SCHEME_DOUBLE_BINARY_TREE, 6, 3e-5, 6.4e-4, 4e-5, 7.1e-4 },
        { COMM_SCHEME_PS, 9, 4.5e-5, 5.12e-3, 2.8e-4, 5.445e-3 },
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        comm_time t = time_of(expect[i].scheme, 4e6, 8, &net);
        CHECK_INT_EQ(t.latency_steps, expect[i].steps);
        CHECK_REL(t.latency_term_s, expect[i].latency);
        CHECK_REL(t.bandwidth_term_s, expect[i].bandwidth);
        CHECK_REL(t.reduction_term_s, expect[i].reduction);
        CHECK_REL(t.time_s, expect[i].total);
        CHECK(t.time_s == t.latency_term_s + t.bandwidth_term_s + t.reduction_term_s);
        CHECK(t.algbw_bytes_per_s == 4e6 / t.time_s);
    }

    /* Parameter-server shards, k = 8: s = 4 puts 2 k n / s = 4 n on each
     * shard's link: 12 a = 6e-5, 1.28e-3, (k-1)/s n g = 7e-5. With s = 16 >
     * k the workers' own 2 n are the bottleneck: 24 a = 1.2e-4, 6.4e-4,
     * 7/16 n g = 1.75e-5. */
    net.servers = 4;
    comm_time ps4 = time_of(COMM_SCHEME_PS, 4e6, 8, &net);
    CHECK_INT_EQ(ps4.latency_steps, 12);
    CHECK_REL(ps4.bandwidth_term_s, 1.28e-3);
    CHECK_REL(ps4.reduction_term_s, 7e-5);
    CHECK_REL(ps4.time_s, 1.41e-3);
    net.servers = 16;
    comm_time ps16 = time_of(COMM_SCHEME_PS, 4e6, 8, &net);
    CHECK_INT_EQ(ps16.latency_steps, 24);
    CHECK_REL(ps16.bandwidth_term_s, 6.4e-4);
    CHECK_REL(ps16.time_s, 1.2e-4 + 6.4e-4 + 1.75e-5);
    net.servers = 1;

    /* p = 6, not a power of two: ceil(lg 6) = 3 rounds for recursive
     * doubling, halving-doubling and the binomial tree; the double binary
     * tree's height is floor(lg 6) = 2. Ring: 10 a, 2 n 5/6 b, n 5/6 g. */
    CHECK_INT_EQ(comm_ceil_log2(6), 3);
    CHECK_INT_EQ(comm_floor_log2(6), 2);
    CHECK_INT_EQ(time_of(COMM_SCHEME_RING, 6e6, 6, &net).latency_steps, 10);
    CHECK_REL(time_of(COMM_SCHEME_RING, 6e6, 6, &net).time_s, 5e-5 + 8e-4 + 5e-5);
    CHECK_INT_EQ(time_of(COMM_SCHEME_RECURSIVE_DOUBLING, 6e6, 6, &net).latency_steps, 3);
    CHECK_REL(time_of(COMM_SCHEME_RECURSIVE_DOUBLING, 6e6, 6, &net).time_s,
              1.5e-5 + 1.44e-3 + 1.8e-4);
    CHECK_INT_EQ(time_of(COMM_SCHEME_HALVING_DOUBLING, 6e6, 6, &net).latency_steps, 6);
    CHECK_REL(time_of(COMM_SCHEME_HALVING_DOUBLING, 6e6, 6, &net).time_s, 3e-5 + 8e-4 + 5e-5);
    CHECK_INT_EQ(time_of(COMM_SCHEME_BINARY_TREE, 6e6, 6, &net).latency_steps, 6);
    CHECK_INT_EQ(time_of(COMM_SCHEME_DOUBLE_BINARY_TREE, 6e6, 6, &net).latency_steps, 4);
    static const int64_t ps[] = { 1, 2, 3, 4, 5, 7, 8, 9, 1023, 1024, 1025, 10000000 };
    static const int64_t ceil_lg[] = { 0, 1, 2, 2, 3, 3, 3, 4, 10, 10, 11, 24 };
    static const int64_t floor_lg[] = { 0, 1, 1, 2, 2, 2, 3, 3, 9, 10, 10, 23 };
    for (int i = 0; i < 12; i++) {
        CHECK_INT_EQ(comm_ceil_log2(ps[i]), ceil_lg[i]);
        CHECK_INT_EQ(comm_floor_log2(ps[i]), floor_lg[i]);
    }

    /* One worker: every all-reduce is free; a server still moves 2 W. */
    for (int s = COMM_SCHEME_RING; s < COMM_SCHEME_COUNT; s++) {
        comm_time alone = time_of((comm_scheme)s, 4e6, 1, &net);
        CHECK(alone.time_s == 0.0 && alone.latency_steps == 0);
        CHECK(isinf(alone.algbw_bytes_per_s) && alone.busbw_bytes_per_s == 0.0);
    }
    CHECK_REL(time_of(COMM_SCHEME_PS, 4e6, 1, &net).time_s, 1e-5 + 6.4e-4);
}

/* nccl-tests: busbw = algbw * 2 (p - 1) / p for all-reduce, chosen so that a
 * bandwidth-optimal all-reduce shows the link speed whatever p: with no
 * latency and free reduction, ring and halving-doubling give busbw = 1/beta,
 * and the double binary tree gives NCCL's algbw = busbw / 2 = 1 / (2 beta). */
static void test_busbw(void)
{
    comm_net net = net_of(0.0, 12.5e9, HUGE_VAL, 1);
    static const int64_t ps[] = { 2, 3, 8, 64, 1000, 10000000 };
    for (int i = 0; i < 6; i++) {
        double factor = 2.0 * (double)(ps[i] - 1) / (double)ps[i];
        CHECK(comm_busbw_factor(ps[i]) == factor);
        comm_time ring = time_of(COMM_SCHEME_RING, 1e9, ps[i], &net);
        CHECK_REL(ring.busbw_bytes_per_s, 12.5e9);
        CHECK(ring.busbw_bytes_per_s == ring.algbw_bytes_per_s * factor);
        CHECK_REL(time_of(COMM_SCHEME_HALVING_DOUBLING, 1e9, ps[i], &net).busbw_bytes_per_s,
                  12.5e9);
        CHECK_REL(time_of(COMM_SCHEME_DOUBLE_BINARY_TREE, 1e9, ps[i], &net).algbw_bytes_per_s,
                  6.25e9);
    }
    CHECK(comm_busbw_factor(1) == 0.0);
    /* With latency the bus bandwidth falls below the link's: p = 8, n = 4e6
     * ring: 4e6 / 6.65e-4 s * 1.75 with the defaults. */
    net = net_of(5e-6, 12.5e9, 1e11, 1);
    CHECK_REL(time_of(COMM_SCHEME_RING, 4e6, 8, &net).busbw_bytes_per_s, 4e6 / 6.65e-4 * 1.75);
}

static double line_time(const comm_line *line, double n)
{
    return line->latency_term_s + n * (line->bandwidth_s_per_byte + line->reduce_s_per_byte);
}

/* Crossovers: equal times at n*, and the order flips across it. */
static void test_crossover(void)
{
    comm_net net = net_of(5e-6, 12.5e9, 1e11, 1);
    comm_line ring, rd, hd, tree, dbt, ps;
    comm_time_line(COMM_SCHEME_RING, 8, &net, &ring);
    comm_time_line(COMM_SCHEME_RECURSIVE_DOUBLING, 8, &net, &rd);
    comm_time_line(COMM_SCHEME_HALVING_DOUBLING, 8, &net, &hd);
    comm_time_line(COMM_SCHEME_BINARY_TREE, 8, &net, &tree);
    comm_time_line(COMM_SCHEME_DOUBLE_BINARY_TREE, 8, &net, &dbt);
    comm_time_line(COMM_SCHEME_PS, 8, &net, &ps);
    /* By hand, p = 8: 14 a + n 1.75 b + n 0.875 g = 3 a + 3 n (b + g), so
     * n* = 11 a / (2.7e-10 - 1.4875e-10) = 5.5e-5 / 1.2125e-10 bytes. */
    CHECK_REL(comm_crossover_bytes(&rd, &ring), 5.5e-5 / 1.2125e-10);
    CHECK(comm_crossover_bytes(&rd, &ring) == comm_crossover_bytes(&ring, &rd));
    /* Tree: 8 a / (6 b + 3 g - 1.75 b - 0.875 g); dbt: 8 a / (0.25 b + 0.125 g). */
    CHECK_REL(comm_crossover_bytes(&tree, &ring), 4e-5 / (4.25 * 8e-11 + 2.125e-11));
    CHECK_REL(comm_crossover_bytes(&dbt, &ring), 4e-5 / (0.25 * 8e-11 + 0.125e-11));
    /* Same slope as the ring, fewer messages: faster at every size, no crossover. */
    CHECK(isnan(comm_crossover_bytes(&hd, &ring)));
    CHECK(isnan(comm_crossover_bytes(&ring, &ring)));
    /* Lines that cross only at n <= 0: at p = 2 the server (3 messages,
     * 4 n b) loses to the ring (2 messages, n b) at every size; the tree and
     * halving-doubling both take 6 messages at p = 8, so they meet at 0. */
    comm_line ps2, ring2;
    comm_time_line(COMM_SCHEME_PS, 2, &net, &ps2);
    comm_time_line(COMM_SCHEME_RING, 2, &net, &ring2);
    CHECK(isnan(comm_crossover_bytes(&ps2, &ring2)));
    CHECK(isnan(comm_crossover_bytes(&tree, &hd)));
    /* The server (9 messages) beats the ring (14) below its crossover. */
    CHECK_REL(comm_crossover_bytes(&ps, &ring), 2.5e-5 / (14.25 * 8e-11 + 6.125e-11));

    const comm_line *pairs[][2] = { { &rd, &ring }, { &tree, &ring }, { &dbt, &ring },
                                    { &ps, &ring }, { &rd, &hd },     { &rd, &dbt } };
    for (int i = 0; i < 6; i++) {
        const comm_line *a = pairs[i][0], *b = pairs[i][1];
        double n = comm_crossover_bytes(a, b);
        CHECK(n > 0.0);
        CHECK_NEAR(line_time(a, n), line_time(b, n), 1e-13 * line_time(b, n));
        /* a has fewer messages (faster below n*), b the smaller slope. */
        CHECK(line_time(a, n / 2) < line_time(b, n / 2));
        CHECK(line_time(a, n * 2) > line_time(b, n * 2));
        /* The model's own evaluation agrees with the line. */
        CHECK(line_time(a, n) ==
              a->latency_term_s + n * (a->bandwidth_s_per_byte + a->reduce_s_per_byte));
    }
}

/* The fastest-range columns against a brute-force search over sizes, for
 * several p (powers of two and not), with and without the server. */
static void test_fastest_range(void)
{
    static const int64_t ps[] = { 2, 3, 6, 8, 64, 100, 512, 4096 };
    comm_net net = net_of(5e-6, 12.5e9, 1e11, 1);
    int wrong = 0, covered = 0;
    for (int i = 0; i < 8; i++) {
        comm_line lines[COMM_SCHEME_COUNT];
        double from[COMM_SCHEME_COUNT], to[COMM_SCHEME_COUNT];
        for (int s = 0; s < COMM_SCHEME_COUNT; s++)
            comm_time_line((comm_scheme)s, ps[i], &net, &lines[s]);
        for (int s = 0; s < COMM_SCHEME_COUNT; s++)
            comm_fastest_range(lines, COMM_SCHEME_COUNT, (size_t)s, &from[s], &to[s]);
        /* The ranges tile [0, inf): one starts at 0, one ends at inf, and
         * every other end is another's start. */
        int starts_at_zero = 0, ends_at_inf = 0;
        for (int s = 0; s < COMM_SCHEME_COUNT; s++) {
            if (isnan(from[s]))
                continue;
            starts_at_zero += from[s] == 0.0;
            ends_at_inf += isinf(to[s]);
            int joined = isinf(to[s]);
            for (int t = 0; t < COMM_SCHEME_COUNT; t++)
                joined |= !isnan(from[t]) && from[t] == to[s];
            wrong += !joined;
        }
        wrong += starts_at_zero != 1 || ends_at_inf != 1;
        /* Brute force: at 200 sizes from 1 B to 1e12 B, the fastest line is
         * the one whose range holds the size. */
        for (int j = 0; j < 200; j++) {
            double n = pow(10.0, 12.0 * j / 199.0);
            int best = 0;
            for (int s = 1; s < COMM_SCHEME_COUNT; s++)
                if (line_time(&lines[s], n) < line_time(&lines[best], n))
                    best = s;
            wrong += !(from[best] <= n && n <= to[best]);
            covered++;
        }
    }
    CHECK_INT_EQ(wrong, 0);
    CHECK_INT_EQ(covered, 1600);

    /* p = 64 by hand: recursive doubling (6 messages, slope 6 (b + g)) is
     * the fastest up to n* = 6 a / (6 (b + g) - (2 b + g) 63/64); from there
     * halving-doubling (12 messages, the ring's slope). The binary tree and
     * the double binary tree also take 12 messages but have larger slopes,
     * the ring has the same slope but 126 messages: never the fastest. */
    comm_line lines[COMM_SCHEME_COUNT];
    double from, to;
    for (int s = 0; s < COMM_SCHEME_COUNT; s++)
        comm_time_line((comm_scheme)s, 64, &net, &lines[s]);
    comm_fastest_range(lines, COMM_SCHEME_COUNT, COMM_SCHEME_RECURSIVE_DOUBLING, &from, &to);
    double hd_slope = 2.0 * 63.0 / 64.0 * 8e-11 + 63.0 / 64.0 * 1e-11;
    CHECK(from == 0.0);
    CHECK_REL(to, 6.0 * 5e-6 / (6.0 * 9e-11 - hd_slope));
    comm_fastest_range(lines, COMM_SCHEME_COUNT, COMM_SCHEME_HALVING_DOUBLING, &from, &to);
    CHECK_REL(from, 6.0 * 5e-6 / (6.0 * 9e-11 - hd_slope));
    CHECK(isinf(to));
    for (int s = 0; s < COMM_SCHEME_COUNT; s++) {
        if (s == COMM_SCHEME_RECURSIVE_DOUBLING || s == COMM_SCHEME_HALVING_DOUBLING)
            continue;
        comm_fastest_range(lines, COMM_SCHEME_COUNT, (size_t)s, &from, &to);
        CHECK(isnan(from) && isnan(to));
    }
    /* Identical lines (p = 2: ring and halving-doubling are both 2 a + n b
     * + n g / 2): the earlier one counts as the faster. */
    comm_line two[2];
    comm_time_line(COMM_SCHEME_RING, 2, &net, &two[0]);
    comm_time_line(COMM_SCHEME_HALVING_DOUBLING, 2, &net, &two[1]);
    comm_fastest_range(two, 2, 0, &from, &to);
    CHECK(from == 0.0 && isinf(to));
    comm_fastest_range(two, 2, 1, &from, &to);
    CHECK(isnan(from) && isnan(to));
}

/* Bytes of the new schemes and of the sharded server, and the invariant
 * that ties bytes to time: bandwidth_term_s = exact bytes_per_round * beta. */
static void test_scheme_bytes(void)
{
    const int64_t w = 4000000;
    comm_round rd = round_of(COMM_SCHEME_RECURSIVE_DOUBLING, w, 8);
    CHECK_INT_EQ(rd.bytes_per_round, 12000000);         /* lg 8 = 3 copies */
    CHECK_INT_EQ(rd.cluster_bytes_per_round, 96000000); /* 8 workers x 3 W */
    CHECK_INT_EQ(rd.busiest_link_bytes, 12000000);
    comm_round hd = round_of(COMM_SCHEME_HALVING_DOUBLING, w, 8);
    CHECK_INT_EQ(hd.bytes_per_round, 7000000); /* as the ring */
    CHECK_INT_EQ(hd.cluster_bytes_per_round, 56000000);
    comm_round tree = round_of(COMM_SCHEME_BINARY_TREE, w, 8);
    CHECK_INT_EQ(tree.bytes_per_round, 24000000); /* root: 3 W in, 3 W out */
    CHECK_INT_EQ(tree.busiest_link_bytes, 12000000);
    CHECK_INT_EQ(tree.cluster_bytes_per_round, 56000000); /* 2 (p - 1) messages of W */
    CHECK_STR_EQ(tree.counted_at, "root");
    comm_round dbt = round_of(COMM_SCHEME_DOUBLE_BINARY_TREE, w, 8);
    CHECK_INT_EQ(dbt.bytes_per_round, 8000000);
    CHECK_INT_EQ(dbt.cluster_bytes_per_round, 56000000);
    CHECK_INT_EQ(round_of(COMM_SCHEME_DOUBLE_BINARY_TREE, w, 1).bytes_per_round, 0);
    CHECK_INT_EQ(round_of(COMM_SCHEME_RECURSIVE_DOUBLING, w, 1).bytes_per_round, 0);

    /* Sharded server: bytes at each shard 2 k W / s; the cluster total 2 k W
     * whatever s; more shards than workers: each worker's 2 W. */
    comm_round r;
    CHECK_INT_EQ(comm_round_bytes_sharded(COMM_SCHEME_PS, w, 8, 4, &r), 0);
    CHECK_INT_EQ(r.bytes_per_round, 16000000);
    CHECK_INT_EQ(r.busiest_link_bytes, 8000000);
    CHECK_INT_EQ(r.cluster_bytes_per_round, 64000000);
    CHECK_STR_EQ(r.counted_at, "server");
    CHECK(r.copies_per_round == 4.0);
    CHECK_INT_EQ(comm_round_bytes_sharded(COMM_SCHEME_PS, w, 8, 16, &r), 0);
    CHECK_INT_EQ(r.bytes_per_round, 8000000);
    CHECK_INT_EQ(r.busiest_link_bytes, 4000000);
    CHECK_STR_EQ(r.counted_at, "worker");
    /* ...and the same as before with one server, field by field. */
    comm_round one, walk;
    CHECK_INT_EQ(comm_round_bytes_sharded(COMM_SCHEME_PS, w, 64, 1, &one), 0);
    walk = round_of(COMM_SCHEME_PS, w, 64);
    CHECK(memcmp(&one, &walk, sizeof one) == 0);
    CHECK_INT_EQ(one.bytes_per_round, 512000000);

    /* 2 k W / s against the exact rational, computed the naive way. */
    int wrong = 0;
    for (int64_t bytes = 0; bytes <= 60; bytes++)
        for (int64_t k = 1; k <= 20; k++)
            for (int64_t s = 1; s <= k; s++) {
                int64_t numerator = 2 * k * bytes;
                int64_t nearest = (2 * numerator + s) / (2 * s);
                int64_t link = (2 * k * bytes + s) / (2 * s);
                if (comm_round_bytes_sharded(COMM_SCHEME_PS, bytes, k, s, &r) != 0 ||
                    r.bytes_per_round != nearest || r.busiest_link_bytes != link ||
                    r.rounding_bytes != (double)(numerator - nearest * s) / (double)s ||
                    r.rounding_bytes < -0.5 || r.rounding_bytes >= 0.5 ||
                    r.cluster_bytes_per_round != numerator)
                    wrong++;
            }
    CHECK_INT_EQ(wrong, 0);

    /* Bytes and time agree for every scheme. */
    static const int64_t ks[] = { 1, 3, 8, 100 };
    static const int64_t ss[] = { 1, 3, 7, 200 };
    for (int i = 0; i < 4; i++)
        for (int s = 0; s < COMM_SCHEME_COUNT; s++) {
            comm_net net = net_of(5e-6, 12.5e9, 1e11, ss[i]);
            comm_round bytes;
            CHECK_INT_EQ(comm_round_bytes_sharded((comm_scheme)s, 999999, ks[i], ss[i], &bytes), 0);
            comm_time t = time_of((comm_scheme)s, 999999, ks[i], &net);
            CHECK_NEAR(t.bandwidth_term_s, bytes.bytes_exact / 12.5e9, 1e-15 * t.bandwidth_term_s);
            CHECK_NEAR(bytes.copies_per_round * 999999, bytes.bytes_exact,
                       1e-9 * bytes.bytes_exact);
        }
    /* Overflow of the new schemes fails as the old ones do. */
    CHECK_INT_EQ(comm_round_bytes_sharded(COMM_SCHEME_RECURSIVE_DOUBLING, 64000000000000000LL,
                                          10000000, 1, &r),
                 -1);
    CHECK_INT_EQ(comm_round_bytes_sharded(COMM_SCHEME_PS, INT64_MAX / 2, 1, 1, &r), 0);
    CHECK_INT_EQ(comm_round_bytes_sharded(COMM_SCHEME_PS, INT64_MAX / 4, 2, 3, &r), 0);
    CHECK_INT_EQ(comm_round_bytes_sharded(COMM_SCHEME_PS, INT64_MAX / 2 + 1, 1, 1, &r), -1);
}

/* Without measure the five measured_* columns are NULL (not measured), and
 * harness_row_problems() counts each NULL. */
#define UNMEASURED_NULLS 5

/* The glue, through the real host: declared parameters, both rows, every
 * column, the failure. */
static void test_plugin(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    harness h;
    char buffer[32];

    CHECK_INT_EQ(harness_validate(plugin), 0);
    CHECK_STR_EQ(plugin->name, "comm");
    CHECK_INT_EQ(plugin->param_count, 9);
    CHECK_STR_EQ(plugin->params[0].name, "model_params");
    CHECK_STR_EQ(plugin->params[0].unit, "params");
    CHECK(plugin->params[0].default_number == 1e6 && plugin->params[0].max == 1e15);
    CHECK_STR_EQ(plugin->params[1].name, "bytes_per_param");
    CHECK(plugin->params[1].default_number == 4 && plugin->params[1].max == 64);
    CHECK_STR_EQ(plugin->params[2].name, "workers");
    CHECK(plugin->params[2].default_number == 8 && plugin->params[2].max == 1e7);
    static const struct {
        const char *name;
        runner_type type;
        const char *unit;
        double def;
    } added[] = {
        { "latency_s", RUNNER_REAL, "s", 5e-6 },
        { "bandwidth_bytes_per_s", RUNNER_REAL, "bytes/s", 12.5e9 },
        { "reduce_bytes_per_s", RUNNER_REAL, "bytes/s", 1e11 },
        { "servers", RUNNER_INTEGER, "servers", 1 },
    };
    for (int i = 0; i < 4 && plugin->param_count == 9; i++) {
        CHECK_STR_EQ(plugin->params[3 + i].name, added[i].name);
        CHECK_INT_EQ(plugin->params[3 + i].type, added[i].type);
        CHECK_STR_EQ(plugin->params[3 + i].unit, added[i].unit);
        CHECK(plugin->params[3 + i].default_number == added[i].def);
    }
    CHECK_STR_EQ(plugin->params[7].name, "schemes");
    CHECK_STR_EQ(plugin->params[7].default_text, "walkthrough");
    CHECK_STR_EQ(plugin->params[8].name, "measure");
    CHECK(plugin->params[8].type == RUNNER_BOOLEAN && plugin->params[8].default_number == 0);
    CHECK_INT_EQ(plugin->flags, RUNNER_PLUGIN_COLLECTIVE);
    /* The walk-through's ten columns keep their place; new ones follow. */
    static const char *const columns[] = {
        "scheme",
        "bytes_per_round",
        "counted_at",
        "copy_bytes",
        "copies_per_round",
        "mib_per_round",
        "gib_per_round",
        "cluster_bytes_per_round",
        "busiest_link_bytes",
        "rounding_bytes",
        "time_s",
        "latency_term_s",
        "bandwidth_term_s",
        "reduction_term_s",
        "latency_steps",
        "algbw_bytes_per_s",
        "busbw_bytes_per_s",
        "ring_crossover_bytes",
        "fastest_from_bytes",
        "fastest_to_bytes",
        "fastest",
        "measured_ranks",
        "measured_bytes",
        "measured_time_s",
        "measured_algbw_bytes_per_s",
        "measured_busbw_bytes_per_s",
    };
    CHECK_INT_EQ(plugin->column_count, sizeof columns / sizeof columns[0]);
    for (uint32_t i = 0; i < plugin->column_count && i < sizeof columns / sizeof columns[0]; i++)
        CHECK_STR_EQ(plugin->columns[i].name, columns[i]);

    harness_init(&h, plugin);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK(h.point.error == NULL);
    CHECK_INT_EQ(h.point.row_count, 2);
    CHECK_STR_EQ(harness_text(&h, 0, "scheme"), "ps");
    CHECK_STR_EQ(harness_text(&h, 0, "counted_at"), "server");
    CHECK_INT_EQ(harness_integer(&h, 0, "bytes_per_round"), 64000000);
    CHECK_INT_EQ(harness_integer(&h, 0, "copy_bytes"), 4000000);
    CHECK_STR_EQ(printed(harness_real(&h, 0, "mib_per_round"), 1.0, buffer, sizeof buffer), "61.0");
    CHECK_STR_EQ(harness_text(&h, 1, "scheme"), "ring");
    CHECK_STR_EQ(harness_text(&h, 1, "counted_at"), "worker");
    CHECK_INT_EQ(harness_integer(&h, 1, "bytes_per_round"), 7000000);
    CHECK_INT_EQ(harness_integer(&h, 1, "cluster_bytes_per_round"), 56000000);
    CHECK_INT_EQ(harness_integer(&h, 0, "busiest_link_bytes"), 32000000);
    CHECK_INT_EQ(harness_integer(&h, 1, "busiest_link_bytes"), 7000000);
    CHECK(harness_real(&h, 1, "copies_per_round") == 1.75);
    CHECK(harness_real(&h, 1, "rounding_bytes") == 0.0);
    CHECK_STR_EQ(printed(harness_real(&h, 1, "mib_per_round"), 1.0, buffer, sizeof buffer), "6.7");
    CHECK_INT_EQ(harness_row_problems(&h, 0), UNMEASURED_NULLS);
    CHECK_INT_EQ(harness_row_problems(&h, 1), UNMEASURED_NULLS);
    /* Times at the default network, as test_time_formulas worked them. */
    CHECK_REL(harness_real(&h, 0, "time_s"), 5.445e-3);
    CHECK_REL(harness_real(&h, 1, "time_s"), 6.65e-4);
    CHECK_REL(harness_real(&h, 1, "latency_term_s"), 7e-5);
    CHECK_REL(harness_real(&h, 1, "bandwidth_term_s"), 5.6e-4);
    CHECK_REL(harness_real(&h, 1, "reduction_term_s"), 3.5e-5);
    CHECK_INT_EQ(harness_integer(&h, 0, "latency_steps"), 9);
    CHECK_INT_EQ(harness_integer(&h, 1, "latency_steps"), 14);
    CHECK(harness_real(&h, 1, "algbw_bytes_per_s") == 4e6 / harness_real(&h, 1, "time_s"));
    CHECK(harness_real(&h, 1, "busbw_bytes_per_s") ==
          harness_real(&h, 1, "algbw_bytes_per_s") * 1.75);
    /* Two schemes: the server wins below the crossover, the ring above. */
    double n_star = 2.5e-5 / (14.25 * 8e-11 + 6.125e-11);
    CHECK_REL(harness_real(&h, 0, "ring_crossover_bytes"), n_star);
    CHECK(isnan(harness_real(&h, 1, "ring_crossover_bytes")));
    CHECK(harness_real(&h, 0, "fastest_from_bytes") == 0.0);
    CHECK_REL(harness_real(&h, 0, "fastest_to_bytes"), n_star);
    CHECK_REL(harness_real(&h, 1, "fastest_from_bytes"), n_star);
    CHECK(isinf(harness_real(&h, 1, "fastest_to_bytes")));
    CHECK_INT_EQ(harness_boolean(&h, 0, "fastest"), 0);
    CHECK_INT_EQ(harness_boolean(&h, 1, "fastest"), 1);

    /* schemes = "all": the walk-through's two rows unchanged, then four. */
    harness all;
    harness_init(&all, plugin);
    CHECK_INT_EQ(harness_set(&all, "schemes", value_text("all")), 0);
    CHECK_INT_EQ(harness_run(&all, 1), 0);
    CHECK_INT_EQ(all.point.row_count, 6);
    static const char *const names[] = {
        "ps", "ring", "recursive_doubling", "halving_doubling", "binary_tree", "double_binary_tree"
    };
    static const double times[] = { 5.445e-3, 6.65e-4, 1.095e-3, 6.25e-4, 2.07e-3, 7.1e-4 };
    int fastest = 0;
    for (size_t i = 0; i < 6 && all.point.row_count == 6; i++) {
        CHECK_STR_EQ(harness_text(&all, i, "scheme"), names[i]);
        CHECK_REL(harness_real(&all, i, "time_s"), times[i]);
        CHECK_INT_EQ(harness_row_problems(&all, i), UNMEASURED_NULLS);
        fastest += harness_boolean(&all, i, "fastest");
    }
    CHECK_INT_EQ(fastest, 1);
    CHECK_INT_EQ(harness_boolean(&all, 3, "fastest"), 1); /* halving_doubling, 6.25e-4 s */
    for (uint32_t c = 0; c < 10; c++) { /* the walk-through's columns, bit for bit */
        for (size_t i = 0; i < 2; i++) {
            const value *x = &h.point.rows[i * plugin->column_count + c];
            const value *y = &all.point.rows[i * plugin->column_count + c];
            CHECK(value_equal(x, y));
        }
    }
    /* Same point, same rows. */
    harness again;
    harness_init(&again, plugin);
    CHECK_INT_EQ(harness_set(&again, "schemes", value_text("all")), 0);
    CHECK_INT_EQ(harness_run(&again, 99), 0);
    CHECK(harness_rows_identical(&all, &again));
    CHECK_INT_EQ(harness_set(&again, "schemes", value_text("every")), -1);
    harness_free(&again);
    harness_free(&all);

    CHECK_INT_EQ(harness_set(&h, "model_params", value_integer(12000000000LL)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK_STR_EQ(printed(harness_real(&h, 1, "gib_per_round"), 1.0, buffer, sizeof buffer), "78.2");
    CHECK_INT_EQ(harness_integer(&h, 1, "bytes_per_round"), 84000000000LL);

    CHECK_INT_EQ(harness_set(&h, "model_params", value_integer(1000000)), 0);
    CHECK_INT_EQ(harness_set(&h, "workers", value_integer(3)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK_INT_EQ(harness_integer(&h, 1, "bytes_per_round"), 5333333);
    CHECK_NEAR(harness_real(&h, 1, "rounding_bytes"), 1.0 / 3.0, 1e-15);

    /* The largest legal point overflows int64: fail it, store nothing. */
    CHECK_INT_EQ(harness_set(&h, "model_params", value_integer(1000000000000000LL)), 0);
    CHECK_INT_EQ(harness_set(&h, "bytes_per_param", value_integer(64)), 0);
    CHECK_INT_EQ(harness_set(&h, "workers", value_integer(10000000)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_INT_EQ(h.point.row_count, 0);
    CHECK_STR_EQ(h.point.error,
                 "comm: ps bytes per round for 64000000000000000-byte copies "
                 "on 10000000 workers exceed int64 (9.2e18 bytes); lower model_params or workers");
    /* One past a declared bound never reaches run(). */
    CHECK_INT_EQ(harness_set(&h, "bytes_per_param", value_integer(65)), -1);
    harness_free(&h);
}

/* measure = true in one process: the host's allreduce has no other rank,
 * so the time is only the call's, but every measured column is filled. */
static void test_measure(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    harness h;
    harness_init(&h, plugin);
    CHECK_INT_EQ(harness_set(&h, "measure", value_boolean(1)), 0);
    CHECK_INT_EQ(harness_set(&h, "model_params", value_integer(1000)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK_INT_EQ(h.point.row_count, 2);
    for (size_t i = 0; i < h.point.row_count; i++) {
        CHECK_INT_EQ(harness_row_problems(&h, i), 0);
        CHECK_INT_EQ(harness_integer(&h, i, "measured_ranks"), 1);
        CHECK_INT_EQ(harness_integer(&h, i, "measured_bytes"), 8000);
        CHECK(harness_real(&h, i, "measured_time_s") > 0.0);
        CHECK(harness_real(&h, i, "measured_algbw_bytes_per_s") ==
              8000.0 / harness_real(&h, i, "measured_time_s"));
        CHECK(harness_real(&h, i, "measured_busbw_bytes_per_s") == 0.0); /* 2 (n - 1) / n */
    }
    /* The model's columns do not depend on measuring. */
    CHECK_INT_EQ(harness_integer(&h, 1, "bytes_per_round"), 7000);
    /* More than 1 GiB of doubles per rank is refused before any allreduce. */
    CHECK_INT_EQ(harness_set(&h, "model_params", value_integer(200000000)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error,
                 "comm: measure = true allreduces model_params doubles; "
                 "200000000 is more than the 134217728 (1 GiB) it measures; lower model_params");
    harness_free(&h);
}

int main(void)
{
    test_walkthrough_table();
    test_12e9_parameters();
    test_1e9_parameters();
    test_ring_rounding();
    test_overflow();
    test_time_formulas();
    test_busbw();
    test_crossover();
    test_fastest_range();
    test_scheme_bytes();
    test_plugin();
    test_measure();
    return check_done("test_comm");
}
