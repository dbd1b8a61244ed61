/* Unit tests of the comm model and its plugin glue. The figures are the
 * walk-through's (science.md section 2), which are exact arithmetic: the
 * test asserts them to the last printed digit, and the exact byte counts. */
#include "check.h"
#include "model.h"
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
    CHECK_INT_EQ(ring.bytes_per_round, 1000 * round_of(COMM_SCHEME_RING, small, 64).bytes_per_round);
    CHECK_INT_EQ(ps.bytes_per_round, 512000000000LL);
    CHECK_STR_EQ(printed(ps.bytes_exact, GIB, buffer, sizeof buffer), "476.8");
    CHECK(ps.bytes_exact / GIB > 100.0 && ps.bytes_exact / GIB < 1000.0);
}

/* The ring's 2 (k - 1) W / k against the exact rational, computed here the
 * naive way (small numbers, no overflow): nearest integer, halves up. */
static void test_ring_rounding(void)
{
    comm_round one_third = round_of(COMM_SCHEME_RING, 1, 3);   /* 4/3 */
    CHECK_INT_EQ(one_third.bytes_per_round, 1);
    CHECK_NEAR(one_third.rounding_bytes, 1.0 / 3.0, 1e-15);
    comm_round half = round_of(COMM_SCHEME_RING, 1, 4);        /* 3/2 */
    CHECK_INT_EQ(half.bytes_per_round, 2);
    CHECK(half.rounding_bytes == -0.5);
    comm_round two_thirds = round_of(COMM_SCHEME_RING, 5, 3);  /* 20/3 */
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
            if (comm_round_bytes(COMM_SCHEME_RING, w, k, &r) != 0 ||
                r.bytes_per_round != nearest ||
                r.cluster_bytes_per_round != numerator ||
                r.busiest_link_bytes != nearest ||
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
    CHECK_INT_EQ(comm_copy_bytes(1000000000000000LL, 64, &w), 0);   /* largest legal copy */
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

/* The glue, through the real host: declared parameters, both rows, every
 * column, the failure. */
static void test_plugin(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    harness h;
    char buffer[32];

    CHECK_INT_EQ(harness_validate(plugin), 0);
    CHECK_STR_EQ(plugin->name, "comm");
    CHECK_INT_EQ(plugin->param_count, 3);
    CHECK_STR_EQ(plugin->params[0].name, "model_params");
    CHECK_STR_EQ(plugin->params[0].unit, "params");
    CHECK(plugin->params[0].default_number == 1e6 && plugin->params[0].max == 1e15);
    CHECK_STR_EQ(plugin->params[1].name, "bytes_per_param");
    CHECK(plugin->params[1].default_number == 4 && plugin->params[1].max == 64);
    CHECK_STR_EQ(plugin->params[2].name, "workers");
    CHECK(plugin->params[2].default_number == 8 && plugin->params[2].max == 1e7);

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
    CHECK_INT_EQ(harness_row_problems(&h, 0), 0);
    CHECK_INT_EQ(harness_row_problems(&h, 1), 0);

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
    CHECK_STR_EQ(h.point.error, "comm: ps bytes per round for 64000000000000000-byte copies "
                 "on 10000000 workers exceed int64 (9.2e18 bytes); lower model_params or workers");
    /* One past a declared bound never reaches run(). */
    CHECK_INT_EQ(harness_set(&h, "bytes_per_param", value_integer(65)), -1);
    harness_free(&h);
}

int main(void)
{
    test_walkthrough_table();
    test_12e9_parameters();
    test_1e9_parameters();
    test_ring_rounding();
    test_overflow();
    test_plugin();
    return check_done("test_comm");
}
