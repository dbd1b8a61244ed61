/* Unit tests of the sharding model: names and hashes against independent
 * computations (snprintf, XXH64 itself, RFC 1321 vectors), the ring against a
 * naive linear scan, the figures against the formulas of docs/science.md
 * section 4; jump, Maglev and ketama against published outputs or the
 * papers' pseudocode, every scheme's run against independent placements.
 * plugin.c runs through the real host (plugin_harness.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <runner/plugin.h>

#include <openssl/evp.h>
#include <xxhash.h>

#include "check.h"
#include "model.h"
#include "plugin_harness.h"

static shard_result run_config(shard_hash_kind kind, uint64_t seed, uint64_t keys, uint32_t nodes,
                               uint32_t vnodes)
{
    shard_hasher hasher;
    shard_result result;
    memset(&result, 0, sizeof(result));
    CHECK_INT_EQ(shard_hasher_init(&hasher, kind, seed), 0);
    shard_config config = { .keys = keys, .nodes = nodes, .vnodes = vnodes };
    CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &result), 0);
    shard_hasher_cleanup(&hasher);
    return result;
}

static void test_names(void)
{
    char buf[SHARD_NAME_MAX], expected[SHARD_NAME_MAX];
    const uint64_t samples[] = { 0, 1, 9, 10, 99, 12345, 99999999, UINT64_MAX };
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        int len = snprintf(expected, sizeof(expected), "key:%" PRIu64, samples[i]);
        CHECK_INT_EQ(shard_key_name(buf, samples[i]), len);
        CHECK_STR_EQ(buf, expected);
    }
    snprintf(expected, sizeof(expected), "node:%" PRIu64 "#%" PRIu64, UINT64_MAX, UINT64_MAX);
    CHECK_INT_EQ(shard_point_name(buf, UINT64_MAX, UINT64_MAX), strlen(expected));
    CHECK_STR_EQ(buf, expected);
    shard_point_name(buf, 3, 0);
    CHECK_STR_EQ(buf, "node:3#0");

    shard_hash_kind kind = SHARD_HASH_MD5;
    CHECK_INT_EQ(shard_hash_parse("xxh64", &kind), 0);
    CHECK_INT_EQ(kind, SHARD_HASH_XXH64);
    CHECK_INT_EQ(shard_hash_parse("md5", &kind), 0);
    CHECK_INT_EQ(kind, SHARD_HASH_MD5);
    CHECK_INT_EQ(shard_hash_parse("sha1", &kind), -1);
    CHECK_INT_EQ(shard_hash_parse("XXH64", &kind), -1);
    CHECK_STR_EQ(shard_hash_name(SHARD_HASH_XXH64), "xxh64");
    CHECK_STR_EQ(shard_hash_name(SHARD_HASH_MD5), "md5");
}

static void test_hashes(void)
{
    shard_hasher xxh, md5, md5_seeded;
    CHECK_INT_EQ(shard_hasher_init(&xxh, SHARD_HASH_XXH64, 42), 0);
    CHECK_INT_EQ(shard_hasher_init(&md5, SHARD_HASH_MD5, 0), 0);
    CHECK_INT_EQ(shard_hasher_init(&md5_seeded, SHARD_HASH_MD5, 7), 0);

    /* xxh64 is XXH64 of the key string with the seed. */
    CHECK(shard_key_hash(&xxh, 12345) == XXH64("key:12345", 9, 42));
    CHECK(shard_hash_bytes(&xxh, "node:0#0", 8) == XXH64("node:0#0", 8, 42));

    /* md5: RFC 1321 vectors, first 8 digest bytes read little-endian.
     * MD5("") = d41d8cd98f00b204..., MD5("abc") = 900150983cd24fb0... */
    CHECK(shard_hash_bytes(&md5, "", 0) == UINT64_C(0x04b2008fd98c1dd4));
    CHECK(shard_hash_bytes(&md5, "abc", 3) == UINT64_C(0xb04fd23c98500190));
    /* A seed is the namespace prefix "<seed>:". */
    CHECK(shard_hash_bytes(&md5_seeded, "abc", 3) == shard_hash_bytes(&md5, "7:abc", 5));
    CHECK(shard_key_hash(&md5_seeded, 3) != shard_key_hash(&md5, 3));

    /* The fast key formatter hashes the same bytes as snprintf would. */
    char name[SHARD_NAME_MAX];
    for (uint64_t i = 0; i < 2000; i += 37) {
        int len = snprintf(name, sizeof(name), "key:%" PRIu64, i);
        CHECK(shard_key_hash(&md5, i) == shard_hash_bytes(&md5, name, (size_t)len));
        CHECK(shard_key_hash(&xxh, i) == XXH64(name, (size_t)len, 42));
    }

    shard_hasher_cleanup(&xxh);
    shard_hasher_cleanup(&md5);
    shard_hasher_cleanup(&md5_seeded);
    shard_hasher_cleanup(&md5); /* twice is harmless */
}

/* The ring's points built independently (snprintf names, no sorting). */
typedef struct naive_ring {
    uint64_t *hash;
    uint32_t *node;
    size_t count;
} naive_ring;

static naive_ring naive_new(shard_hasher *hasher, uint32_t nodes, uint32_t vnodes)
{
    naive_ring ring = { malloc(sizeof(uint64_t) * nodes * vnodes),
                        malloc(sizeof(uint32_t) * nodes * vnodes), 0 };
    char name[SHARD_NAME_MAX];
    for (uint32_t n = 0; n < nodes; n++)
        for (uint32_t v = 0; v < vnodes; v++) {
            int len = snprintf(name, sizeof(name), "node:%u#%u", n, v);
            ring.hash[ring.count] = shard_hash_bytes(hasher, name, (size_t)len);
            ring.node[ring.count++] = n;
        }
    return ring;
}

static int naive_before(const naive_ring *r, size_t a, size_t b)
{
    return r->hash[a] < r->hash[b] || (r->hash[a] == r->hash[b] && r->node[a] < r->node[b]);
}

/* Linear scan: the smallest point >= h, else the smallest point; points of
 * node skip do not exist. */
static uint32_t naive_owner(const naive_ring *r, uint64_t h, uint32_t skip)
{
    size_t best = SIZE_MAX, first = SIZE_MAX;
    for (size_t i = 0; i < r->count; i++) {
        if (r->node[i] == skip)
            continue;
        if (first == SIZE_MAX || naive_before(r, i, first))
            first = i;
        if (r->hash[i] >= h && (best == SIZE_MAX || naive_before(r, i, best)))
            best = i;
    }
    return r->node[best != SIZE_MAX ? best : first];
}

static void naive_free(naive_ring *r)
{
    free(r->hash);
    free(r->node);
}

static void test_ring_against_linear_scan(shard_hash_kind kind)
{
    const uint32_t nodes = 6, vnodes = 7; /* grown ring of 6; old ring of 5 */
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, kind, 3), 0);
    shard_ring *ring = shard_ring_new(&hasher, nodes, vnodes);
    naive_ring naive = naive_new(&hasher, nodes, vnodes);
    CHECK(ring != NULL);
    if (!ring)
        return;
    CHECK_INT_EQ(ring->count, nodes * vnodes);

    int mismatches = 0, mismatches_old = 0;
    for (uint64_t i = 0; i < 5000; i++) {
        uint64_t h = shard_key_hash(&hasher, i);
        mismatches += shard_ring_node(ring, h) != naive_owner(&naive, h, UINT32_MAX);
        mismatches_old +=
            shard_ring_node_without_last(ring, h) != naive_owner(&naive, h, nodes - 1);
    }
    /* The edges: exactly on a point, just past it, 0 and the wrap at 2^64-1. */
    for (size_t i = 0; i < naive.count; i++) {
        const uint64_t probes[] = { naive.hash[i], naive.hash[i] + 1, naive.hash[i] - 1 };
        for (int p = 0; p < 3; p++) {
            mismatches +=
                shard_ring_node(ring, probes[p]) != naive_owner(&naive, probes[p], UINT32_MAX);
            mismatches_old += shard_ring_node_without_last(ring, probes[p]) !=
                              naive_owner(&naive, probes[p], nodes - 1);
        }
    }
    const uint64_t extremes[] = { 0, UINT64_MAX };
    for (int p = 0; p < 2; p++) {
        mismatches +=
            shard_ring_node(ring, extremes[p]) != naive_owner(&naive, extremes[p], UINT32_MAX);
        mismatches_old += shard_ring_node_without_last(ring, extremes[p]) !=
                          naive_owner(&naive, extremes[p], nodes - 1);
    }
    CHECK_INT_EQ(mismatches, 0);
    CHECK_INT_EQ(mismatches_old, 0);

    naive_free(&naive);
    shard_ring_free(ring);
    shard_hasher_cleanup(&hasher);
}

static double naive_cv(const double *x, size_t n)
{
    double mean = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i] / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    return sqrt(ss / (double)n) / mean;
}

/* Arc owned by point i among the points not of node skip: from the previous
 * such point (the largest one below it, else the largest overall). */
static double naive_arc(const naive_ring *r, size_t i, uint32_t skip)
{
    size_t prev = SIZE_MAX, largest = SIZE_MAX;
    for (size_t j = 0; j < r->count; j++) {
        if (r->node[j] == skip || j == i)
            continue;
        if (largest == SIZE_MAX || naive_before(r, largest, j))
            largest = j;
        if (naive_before(r, j, i) && (prev == SIZE_MAX || naive_before(r, prev, j)))
            prev = j;
    }
    if (prev == SIZE_MAX)
        prev = largest;
    if (prev == SIZE_MAX)
        return 1.0;
    return (double)(r->hash[i] - r->hash[prev]) / 18446744073709551616.0;
}

/* shard_run's one-ring shortcut against two separately built rings, scanned
 * linearly: the same moves, the same loads, and every moved key goes to
 * the new node. */
static void test_run_against_two_rings(shard_hash_kind kind, uint32_t nodes, uint32_t vnodes,
                                       uint64_t keys)
{
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, kind, 11), 0);
    naive_ring before = naive_new(&hasher, nodes, vnodes);
    naive_ring after = naive_new(&hasher, nodes + 1, vnodes);
    uint64_t *load = calloc(nodes, sizeof(*load));
    uint64_t moved = 0, moved_elsewhere = 0, moved_mod = 0;
    for (uint64_t i = 0; i < keys; i++) {
        uint64_t h = shard_key_hash(&hasher, i);
        uint32_t old_owner = naive_owner(&before, h, UINT32_MAX);
        uint32_t new_owner = naive_owner(&after, h, UINT32_MAX);
        load[old_owner]++;
        if (old_owner != new_owner) {
            moved++;
            moved_elsewhere += new_owner != nodes;
        }
        moved_mod += h % nodes != h % (nodes + 1);
    }
    CHECK_INT_EQ(moved_elsewhere, 0);

    shard_config config = { .keys = keys, .nodes = nodes, .vnodes = vnodes };
    shard_result r;
    CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &r), 0);
    CHECK_INT_EQ(r.moved_grow_keys, moved);
    CHECK_INT_EQ(r.moved_mod_keys, moved_mod);
    uint64_t lo = UINT64_MAX, hi = 0;
    double loads[64], shares[64] = { 0 };
    for (uint32_t n = 0; n < nodes; n++) {
        lo = load[n] < lo ? load[n] : lo;
        hi = load[n] > hi ? load[n] : hi;
        loads[n] = (double)load[n];
    }
    CHECK_INT_EQ(r.load_min, lo);
    CHECK_INT_EQ(r.load_max, hi);
    CHECK_NEAR(r.load_cv, naive_cv(loads, nodes), 1e-12);

    double new_arc = 0;
    for (size_t i = 0; i < after.count; i++) {
        if (after.node[i] == nodes)
            new_arc += naive_arc(&after, i, UINT32_MAX);
        else
            shares[after.node[i]] += naive_arc(&after, i, nodes);
    }
    CHECK_NEAR(r.new_node_arc, new_arc, 1e-12);
    CHECK_NEAR(r.share_cv, naive_cv(shares, nodes), 1e-9);

    free(load);
    naive_free(&before);
    naive_free(&after);
    shard_hasher_cleanup(&hasher);
}

/* The walk-through's defaults: 20000 keys, 8 -> 9 nodes, 120 points per node. */
static void test_defaults(shard_hash_kind kind)
{
    const uint64_t keys = 20000;
    const uint32_t nodes = 8, vnodes = 120;
    shard_result r = run_config(kind, 0, keys, nodes, vnodes);
    double moved_mod = (double)r.moved_mod_keys / keys;
    double moved_ring = (double)r.moved_grow_keys / keys;

    CHECK_NEAR(moved_mod, 8.0 / 9.0, 0.015);
    CHECK(moved_ring >= 0.09 && moved_ring <= 0.135);
    /* Keys are a binomial sample of the new node's arc: 5 sd of
     * sqrt(p(1-p)/keys). */
    double p = r.new_node_arc;
    CHECK_NEAR(moved_ring, p, 5 * sqrt(p * (1 - p) / keys));
    CHECK_INT_EQ(r.ring_points, (nodes + 1) * vnodes);

    CHECK_NEAR(r.load_mean, keys / 8.0, 1e-12);
    CHECK(r.load_min <= keys / nodes && r.load_max >= keys / nodes);
    /* Relative sd of a node's share ~ 1/sqrt(v); one ring of 8 nodes is a
     * small sample of it, hence the wide band. */
    CHECK(r.load_cv > 0.5 / sqrt(vnodes) && r.load_cv < 1.6 / sqrt(vnodes));
    CHECK(r.share_cv > 0.5 / sqrt(vnodes) && r.share_cv < 1.6 / sqrt(vnodes));
    /* mod placement is a multinomial: cv ~ sqrt((N-1)/keys) = 1.9%. */
    double cv_mod = sqrt((nodes - 1.0) / keys);
    CHECK(r.load_cv_mod > 0.5 * cv_mod && r.load_cv_mod < 1.6 * cv_mod);
    CHECK(shard_load_ratio(r.load_max_mod, r.load_min_mod) <
          shard_load_ratio(r.load_max, r.load_min));
}

/* Virtual nodes are load balancing: one point per node is far worse. */
static void test_vnodes_balance(void)
{
    for (uint64_t seed = 0; seed < 3; seed++) {
        shard_result one = run_config(SHARD_HASH_XXH64, seed, 20000, 8, 1);
        shard_result many = run_config(SHARD_HASH_XXH64, seed, 20000, 8, 120);
        double ratio_one = shard_load_ratio(one.load_max, one.load_min);
        double ratio_many = shard_load_ratio(many.load_max, many.load_min);
        CHECK(ratio_one > 2 * ratio_many);
        CHECK(one.load_cv > 2 * many.load_cv);
    }
    shard_result one = run_config(SHARD_HASH_MD5, 0, 20000, 8, 1);
    shard_result many = run_config(SHARD_HASH_MD5, 0, 20000, 8, 120);
    CHECK(shard_load_ratio(one.load_max, one.load_min) >
          2 * shard_load_ratio(many.load_max, many.load_min));
}

/* Over many seeds the figures' averages converge on the theory: E[cv^2] is
 * exactly load_cv_expected^2 (the loads' mean is exactly keys/N), the new
 * node's share averages 1/(N+1) with sd sqrt(p(1-p)/((N+1)v+1)) ~ 1 point. */
static void test_theory_over_seeds(void)
{
    const int seeds = 40;
    const uint64_t keys = 20000;
    const uint32_t nodes = 8, vnodes = 120;
    double cv2 = 0, share_cv2 = 0, moved = 0, moved2 = 0;
    for (int s = 0; s < seeds; s++) {
        shard_result r = run_config(SHARD_HASH_XXH64, 1000 + (uint64_t)s, keys, nodes, vnodes);
        double m = (double)r.moved_grow_keys / keys;
        cv2 += r.load_cv * r.load_cv / seeds;
        share_cv2 += r.share_cv * r.share_cv / seeds;
        moved += m / seeds;
        moved2 += m * m / seeds;
    }
    double expected = shard_load_cv_expected(keys, nodes, vnodes);
    /* Independently: Var p = p(1-p)/(Nv+1) with p = 1/8, plus keys noise. */
    double var_share = 7.0 / 8.0 / 8.0 / 961.0;
    double by_hand = sqrt(64 * var_share + 64 * (1.0 / 8 - 1.0 / 64 - var_share) / keys);
    CHECK_NEAR(expected, by_hand, 1e-12);
    CHECK_NEAR(sqrt(share_cv2), sqrt(7.0 / 961.0), 0.15 * sqrt(7.0 / 961.0));
    CHECK_NEAR(sqrt(cv2), expected, 0.15 * expected);

    double p = 1.0 / 9.0;
    double sd = sqrt(p * (1 - p) / (9 * vnodes + 1.0) + p * (1 - p) / keys);
    CHECK(sd > 0.009 && sd < 0.011); /* docs/science.md: "about one point" */
    CHECK_NEAR(moved, p, 4 * sd / sqrt(seeds));
    double spread = sqrt(moved2 - moved * moved);
    CHECK(spread > 0.6 * sd && spread < 1.5 * sd);
}

static void test_expected_cv_limits(void)
{
    /* Many nodes, endless keys: 1/sqrt(v). */
    CHECK_NEAR(shard_load_cv_expected(UINT64_C(1) << 62, 100000, 120), 1 / sqrt(120.0), 1e-5);
    /* Endless points: only the multinomial noise sqrt((N-1)/keys). */
    CHECK_NEAR(shard_load_cv_expected(20000, 8, 1000000000), sqrt(7.0 / 20000), 1e-6);
    CHECK_NEAR(shard_load_cv_expected(20000, 1, 120), 0.0, 1e-12);
}

static void test_one_node(void)
{
    const uint64_t keys = 20000;
    shard_result r = run_config(SHARD_HASH_XXH64, 0, keys, 1, 120);
    /* 1 -> 2 nodes: mod moves the odd hashes, half. */
    CHECK_NEAR((double)r.moved_mod_keys / keys, 0.5, 5 * sqrt(0.25 / keys));
    CHECK_INT_EQ(r.load_max, keys);
    CHECK_INT_EQ(r.load_min, keys);
    CHECK_NEAR(r.load_cv, 0.0, 0.0);
    CHECK_NEAR(r.share_cv, 0.0, 1e-12);
    CHECK_NEAR(shard_load_ratio(r.load_max, r.load_min), 1.0, 0.0);
    double p = r.new_node_arc;
    CHECK_NEAR((double)r.moved_grow_keys / keys, p, 5 * sqrt(p * (1 - p) / keys) + 1e-9);

    /* A one-point old ring owns the whole circle. */
    r = run_config(SHARD_HASH_MD5, 0, 1000, 1, 1);
    CHECK_NEAR(r.share_cv, 0.0, 1e-12);
    CHECK_INT_EQ(r.ring_points, 2);

    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_XXH64, 0), 0);
    shard_ring *ring = shard_ring_new(&hasher, 1, 3);
    CHECK(ring != NULL);
    if (ring) {
        for (size_t i = 0; i < ring->count; i++) {
            CHECK_INT_EQ(ring->points[i].node, 0);
            CHECK(ring->points[i].node_without_last == UINT32_MAX);
        }
    }
    shard_ring_free(ring);
    shard_ring_free(NULL);
    CHECK(shard_ring_new(&hasher, 0, 3) == NULL);
    CHECK(shard_ring_new(&hasher, 100001, 10000) == NULL); /* over SHARD_RING_MAX_POINTS */
    shard_hasher_cleanup(&hasher);
}

static void test_empty_node(void)
{
    CHECK(isinf(shard_load_ratio(5, 0)));
    CHECK_NEAR(shard_load_ratio(6, 4), 1.5, 0.0);
    /* 3 keys on 8 nodes leave at least 5 nodes empty. */
    shard_result r = run_config(SHARD_HASH_XXH64, 0, 3, 8, 120);
    CHECK_INT_EQ(r.load_min, 0);
    CHECK_INT_EQ(r.load_min_mod, 0);
    CHECK(isinf(shard_load_ratio(r.load_max, r.load_min)));
}

static void test_determinism(void)
{
    shard_result a = run_config(SHARD_HASH_XXH64, 5, 30000, 13, 50);
    shard_result b = run_config(SHARD_HASH_XXH64, 5, 30000, 13, 50);
    CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    shard_result c = run_config(SHARD_HASH_MD5, 5, 30000, 13, 50);
    shard_result d = run_config(SHARD_HASH_MD5, 5, 30000, 13, 50);
    CHECK(memcmp(&c, &d, sizeof(c)) == 0);
    /* Another seed is another key set and another ring. */
    shard_result e = run_config(SHARD_HASH_XXH64, 6, 30000, 13, 50);
    CHECK(e.moved_grow_keys != a.moved_grow_keys || e.load_max != a.load_max);
    CHECK(e.new_node_arc != a.new_node_arc);
}

static int stop_after(void *arg)
{
    int *calls = arg;
    return ++*calls >= 2;
}

static void test_stop(void)
{
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_XXH64, 0), 0);
    shard_config config = { .keys = 1000000, .nodes = 8, .vnodes = 10 };
    shard_result r;
    int calls = 0;
    CHECK_INT_EQ(shard_run(&hasher, &config, stop_after, &calls, &r), 1);
    CHECK_INT_EQ(calls, 2); /* asked before building the ring, and at key 0 */
    calls = -1000;
    CHECK_INT_EQ(shard_run(&hasher, &config, stop_after, &calls, &r), 0);
    CHECK_INT_EQ(calls, -1000 + 1 + 16); /* and at keys 0, 65536, ..., 983040 */
    shard_hasher_cleanup(&hasher);
}

/* ---- the schemes beyond the ring ----------------------------------------- */

static void test_scheme_names(void)
{
    const char *names[] = { "mod", "ring", "jump", "rendezvous", "maglev", "ketama", "bounded" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        shard_scheme scheme = SHARD_SCHEME_RING;
        CHECK_INT_EQ(shard_scheme_parse(names[i], &scheme), 0);
        CHECK_STR_EQ(shard_scheme_name(scheme), names[i]);
    }
    shard_scheme scheme = SHARD_SCHEME_MOD;
    CHECK_INT_EQ(shard_scheme_parse("ring", &scheme), 0);
    CHECK_INT_EQ(scheme, SHARD_SCHEME_RING); /* 0: a zeroed config is today's ring */
    CHECK_INT_EQ(SHARD_SCHEME_RING, 0);
    CHECK_INT_EQ(shard_scheme_parse("Ring", &scheme), -1);
    CHECK_INT_EQ(shard_scheme_parse("consistent", &scheme), -1);
}

/* Linear scan restricted to nodes 0 .. live-1. */
static uint32_t naive_owner_below(const naive_ring *r, uint64_t h, uint32_t live)
{
    size_t best = SIZE_MAX, first = SIZE_MAX;
    for (size_t i = 0; i < r->count; i++) {
        if (r->node[i] >= live)
            continue;
        if (first == SIZE_MAX || naive_before(r, i, first))
            first = i;
        if (r->hash[i] >= h && (best == SIZE_MAX || naive_before(r, i, best)))
            best = i;
    }
    if (first == SIZE_MAX)
        return UINT32_MAX;
    return r->node[best != SIZE_MAX ? best : first];
}

static void test_ring_owners(void)
{
    const uint32_t nodes = 6, vnodes = 5;
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_XXH64, 9), 0);
    shard_ring *ring = shard_ring_new(&hasher, nodes, vnodes);
    naive_ring naive = naive_new(&hasher, nodes, vnodes);
    uint32_t *owners = calloc(nodes * vnodes, sizeof(*owners));
    int mismatches = 0;
    for (uint32_t live = 0; ring && owners && live <= nodes; live++) {
        shard_ring_owners(ring, live, owners);
        for (size_t i = 0; i < ring->count; i++)
            mismatches += owners[i] != naive_owner_below(&naive, ring->points[i].hash, live);
        for (uint64_t k = 0; k < 2000; k++) {
            uint64_t h = shard_key_hash(&hasher, k);
            mismatches += owners[shard_ring_find(ring, h)] != naive_owner_below(&naive, h, live);
        }
    }
    CHECK_INT_EQ(mismatches, 0);
    free(owners);
    naive_free(&naive);
    shard_ring_free(ring);
    shard_hasher_cleanup(&hasher);
}

/* ---- jump ------------------------------------------------------------------ */

/* The paper's loop in exact integer arithmetic: the next jump is
 * floor((b+1) 2^31 / ((key >> 33) + 1)), which the published code computes
 * in double. Counts the loop's steps. */
static uint32_t jump_exact(uint64_t key, uint32_t buckets, uint64_t *steps)
{
    uint64_t b = 0, j = 0;
    int started = 0;
    while (j < buckets) {
        b = j;
        started = 1;
        (*steps)++;
        key = key * UINT64_C(2862933555777941757) + 1;
        j = ((b + 1) << 31) / ((key >> 33) + 1);
    }
    return started ? (uint32_t)b : UINT32_MAX;
}

static void test_jump_vectors(void)
{
    /* Lamping & Veach's published C++ as other implementations test it:
     * dgryski/go-jump (jump_test.go, "generated from the reference C++
     * code"): bucket for 1 .. 20 buckets. */
    static const struct {
        uint64_t key;
        int32_t bucket[20];
        int count;
    } go_jump[] = {
        { 0, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 20 },
        { 1, { 0, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 17, 17 }, 19 },
        { 0xdeadbeef, { 0, 1, 2, 3, 3, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 16, 16, 16 }, 19 },
        { 0x0ddc0ffeebadf00d, { 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 15, 15, 15, 15 }, 19 },
    };
    for (size_t t = 0; t < sizeof(go_jump) / sizeof(go_jump[0]); t++)
        for (int i = 0; i < go_jump[t].count; i++)
            CHECK_INT_EQ(shard_jump_bucket(go_jump[t].key, (uint32_t)i + 1), go_jump[t].bucket[i]);
    /* ClickHouse's jumpConsistentHash (tests/queries/0_stateless/
     * 00580_consistent_hashing_functions): 0 43 520 0 361 237. */
    CHECK_INT_EQ(shard_jump_bucket(1, 1), 0);
    CHECK_INT_EQ(shard_jump_bucket(42, 57), 43);
    CHECK_INT_EQ(shard_jump_bucket(256, 1024), 520);
    CHECK_INT_EQ(shard_jump_bucket(3735883980u, 1), 0);
    CHECK_INT_EQ(shard_jump_bucket(3735883980u, 666), 361);
    CHECK_INT_EQ(shard_jump_bucket(UINT64_C(16045690984833335023), 255), 237);
}

static void test_jump_exact_arithmetic(void)
{
    /* The double rounding of the published code could only differ from the
     * exact quotient next to an integer; over these keys it never does. */
    const uint32_t sizes[] = { 1, 2, 3, 7, 8, 9, 100, 1000, 65536, 1u << 20, 2147483647u };
    int mismatches = 0;
    for (uint64_t k = 0; k < 20000; k++) {
        uint64_t key = XXH64(&k, sizeof(k), 77);
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            uint64_t steps = 0;
            mismatches += shard_jump_bucket(key, sizes[s]) != jump_exact(key, sizes[s], &steps);
        }
    }
    CHECK_INT_EQ(mismatches, 0);
}

/* Perfect balance in expectation: bucket counts of many keys pass a
 * chi-square test against the uniform distribution; minimal movement: going
 * from n to n+1 buckets moves keys only into bucket n, about 1/(n+1) of
 * them. */
static void test_jump_properties(void)
{
    enum {
        KEYS = 50000,
        MAX_N = 40
    };
    static uint32_t bucket[KEYS];
    int moved_elsewhere = 0;
    for (uint64_t k = 0; k < KEYS; k++)
        bucket[k] = shard_jump_bucket(XXH64(&k, sizeof(k), 5), 1);
    for (uint32_t n = 1; n < MAX_N; n++) {
        uint64_t moved = 0;
        for (uint64_t k = 0; k < KEYS; k++) {
            uint32_t next = shard_jump_bucket(XXH64(&k, sizeof(k), 5), n + 1);
            if (next != bucket[k]) {
                moved++;
                moved_elsewhere += next != n;
            }
            bucket[k] = next;
        }
        double p = 1.0 / (n + 1);
        CHECK_NEAR((double)moved / KEYS, p, 5 * sqrt(p * (1 - p) / KEYS));
    }
    CHECK_INT_EQ(moved_elsewhere, 0);

    const uint32_t sizes[] = { 7, 100 };
    for (size_t s = 0; s < 2; s++) {
        uint64_t counts[100] = { 0 };
        for (uint64_t k = 0; k < KEYS; k++)
            counts[shard_jump_bucket(XXH64(&k, sizeof(k), 6), sizes[s])]++;
        double expected = (double)KEYS / sizes[s], chi2 = 0, df = sizes[s] - 1.0;
        for (uint32_t b = 0; b < sizes[s]; b++)
            chi2 += (counts[b] - expected) * (counts[b] - expected) / expected;
        CHECK(chi2 < df + 5 * sqrt(2 * df)); /* mean df, sd sqrt(2 df) */
        CHECK(chi2 > 0);
    }
}

/* ---- rendezvous -------------------------------------------------------- */

static void test_rendezvous(void)
{
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_XXH64, 3), 0);
    enum {
        NODES = 12
    };
    uint64_t node_hashes[NODES];
    shard_rendezvous_hashes(&hasher, NODES, node_hashes);
    char name[32];
    for (uint32_t n = 0; n < NODES; n++) {
        int len = snprintf(name, sizeof(name), "node:%u", n);
        CHECK(node_hashes[n] == shard_hash_bytes(&hasher, name, (size_t)len));
    }
    /* The mixer is MurmurHash3's fmix64: 0 stays 0, and it is a bijection
     * whose avalanche flips about half the bits for a one-bit change. */
    CHECK(shard_rendezvous_score(5, 5) == 0);
    double flipped = 0;
    for (uint64_t k = 1; k <= 1000; k++)
        flipped +=
            __builtin_popcountll(shard_rendezvous_score(k, 0) ^ shard_rendezvous_score(k ^ 1, 0));
    CHECK_NEAR(flipped / 1000, 32, 1.0);

    /* The argmax against a scan that keeps every score. */
    int mismatches = 0, moved_elsewhere = 0;
    uint64_t counts[NODES] = { 0 };
    for (uint64_t k = 0; k < 30000; k++) {
        uint64_t h = shard_key_hash(&hasher, k);
        uint64_t scores[NODES];
        for (uint32_t n = 0; n < NODES; n++)
            scores[n] = shard_rendezvous_score(h, node_hashes[n]);
        for (uint32_t live = 1; live <= NODES; live++) {
            uint32_t best = 0;
            for (uint32_t n = 1; n < live; n++)
                best = scores[n] > scores[best] ? n : best;
            uint32_t got = shard_rendezvous_node(node_hashes, live, h);
            mismatches += got != best;
            /* Minimal movement: adding node live-1 only takes keys to it. */
            if (live > 1) {
                uint32_t before = shard_rendezvous_node(node_hashes, live - 1, h);
                moved_elsewhere += got != before && got != live - 1;
            }
        }
        counts[shard_rendezvous_node(node_hashes, NODES, h)]++;
    }
    CHECK_INT_EQ(mismatches, 0);
    CHECK_INT_EQ(moved_elsewhere, 0);
    double expected = 30000.0 / NODES, chi2 = 0, df = NODES - 1;
    for (uint32_t n = 0; n < NODES; n++)
        chi2 += (counts[n] - expected) * (counts[n] - expected) / expected;
    CHECK(chi2 < df + 5 * sqrt(2 * df));

    /* Ties go to the lower node: two nodes with the same hash. */
    uint64_t twins[3] = { 42, 42, 42 };
    CHECK_INT_EQ(shard_rendezvous_node(twins, 3, 12345), 0);
    shard_hasher_cleanup(&hasher);
}

/* ---- Maglev --------------------------------------------------------------- */

/* The paper's Pseudocode 1 literally: explicit permutation rows and next[]. */
static uint32_t *maglev_naive(shard_hasher *hasher, uint32_t nodes, uint32_t size)
{
    uint32_t *permutation = malloc(sizeof(uint32_t) * nodes * size);
    uint64_t *next = calloc(nodes, sizeof(uint64_t));
    uint32_t *entry = malloc(sizeof(uint32_t) * size);
    char name[64];
    for (uint32_t i = 0; i < nodes; i++) {
        int len = snprintf(name, sizeof(name), "node:%u", i);
        uint64_t offset = shard_hash_bytes(hasher, name, (size_t)len) % size;
        len = snprintf(name, sizeof(name), "node:%u#skip", i);
        uint64_t skip = shard_hash_bytes(hasher, name, (size_t)len) % (size - 1) + 1;
        for (uint64_t j = 0; j < size; j++)
            permutation[(uint64_t)i * size + j] = (uint32_t)((offset + j * skip) % size);
    }
    for (uint32_t c = 0; c < size; c++)
        entry[c] = UINT32_MAX;
    uint64_t n = 0;
    for (;;) {
        for (uint32_t i = 0; i < nodes; i++) {
            uint32_t c = permutation[(uint64_t)i * size + next[i]];
            while (entry[c] != UINT32_MAX) {
                next[i]++;
                c = permutation[(uint64_t)i * size + next[i]];
            }
            entry[c] = i;
            next[i]++;
            if (++n == size) {
                free(permutation);
                free(next);
                return entry;
            }
        }
    }
}

static void test_maglev_table(void)
{
    shard_hasher xxh, md5;
    CHECK_INT_EQ(shard_hasher_init(&xxh, SHARD_HASH_XXH64, 0), 0);
    CHECK_INT_EQ(shard_hasher_init(&md5, SHARD_HASH_MD5, 4), 0);
    const struct {
        uint32_t nodes, size;
    } cases[] = {
        { 1, 2 }, { 3, 2 }, { 5, 13 }, { 13, 7 }, { 100, 1009 }, { 8, 65537 }, { 9, 65537 },
    };
    for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
        shard_hasher *hasher = t % 2 ? &md5 : &xxh;
        uint32_t nodes = cases[t].nodes, size = cases[t].size;
        shard_maglev table;
        CHECK_INT_EQ(shard_maglev_build(&table, hasher, nodes, size, NULL, NULL), 0);
        uint32_t *naive = maglev_naive(hasher, nodes, size);
        uint64_t *counts = calloc(nodes, sizeof(*counts));
        int mismatches = 0;
        for (uint32_t c = 0; c < size; c++) {
            mismatches += table.entry[c] != naive[c];
            counts[table.entry[c] < nodes ? table.entry[c] : 0]++;
        }
        CHECK_INT_EQ(mismatches, 0);
        /* Turns in node order: node n holds floor(M/N) + (n < M mod N). */
        for (uint32_t n = 0; n < nodes; n++)
            CHECK_INT_EQ(counts[n], size / nodes + (n < size % nodes));
        CHECK(shard_maglev_node(&table, (uint64_t)size + 1) == table.entry[1]);
        free(counts);
        free(naive);
        shard_maglev_cleanup(&table);
    }
    shard_maglev table;
    CHECK_INT_EQ(shard_maglev_build(&table, &xxh, 8, 65536, NULL, NULL), -1);
    CHECK(table.entry == NULL);
    CHECK_INT_EQ(shard_maglev_build(&table, &xxh, 0, 13, NULL, NULL), -1);
    CHECK_INT_EQ(shard_maglev_build(&table, &xxh, 8, 1, NULL, NULL), -1);
    int calls = 0;
    CHECK_INT_EQ(shard_maglev_build(&table, &xxh, 8, 655373, stop_after, &calls), 1);
    CHECK_INT_EQ(calls, 2);
    shard_maglev_cleanup(&table); /* harmless after a failed build */

    const uint32_t primes[] = { 2, 3, 13, 65537, 655373, 33554393 };
    const uint32_t composites[] = { 0, 1, 4, 65535, 65536, 655371, 33554432 };
    for (size_t i = 0; i < 6; i++)
        CHECK(shard_is_prime(primes[i]));
    for (size_t i = 0; i < 7; i++)
        CHECK(!shard_is_prime(composites[i]));
    shard_hasher_cleanup(&xxh);
    shard_hasher_cleanup(&md5);
}

/* Removing node N-1 reassigns all of its entries and, with M > 100 N as the
 * paper advises, disturbs fewer of the other nodes' entries than that: less
 * than double the minimal disruption. With M/N small the excess outgrows
 * the minimum (measured, and shown by the plugin at 1000 nodes). */
static void test_maglev_disruption(void)
{
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_XXH64, 0), 0);
    const uint32_t size = 65537, sizes[] = { 2, 5, 8, 9, 20, 57, 100 };
    for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        uint32_t nodes = sizes[t];
        shard_maglev before, after;
        CHECK_INT_EQ(shard_maglev_build(&before, &hasher, nodes, size, NULL, NULL), 0);
        CHECK_INT_EQ(shard_maglev_build(&after, &hasher, nodes - 1, size, NULL, NULL), 0);
        uint64_t removed = 0, kept_removed = 0, excess = 0;
        for (uint32_t c = 0; c < size; c++) {
            if (before.entry[c] == nodes - 1) {
                removed++;
                kept_removed += after.entry[c] == nodes - 1;
            } else {
                excess += after.entry[c] != before.entry[c];
            }
        }
        CHECK_INT_EQ(kept_removed, 0);
        CHECK_INT_EQ(removed, size / nodes + (nodes - 1 < size % nodes));
        CHECK(excess < removed);
        if (nodes == 2)
            CHECK_INT_EQ(excess, 0); /* the survivor takes everything */
        shard_maglev_cleanup(&before);
        shard_maglev_cleanup(&after);
    }
    shard_hasher_cleanup(&hasher);
}

/* ---- ketama ---------------------------------------------------------------- */

/* libketama's ketama.servers (RJ/ketama): address and "memory" weight. */
static const shard_ketama_server ketama_servers[] = {
    { "10.0.1.1:11211", 600 }, { "10.0.1.2:11211", 300 },  { "10.0.1.3:11211", 200 },
    { "10.0.1.4:11211", 350 }, { "10.0.1.5:11211", 1000 }, { "10.0.1.6:11211", 800 },
    { "10.0.1.7:11211", 950 }, { "10.0.1.8:11211", 100 },
};

/* libketama's ketama_test output for keys "0" .. "<count-1>": an empty first
 * line (ketama_error()), then "<key hash> <point> <server>" per key. Returns
 * the MD5 of it in hex. */
static void ketama_test_md5(shard_hasher *md5, const shard_ring *ring, int count, char hex[33])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    CHECK(ctx && EVP_DigestInit_ex(ctx, EVP_md5(), NULL));
    EVP_DigestUpdate(ctx, "\n", 1);
    for (int i = 0; i < count; i++) {
        char key[16], line[64];
        int key_len = snprintf(key, sizeof(key), "%d", i);
        uint32_t h = shard_ketama_hash(md5, key, (size_t)key_len);
        const shard_ring_point *p = shard_ketama_find(ring, h);
        int line_len = snprintf(line, sizeof(line), "%u %u %s\n", (unsigned)h,
                                (unsigned)(p->hash >> 32), ketama_servers[p->node].name);
        EVP_DigestUpdate(ctx, line, (size_t)line_len);
    }
    EVP_DigestFinal_ex(ctx, digest, &len);
    EVP_MD_CTX_free(ctx);
    for (unsigned i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

static void test_ketama_vectors(void)
{
    shard_hasher md5;
    CHECK_INT_EQ(shard_hasher_init(&md5, SHARD_HASH_MD5, 0), 0);
    const uint32_t count = sizeof(ketama_servers) / sizeof(ketama_servers[0]);

    /* Digests per server: floor(w/4300 * 40 * 8) by hand (none of these is
     * near an integer, where float rounding could differ). */
    uint64_t points = 0;
    for (uint32_t s = 0; s < count; s++) {
        uint32_t digests = shard_ketama_digests(ketama_servers[s].weight, 4300, count);
        CHECK_INT_EQ(digests, ketama_servers[s].weight * 320 / 4300);
        points += 4 * digests;
    }
    CHECK_INT_EQ(points, 4 * (44 + 22 + 14 + 26 + 74 + 59 + 70 + 7));
    CHECK_INT_EQ(shard_ketama_digests(1, 8, 8), 40); /* equal weights: 160 points */
    CHECK_INT_EQ(shard_ketama_digests(1, 1000, 1000), 40);

    shard_ring *ring = shard_ketama_new(&md5, ketama_servers, count);
    CHECK(ring != NULL);
    if (!ring)
        return;
    CHECK_INT_EQ(ring->count, points);
    CHECK_INT_EQ(ring->vnodes, 0); /* weights differ */

    /* libketama's own output for keys "0" .. as published in MediaWiki's
     * HashRingTest (generated from RJ/ketama's ketama_test.c). */
    static const struct {
        int key;
        uint32_t hash, point;
        const char *server;
    } lines[] = {
        { 0, 2216742351u, 2217271743u, "10.0.1.1:11211" },
        { 1, 943901380u, 949045552u, "10.0.1.5:11211" },
        { 2, 2373066440u, 2374693370u, "10.0.1.6:11211" },
        { 3, 2127088620u, 2130338203u, "10.0.1.6:11211" },
        { 4, 2046197672u, 2051996197u, "10.0.1.7:11211" },
        { 5, 2134629092u, 2135172435u, "10.0.1.1:11211" },
        { 6, 470382870u, 472541453u, "10.0.1.7:11211" },
        { 7, 1608782991u, 1609789509u, "10.0.1.3:11211" },
        { 8, 2516119753u, 2520092206u, "10.0.1.2:11211" },
        { 9, 3465331781u, 3466294492u, "10.0.1.4:11211" },
        { 10, 1749342675u, 1753760600u, "10.0.1.5:11211" },
        { 15, 2132603803u, 2134614475u, "10.0.1.8:11211" },
        { 41, 1604785716u, 1609789509u, "10.0.1.3:11211" },
        { 88, 2846111786u, 2846115813u, "10.0.1.5:11211" },
        { 99, 2977587884u, 2978402952u, "10.0.1.1:11211" },
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        char key[16];
        int len = snprintf(key, sizeof(key), "%d", lines[i].key);
        uint32_t h = shard_ketama_hash(&md5, key, (size_t)len);
        CHECK_INT_EQ(h, lines[i].hash);
        const shard_ring_point *p = shard_ketama_find(ring, h);
        CHECK_INT_EQ(p->hash >> 32, lines[i].point);
        CHECK_STR_EQ(ketama_servers[p->node].name, lines[i].server);
    }
    /* The whole output's MD5: 1000 keys (MediaWiki's check) and libketama's
     * own test.sh over 1000000 keys. */
    char hex[33];
    ketama_test_md5(&md5, ring, 1000, hex);
    CHECK_STR_EQ(hex, "d1a4912a80e4654ec2e4e462c8b911c6");
    ketama_test_md5(&md5, ring, 1000000, hex);
    CHECK_STR_EQ(hex, "5672b131391f5aa2b280936aec1eea74");

    /* The wrap: past the last point back to the first; 0 to the first. */
    CHECK(shard_ketama_find(ring, UINT32_MAX) == &ring->points[0] ||
          (ring->points[ring->count - 1].hash >> 32) == UINT32_MAX);
    CHECK(shard_ketama_find(ring, 0) == &ring->points[0]);
    shard_ring_free(ring);

    shard_hasher xxh;
    CHECK_INT_EQ(shard_hasher_init(&xxh, SHARD_HASH_XXH64, 0), 0);
    CHECK(shard_ketama_new(&xxh, ketama_servers, count) == NULL); /* md5 only */
    shard_hasher_cleanup(&xxh);
    shard_hasher_cleanup(&md5);
}

/* ---- bounded loads ------------------------------------------------------- */

static void test_bounded_capacity(void)
{
    CHECK_INT_EQ(shard_bounded_capacity(20000, 8, 0.25), 3125); /* exactly 1.25 * 2500 */
    CHECK_INT_EQ(shard_bounded_capacity(20000, 9, 0.25), 2778); /* ceil(2777.8) */
    CHECK_INT_EQ(shard_bounded_capacity(10, 3, 0.0), 4);        /* ceil(3.33) */
    CHECK_INT_EQ(shard_bounded_capacity(9, 3, 0.0), 3);
    CHECK_INT_EQ(shard_bounded_capacity(1, 8, 0.25), 1); /* never below ceil(keys/N) */
    CHECK_INT_EQ(shard_bounded_capacity(100, 1, 1e6), 100000100);
}

/* Keys placed one by one by a linear scan over the unsorted points: the
 * live point at or after the hash, then its successors, until a node with
 * room. */
static uint32_t naive_bounded(const naive_ring *r, uint32_t live, uint64_t *load, uint64_t capacity,
                              uint64_t h)
{
    size_t at = SIZE_MAX, first = SIZE_MAX;
    for (size_t i = 0; i < r->count; i++) {
        if (r->node[i] >= live)
            continue;
        if (first == SIZE_MAX || naive_before(r, i, first))
            first = i;
        if (r->hash[i] >= h && (at == SIZE_MAX || naive_before(r, i, at)))
            at = i;
    }
    if (at == SIZE_MAX)
        at = first;
    for (size_t steps = 0; steps < r->count; steps++) {
        if (load[r->node[at]] < capacity) {
            load[r->node[at]]++;
            return r->node[at];
        }
        size_t next = SIZE_MAX;
        for (size_t i = 0; i < r->count; i++)
            if (r->node[i] < live && naive_before(r, at, i) &&
                (next == SIZE_MAX || naive_before(r, i, next)))
                next = i;
        at = next != SIZE_MAX ? next : first;
    }
    return UINT32_MAX;
}

static void test_bounded_against_naive(void)
{
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_XXH64, 2), 0);
    const uint32_t nodes = 6, vnodes = 3;
    const uint64_t keys = 3000;
    shard_ring *ring = shard_ring_new(&hasher, nodes, vnodes);
    naive_ring naive = naive_new(&hasher, nodes, vnodes);
    const double epsilons[] = { 0.0, 0.1, 0.5 };
    for (size_t e = 0; ring && e < 3; e++) {
        uint64_t capacity = shard_bounded_capacity(keys, nodes, epsilons[e]);
        shard_bounded bounded;
        CHECK_INT_EQ(shard_bounded_init(&bounded, ring, nodes, capacity), 0);
        uint64_t load[6] = { 0 }, probes = 0;
        int mismatches = 0;
        for (uint64_t k = 0; k < keys; k++) {
            uint64_t h = shard_key_hash(&hasher, k);
            mismatches += shard_bounded_place(&bounded, h, &probes) !=
                          naive_bounded(&naive, nodes, load, capacity, h);
        }
        CHECK_INT_EQ(mismatches, 0);
        uint64_t total = 0;
        for (uint32_t n = 0; n < nodes; n++) {
            CHECK(bounded.load[n] <= capacity);
            CHECK_INT_EQ(bounded.load[n], load[n]);
            total += bounded.load[n];
        }
        CHECK_INT_EQ(total, keys);
        CHECK(probes >= keys);
        /* Full: nothing fits any more. */
        if (epsilons[e] == 0.0) {
            for (uint64_t k = keys; k < capacity * nodes; k++)
                shard_bounded_place(&bounded, shard_key_hash(&hasher, k), &probes);
            CHECK_INT_EQ(shard_bounded_place(&bounded, 1, &probes), UINT32_MAX);
        }
        shard_bounded_cleanup(&bounded);
    }
    shard_bounded_cleanup(&(shard_bounded){ 0 }); /* harmless when empty */
    naive_free(&naive);
    shard_ring_free(ring);
    shard_hasher_cleanup(&hasher);
}

/* ---- shard_run for every scheme against independent placements ---------- */

typedef struct naive_scheme {
    shard_scheme scheme;
    uint32_t nodes;           /* N */
    naive_ring ring;          /* ring, bounded: N+1 nodes */
    uint64_t capacity[3];     /* bounded, per size */
    uint64_t *load[3];        /* bounded, per size */
    uint64_t node_hashes[64]; /* rendezvous */
    uint32_t *table[3];       /* maglev */
    shard_ring *continuum[3]; /* ketama (the model's, checked by the vectors) */
    uint32_t table_size;
} naive_scheme;

static uint32_t naive_place(naive_scheme *s, int k, uint64_t h, uint64_t *steps)
{
    uint32_t n = s->nodes - 1 + (uint32_t)k;
    switch (s->scheme) {
    case SHARD_SCHEME_RING: return naive_owner_below(&s->ring, h, n);
    case SHARD_SCHEME_MOD: return (uint32_t)(h % n);
    case SHARD_SCHEME_JUMP: return jump_exact(h, n, steps);
    case SHARD_SCHEME_RENDEZVOUS: {
        uint32_t best = 0;
        for (uint32_t i = 1; i < n; i++)
            if (shard_rendezvous_score(h, s->node_hashes[i]) >
                shard_rendezvous_score(h, s->node_hashes[best]))
                best = i;
        return best;
    }
    case SHARD_SCHEME_MAGLEV: return s->table[k][h % s->table_size];
    case SHARD_SCHEME_KETAMA: {
        const shard_ring *ring = s->continuum[k];
        uint64_t point = (h & 0xffffffffu) << 32;
        size_t best = 0;
        for (size_t i = 0; i < ring->count; i++)
            if (ring->points[i].hash >= point) {
                best = i;
                break;
            }
        return ring->points[best].node;
    }
    case SHARD_SCHEME_BOUNDED: return naive_bounded(&s->ring, n, s->load[k], s->capacity[k], h);
    }
    return UINT32_MAX;
}

static void test_run_against_naive(shard_scheme scheme, shard_hash_kind kind, uint32_t nodes,
                                   uint64_t keys)
{
    const uint32_t vnodes = 4, table_size = 251;
    const double epsilon = 0.1;
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, kind, 13), 0);
    naive_scheme s;
    memset(&s, 0, sizeof(s));
    s.scheme = scheme;
    s.nodes = nodes;
    s.table_size = table_size;
    s.ring = naive_new(&hasher, nodes + 1, vnodes);
    for (uint32_t n = 0; n <= nodes; n++) {
        char name[32];
        int len = snprintf(name, sizeof(name), "node:%u", n);
        s.node_hashes[n] = shard_hash_bytes(&hasher, name, (size_t)len);
    }
    for (int k = nodes > 1 ? 0 : 1; k < 3; k++) {
        uint32_t n = nodes - 1 + (uint32_t)k;
        s.capacity[k] = shard_bounded_capacity(keys, n, epsilon);
        s.load[k] = calloc(n, sizeof(uint64_t));
        if (scheme == SHARD_SCHEME_MAGLEV)
            s.table[k] = maglev_naive(&hasher, n, table_size);
        if (scheme == SHARD_SCHEME_KETAMA) {
            shard_ketama_server servers[64];
            char names[64][16];
            for (uint32_t i = 0; i < n; i++) {
                snprintf(names[i], sizeof(names[i]), "node:%u", i);
                servers[i].name = names[i];
                servers[i].weight = 1;
            }
            s.continuum[k] = shard_ketama_new(&hasher, servers, n);
        }
    }

    uint64_t moved_grow = 0, grow_excess = 0, moved_shrink = 0, shrink_excess = 0, steps = 0,
             moved_mod = 0, load[64] = { 0 };
    for (uint64_t i = 0; i < keys; i++) {
        uint64_t h = shard_key_hash(&hasher, i), ignored = 0;
        uint32_t base = naive_place(&s, 1, h, &steps);
        uint32_t grown = naive_place(&s, 2, h, &ignored);
        load[base]++;
        if (base != grown) {
            moved_grow++;
            grow_excess += grown != nodes;
        }
        if (nodes > 1) {
            uint32_t shrunk = naive_place(&s, 0, h, &ignored);
            if (base != shrunk) {
                moved_shrink++;
                shrink_excess += base != nodes - 1;
            }
        }
        moved_mod += h % nodes != h % (nodes + 1);
    }

    shard_config config = { keys, nodes, vnodes, scheme, table_size, epsilon, 0 };
    shard_result r;
    CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &r), 0);
    CHECK_INT_EQ(r.moved_mod_keys, moved_mod);
    CHECK_INT_EQ(r.moved_grow_keys, moved_grow);
    CHECK_INT_EQ(r.moved_grow_excess_keys, grow_excess);
    CHECK_INT_EQ(r.has_shrink, nodes > 1);
    CHECK_INT_EQ(r.moved_shrink_keys, moved_shrink);
    CHECK_INT_EQ(r.moved_shrink_excess_keys, shrink_excess);
    uint64_t lo = UINT64_MAX, hi = 0;
    double loads[64];
    for (uint32_t n = 0; n < nodes; n++) {
        lo = load[n] < lo ? load[n] : lo;
        hi = load[n] > hi ? load[n] : hi;
        loads[n] = (double)load[n];
    }
    CHECK_INT_EQ(r.load_min, lo);
    CHECK_INT_EQ(r.load_max, hi);
    CHECK_NEAR(r.load_cv, naive_cv(loads, nodes), 1e-12);
    if (scheme == SHARD_SCHEME_JUMP)
        CHECK_INT_EQ(r.probes, steps);
    if (scheme == SHARD_SCHEME_MOD || scheme == SHARD_SCHEME_MAGLEV)
        CHECK_INT_EQ(r.probes, keys);
    if (scheme == SHARD_SCHEME_RENDEZVOUS)
        CHECK_INT_EQ(r.probes, keys * nodes);
    if (scheme == SHARD_SCHEME_BOUNDED)
        CHECK(r.load_max <= r.capacity && r.capacity == s.capacity[1]);
    else
        CHECK_INT_EQ(r.capacity, 0);
    CHECK(isnan(r.lookup_ns));

    for (int k = 0; k < 3; k++) {
        free(s.load[k]);
        free(s.table[k]);
        shard_ring_free(s.continuum[k]);
    }
    naive_free(&s.ring);
    shard_hasher_cleanup(&hasher);
}

/* The closed forms the schemes' figures lean on. */
static void test_scheme_figures(void)
{
    const uint64_t keys = 20000;
    shard_hasher xxh, md5;
    CHECK_INT_EQ(shard_hasher_init(&xxh, SHARD_HASH_XXH64, 0), 0);
    CHECK_INT_EQ(shard_hasher_init(&md5, SHARD_HASH_MD5, 0), 0);

    /* Fixed shares: 1/N each is the multinomial sqrt((N-1)/keys); a single
     * node is exact; two nodes at 0.6/0.4 by hand. */
    CHECK_NEAR(shard_load_cv_fixed_shares(keys, 8, NULL), sqrt(7.0 / keys), 1e-15);
    CHECK_NEAR(shard_load_cv_fixed_shares(keys, 1, NULL), 0.0, 0.0);
    double two[2] = { 0.6, 0.4 };
    CHECK_NEAR(shard_load_cv_fixed_shares(100, 2, two), sqrt(2 * (2 * 0.24 / 100 + 0.01 + 0.01)),
               1e-15);

    for (int s = 0; s <= SHARD_SCHEME_BOUNDED; s++) {
        shard_config config = { keys, 8, 120, (shard_scheme)s, 65537, 0.25, 0 };
        shard_result r;
        CHECK_INT_EQ(shard_run(s == SHARD_SCHEME_KETAMA ? &md5 : &xxh, &config, NULL, NULL, &r), 0);
        double grow = (double)r.moved_grow_keys / keys, shrink = (double)r.moved_shrink_keys / keys;
        double excess = (double)(r.moved_grow_excess_keys + r.moved_shrink_excess_keys) / keys;
        switch ((shard_scheme)s) {
        case SHARD_SCHEME_MOD:
            CHECK_INT_EQ(r.moved_grow_keys, r.moved_mod_keys);
            CHECK_NEAR(shrink, 7.0 / 8, 0.015); /* N -> N-1 keeps 1/N */
            CHECK(isnan(r.new_node_arc) && isnan(r.share_cv) && r.ring_points == 0);
            CHECK_INT_EQ(r.table_bytes, 0);
            break;
        case SHARD_SCHEME_JUMP:
        case SHARD_SCHEME_RENDEZVOUS:
            /* Multinomial keys: 5 binomial sd around 1/9 and 1/8. */
            CHECK_NEAR(grow, 1.0 / 9, 5 * sqrt(8.0 / 81 / keys));
            CHECK_NEAR(shrink, 1.0 / 8, 5 * sqrt(7.0 / 64 / keys));
            CHECK_NEAR(excess, 0.0, 0.0);
            CHECK(r.load_cv < 2 * sqrt(7.0 / keys));
            CHECK(isnan(r.new_node_arc) && isnan(r.share_cv) && r.ring_points == 0);
            CHECK_NEAR(r.load_cv_expected, sqrt(7.0 / keys), 1e-15);
            /* jump: bucket j < N is on a key's chain with probability
             * 1/(j+1), independently, so the paper's loop takes H_N steps
             * on average (under its ln N + 1 bound); rendezvous scores
             * every node. */
            if (s == SHARD_SCHEME_JUMP) {
                double harmonic = 0, var = 0;
                for (int j = 0; j < 8; j++) {
                    harmonic += 1.0 / (j + 1);
                    var += 1.0 / (j + 1) * (1 - 1.0 / (j + 1));
                }
                CHECK_NEAR((double)r.probes / keys, harmonic, 5 * sqrt(var / keys));
                CHECK(harmonic < log(8.0) + 1);
            } else {
                CHECK_INT_EQ(r.table_bytes, 8 * 8);
            }
            break;
        case SHARD_SCHEME_MAGLEV:
            /* Shares floor/ceil of M/N: new node 7281 or 7282 of 65537. */
            CHECK_NEAR(r.new_node_arc, 7281.0 / 65537, 1.0 / 65537);
            CHECK(r.share_cv < 1e-4);
            CHECK(excess > 0 && excess < 0.01);
            CHECK_NEAR(grow, 1.0 / 9, 5 * sqrt(8.0 / 81 / keys) + 0.01);
            CHECK_INT_EQ(r.table_bytes, 4 * 65537);
            {
                /* 65537 = 8 * 8192 + 1: node 0 holds 8193 entries, the
                 * others 8192; E[cv^2] = N sum (p(1-p)/K + (p-1/N)^2). */
                double sum = 0;
                for (int n = 0; n < 8; n++) {
                    double p = (n == 0 ? 8193.0 : 8192.0) / 65537;
                    sum += p * (1 - p) / keys + (p - 0.125) * (p - 0.125);
                }
                CHECK_NEAR(r.load_cv_expected, sqrt(8 * sum), 1e-12 * sqrt(8 * sum));
                CHECK(fabs(r.load_cv_expected - sqrt(7.0 / keys)) > 1e-9);
                double mean = 1.0 / 8, p0 = 8193.0 / 65537, p1 = 8192.0 / 65537;
                CHECK_NEAR(r.share_cv,
                           sqrt(((p0 - mean) * (p0 - mean) + 7 * (p1 - mean) * (p1 - mean)) / 8) /
                               mean,
                           1e-12);
            }
            break;
        case SHARD_SCHEME_KETAMA:
            /* 160 points per server; an arc share is Beta(160, 7*160). */
            CHECK_INT_EQ(r.ring_points, 9 * 160);
            CHECK_NEAR(excess, 0.0, 0.0);
            CHECK_NEAR(grow, r.new_node_arc, 5 * sqrt(r.new_node_arc / keys));
            CHECK_NEAR(r.load_cv_expected, shard_load_cv_expected(keys, 8, 160), 1e-15);
            {
                /* Node 8's arcs on the 9-server continuum, node n's on the
                 * 8-server one: each point owns back to its predecessor. */
                shard_ketama_server servers[9];
                char names[9][16];
                for (int n = 0; n < 9; n++) {
                    snprintf(names[n], sizeof(names[n]), "node:%d", n);
                    servers[n].name = names[n];
                    servers[n].weight = 1;
                }
                for (uint32_t size = 8; size <= 9; size++) {
                    shard_ring *c = shard_ketama_new(&md5, servers, size);
                    double shares[9] = { 0 };
                    for (size_t i = 0; c && i < c->count; i++) {
                        uint32_t here = (uint32_t)(c->points[i].hash >> 32);
                        uint32_t prev =
                            (uint32_t)(c->points[(i + c->count - 1) % c->count].hash >> 32);
                        shares[c->points[i].node] += (double)(uint32_t)(here - prev) / 4294967296.0;
                    }
                    if (size == 9)
                        CHECK_NEAR(r.new_node_arc, shares[8], 1e-12);
                    else
                        CHECK_NEAR(r.share_cv, naive_cv(shares, 8), 1e-9);
                    shard_ring_free(c);
                }
            }
            break;
        case SHARD_SCHEME_RING:
            CHECK_NEAR(excess, 0.0, 0.0);
            CHECK_INT_EQ(r.ring_points, 9 * 120);
            CHECK_INT_EQ(r.table_bytes, 960 * 16 + (1024 + 1) * 4);
            break;
        case SHARD_SCHEME_BOUNDED:
            CHECK_INT_EQ(r.capacity, 3125);
            CHECK(r.load_max <= 3125);
            CHECK(isnan(r.load_cv_expected));
            break;
        }
        CHECK(r.probes >= keys);
    }
    shard_hasher_cleanup(&xxh);
    shard_hasher_cleanup(&md5);
}

/* Bounded loads trade moves for balance: no node above the cap, the cap
 * reached whenever the ring's busiest node would exceed it, nothing but the
 * ring once the cap is out of reach, and moves beyond the ring's within
 * 3 (1+eps)/(eps N) of the keys. Aamand, Knudsen & Thorup ("Load balancing
 * with dynamic set of balls and bins") show this forwarding scheme moves
 * O(C/eps) keys per node change, C = (1+eps) keys/N
 * (Mirrokni et al. prove O(C/eps^2)); the constant is not published, and
 * over seeds 0 - 29 at 8 and 50 nodes and 1, 10, 120 points it stayed below
 * 1.7 here, so 3 leaves room without being vacuous at 50 nodes. */
static void test_bounded_properties(void)
{
    const uint64_t keys = 20000;
    const uint32_t vnodes_list[] = { 1, 10, 120 }, nodes_list[] = { 8, 50 };
    const double epsilons[] = { 0.05, 0.25, 1.0 };
    shard_hasher hasher;
    for (uint64_t seed = 0; seed < 3; seed++) {
        CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_XXH64, seed), 0);
        for (size_t a = 0; a < 2; a++)
            for (size_t b = 0; b < 3; b++) {
                uint32_t nodes = nodes_list[a], vnodes = vnodes_list[b];
                shard_config ring_config = { keys, nodes, vnodes, SHARD_SCHEME_RING, 0, 0, 0 };
                shard_result ring;
                CHECK_INT_EQ(shard_run(&hasher, &ring_config, NULL, NULL, &ring), 0);
                for (size_t e = 0; e < 3; e++) {
                    shard_config config = { keys, nodes,       vnodes, SHARD_SCHEME_BOUNDED,
                                            0,    epsilons[e], 0 };
                    shard_result r;
                    CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &r), 0);
                    CHECK(r.load_max <= r.capacity);
                    if ((double)ring.load_max > (double)r.capacity)
                        CHECK_INT_EQ(r.load_max, r.capacity);
                    double envelope = 3 * (1 + epsilons[e]) / (epsilons[e] * nodes);
                    CHECK((double)r.moved_grow_keys / keys <=
                          (double)ring.moved_grow_keys / keys + envelope);
                    CHECK((double)r.moved_shrink_keys / keys <=
                          (double)ring.moved_shrink_keys / keys + envelope);
                }
                /* A cap out of reach is the ring, key for key. */
                shard_config loose = { keys, nodes, vnodes, SHARD_SCHEME_BOUNDED, 0, 1e6, 0 };
                shard_result r;
                CHECK_INT_EQ(shard_run(&hasher, &loose, NULL, NULL, &r), 0);
                CHECK_INT_EQ(r.moved_grow_keys, ring.moved_grow_keys);
                CHECK_INT_EQ(r.moved_shrink_keys, ring.moved_shrink_keys);
                CHECK_INT_EQ(r.moved_grow_excess_keys, 0);
                CHECK_INT_EQ(r.load_max, ring.load_max);
                CHECK_INT_EQ(r.load_min, ring.load_min);
                CHECK_INT_EQ(r.probes, ring.probes);
                CHECK(r.new_node_arc == ring.new_node_arc && r.share_cv == ring.share_cv);
            }
        shard_hasher_cleanup(&hasher);
    }
}

/* Timing fills lookup_ns and changes nothing else. */
static void test_measure_lookup(void)
{
    shard_hasher hasher;
    CHECK_INT_EQ(shard_hasher_init(&hasher, SHARD_HASH_MD5, 0), 0);
    for (int s = 0; s <= SHARD_SCHEME_BOUNDED; s++) {
        shard_config config = { 5000, 8, 30, (shard_scheme)s, 1009, 0.25, 0 };
        shard_result plain, timed;
        CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &plain), 0);
        config.measure_lookup = 1;
        CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &timed), 0);
        CHECK(isnan(plain.lookup_ns));
        CHECK(timed.lookup_ns > 0 && timed.lookup_ns < 1e6);
        timed.lookup_ns = plain.lookup_ns;
        CHECK(memcmp(&plain, &timed, sizeof(plain)) == 0);
    }
    shard_hasher_cleanup(&hasher);
}

static void test_run_rejects(void)
{
    shard_hasher xxh;
    CHECK_INT_EQ(shard_hasher_init(&xxh, SHARD_HASH_XXH64, 0), 0);
    shard_result r;
    shard_config maglev = { 100, 8, 120, SHARD_SCHEME_MAGLEV, 65536, 0.25, 0 };
    CHECK_INT_EQ(shard_run(&xxh, &maglev, NULL, NULL, &r), -2);
    shard_config ketama = { 100, 8, 120, SHARD_SCHEME_KETAMA, 65537, 0.25, 0 };
    CHECK_INT_EQ(shard_run(&xxh, &ketama, NULL, NULL, &r), -2); /* needs md5 */
    shard_config ring = { 100, 100000, 10000, SHARD_SCHEME_BOUNDED, 65537, 0.25, 0 };
    CHECK_INT_EQ(shard_run(&xxh, &ring, NULL, NULL, &r), -2);
    /* Stopping: rendezvous at 1000 nodes asks by work, every 4195 keys
     * (2^22 probes of 1000 scores), besides every 65536 keys. */
    shard_config heavy = { 100000, 1000, 1, SHARD_SCHEME_RENDEZVOUS, 65537, 0.25, 0 };
    int calls = -1000;
    CHECK_INT_EQ(shard_run(&xxh, &heavy, stop_after, &calls, &r), 0);
    int checks = 0;
    for (uint64_t i = 0, probes = 0, at = 0; i < 100000; i++, probes += 1000)
        if (i % 65536 == 0 || probes - at >= (UINT64_C(1) << 22)) {
            checks++;
            at = probes;
        }
    CHECK(checks > 100000 / 4195);
    CHECK_INT_EQ(calls, -1000 + 1 + checks);
    shard_hasher_cleanup(&xxh);
}

/* ---- plugin.c through the real host -------------------------------------- */

/* Index of the parameter (column = 0) or column (1) called name; an unknown
 * name is a failed check and gives index 0, so the test reads on safely. */
static uint32_t find_field(const runner_plugin *plugin, const char *name, int column)
{
    uint32_t count = column ? plugin->column_count : plugin->param_count;
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(column ? plugin->columns[i].name : plugin->params[i].name, name) == 0)
            return i;
    fprintf(stderr, "no %s named %s\n", column ? "column" : "parameter", name);
    check_failures++;
    return 0;
}

/* The columns of 1.0.0, in its order: they may only ever be added to. */
static const char *const columns_1_0[] = {
    "hash_name",    "moved_mod",        "moved_mod_expected", "moved_ring",
    "moved_ideal",  "new_node_arc",     "moved_mod_keys",     "moved_ring_keys",
    "load_mean",    "load_max",         "load_min",           "load_ratio",
    "load_cv",      "load_cv_expected", "share_cv",           "load_max_mod",
    "load_min_mod", "load_ratio_mod",   "load_cv_mod",        "ring_points",
};

static void test_descriptor(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    CHECK_INT_EQ(plugin->abi_version, RUNNER_PLUGIN_ABI);
    CHECK_INT_EQ(plugin->struct_size, sizeof(runner_plugin));
    CHECK_STR_EQ(plugin->name, "sharding");
    /* What the loader checks: names lower_snake_case and unique, no column
     * named like a parameter, defaults in range and among the choices. */
    CHECK_INT_EQ(harness_validate(plugin), 0);

    /* The contract: names, types, units, defaults and ranges; the 1.0.0
     * parameters first and in their order. */
    struct {
        const char *name;
        runner_type type;
        const char *unit;
        double def, min, max;
    } want[] = {
        { "keys", RUNNER_INTEGER, "keys", 20000, 1, 1e8 },
        { "nodes", RUNNER_INTEGER, "nodes", 8, 1, 100000 },
        { "vnodes", RUNNER_INTEGER, "points/node", 120, 1, 10000 },
        { "hash", RUNNER_TEXT, "", 0, 0, 0 },
        { "seed", RUNNER_INTEGER, "", 0, 0, 9007199254740992.0 },
        { "scheme", RUNNER_TEXT, "", 0, 0, 0 },
        { "table_size", RUNNER_INTEGER, "entries", 65537, 2, 33554432 },
        { "epsilon", RUNNER_REAL, "", 0.25, 0, 1e6 },
        { "measure_lookup", RUNNER_BOOLEAN, "", 0, 0, 1 },
    };
    CHECK_INT_EQ(plugin->param_count, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK_INT_EQ(find_field(plugin, want[i].name, 0), i);
        const runner_param *param = &plugin->params[find_field(plugin, want[i].name, 0)];
        CHECK_INT_EQ(param->type, want[i].type);
        CHECK_STR_EQ(param->unit, want[i].unit);
        if (want[i].type == RUNNER_TEXT)
            continue;
        CHECK_NEAR(param->default_number, want[i].def, 0);
        CHECK_NEAR(param->min, want[i].min, 0);
        CHECK_NEAR(param->max, want[i].max, 0);
    }
    const runner_param *hash = &plugin->params[find_field(plugin, "hash", 0)];
    CHECK_STR_EQ(hash->default_text, "xxh64");
    CHECK(hash->choices && hash->choices[0] && hash->choices[1] && !hash->choices[2]);
    if (hash->choices) {
        CHECK_STR_EQ(hash->choices[0], "xxh64");
        CHECK_STR_EQ(hash->choices[1], "md5");
    }
    const runner_param *scheme = &plugin->params[find_field(plugin, "scheme", 0)];
    CHECK_STR_EQ(scheme->default_text, "ring");
    const char *schemes[] = { "mod", "ring", "jump", "rendezvous", "maglev", "ketama", "bounded" };
    for (size_t i = 0; scheme->choices && i < 7; i++) {
        CHECK_STR_EQ(scheme->choices[i], schemes[i]);
        shard_scheme parsed;
        CHECK_INT_EQ(shard_scheme_parse(scheme->choices[i], &parsed), 0);
    }
    CHECK(scheme->choices && scheme->choices[7] == NULL);

    for (size_t i = 0; i < sizeof(columns_1_0) / sizeof(columns_1_0[0]); i++)
        CHECK_INT_EQ(find_field(plugin, columns_1_0[i], 1), i);
    const char *fractions[] = { "moved_mod",          "moved_ring",   "moved_ideal",
                                "moved_mod_expected", "load_cv",      "moved_grow",
                                "moved_grow_excess",  "moved_shrink", "moved_shrink_excess",
                                "moved_shrink_ideal" };
    for (size_t i = 0; i < sizeof(fractions) / sizeof(fractions[0]); i++)
        CHECK_STR_EQ(plugin->columns[find_field(plugin, fractions[i], 1)].unit, "fraction");
    const char *counts[] = { "load_max", "load_min",        "load_mean",
                             "capacity", "moved_grow_keys", "moved_shrink_keys" };
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        CHECK_STR_EQ(plugin->columns[find_field(plugin, counts[i], 1)].unit, "keys");
    CHECK_STR_EQ(plugin->columns[find_field(plugin, "table_bytes", 1)].unit, "bytes");
    CHECK_STR_EQ(plugin->columns[find_field(plugin, "lookup_ns", 1)].unit, "ns");
    CHECK_STR_EQ(plugin->columns[find_field(plugin, "probes_per_lookup", 1)].unit, "probes");
}

/* 1 when the rows of a and b are the same to the bit in every column but
 * `except` (reals compared as bytes). */
static int rows_identical_except(const harness *a, const harness *b, const char *except)
{
    if (a->point.row_count != b->point.row_count)
        return 0;
    uint32_t columns = a->plugin->column_count;
    for (size_t i = 0; i < a->point.row_count * columns; i++) {
        if (except && strcmp(a->plugin->columns[i % columns].name, except) == 0)
            continue;
        const value *x = &a->point.rows[i], *y = &b->point.rows[i];
        if (x->type != y->type)
            return 0;
        if (x->type == RUNNER_REAL ? memcmp(&x->as.real, &y->as.real, sizeof x->as.real) != 0
                                   : (x->type && !value_equal(x, y)))
            return 0;
    }
    return 1;
}

static void test_plugin_run(const char *hash_name, shard_hash_kind kind)
{
    harness h;
    harness_init(&h, runner_plugin_entry());
    CHECK_INT_EQ(harness_set(&h, "hash", value_text(hash_name)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK(h.point.error == NULL);
    CHECK_INT_EQ(h.point.row_count, 1);

    /* The row is the model's result at the defaults (hash seed 0: the
     * plugin's seed parameter, not the host's seed): today's ring. */
    shard_result r = run_config(kind, 0, 20000, 8, 120);
    CHECK_STR_EQ(harness_text(&h, 0, "hash_name"), hash_name);
    CHECK_NEAR(harness_real(&h, 0, "moved_mod"), r.moved_mod_keys / 20000.0, 0);
    CHECK_NEAR(harness_real(&h, 0, "moved_ring"), r.moved_grow_keys / 20000.0, 0);
    CHECK_NEAR(harness_real(&h, 0, "moved_ideal"), 1.0 / 9, 1e-15);
    CHECK_NEAR(harness_real(&h, 0, "moved_mod_expected"), 8.0 / 9, 1e-15);
    CHECK_INT_EQ(harness_integer(&h, 0, "moved_mod_keys"), r.moved_mod_keys);
    CHECK_INT_EQ(harness_integer(&h, 0, "moved_ring_keys"), r.moved_grow_keys);
    CHECK_INT_EQ(harness_integer(&h, 0, "load_max"), r.load_max);
    CHECK_INT_EQ(harness_integer(&h, 0, "load_min"), r.load_min);
    CHECK_NEAR(harness_real(&h, 0, "load_ratio"), (double)r.load_max / (double)r.load_min, 1e-15);
    CHECK_NEAR(harness_real(&h, 0, "load_ratio_mod"),
               (double)r.load_max_mod / (double)r.load_min_mod, 1e-15);
    CHECK_NEAR(harness_real(&h, 0, "load_cv"), r.load_cv, 0);
    CHECK_NEAR(harness_real(&h, 0, "load_cv_expected"), shard_load_cv_expected(20000, 8, 120), 0);
    CHECK_NEAR(harness_real(&h, 0, "new_node_arc"), r.new_node_arc, 0);
    CHECK_NEAR(harness_real(&h, 0, "share_cv"), r.share_cv, 0);
    CHECK_NEAR(harness_real(&h, 0, "load_mean"), 2500, 0);
    CHECK_INT_EQ(harness_integer(&h, 0, "ring_points"), 9 * 120);
    /* The new columns generalise the old ones. */
    CHECK_NEAR(harness_real(&h, 0, "moved_grow"), harness_real(&h, 0, "moved_ring"), 0);
    CHECK_INT_EQ(harness_integer(&h, 0, "moved_grow_keys"), r.moved_grow_keys);
    CHECK_NEAR(harness_real(&h, 0, "moved_grow_excess"), 0, 0);
    CHECK_NEAR(harness_real(&h, 0, "moved_shrink"), r.moved_shrink_keys / 20000.0, 0);
    CHECK_NEAR(harness_real(&h, 0, "moved_shrink_ideal"), 1.0 / 8, 0);
    CHECK_NEAR(harness_real(&h, 0, "load_max_over_mean"), r.load_max / 2500.0, 0);
    CHECK_NEAR(harness_real(&h, 0, "probes_per_lookup"), r.probes / 20000.0, 0);

    /* Only the seed parameter chooses the keys: the host's seed does not. */
    harness other;
    harness_init(&other, runner_plugin_entry());
    CHECK_INT_EQ(harness_set(&other, "hash", value_text(hash_name)), 0);
    CHECK_INT_EQ(harness_run(&other, 2), 0);
    CHECK(harness_rows_identical(&h, &other));
    harness_free(&other);
    harness_free(&h);
}

/* Every scheme through the host: the row is complete but for the columns
 * that do not apply to it (NULL, as docs/plugins/sharding.md lists them),
 * equal to the model's result, and bit-identical on a second run; timing
 * only fills lookup_ns. */
static void test_plugin_schemes(void)
{
    const char *schemes[] = { "mod", "ring", "jump", "rendezvous", "maglev", "ketama", "bounded" };
    const char *geometry[] = { "new_node_arc", "share_cv", "ring_points" };
    const char *shrink[] = { "moved_shrink", "moved_shrink_keys", "moved_shrink_excess",
                             "moved_shrink_ideal" };
    for (size_t s = 0; s < 7; s++) {
        for (int nodes = 1; nodes <= 8; nodes += 7) {
            harness h, again;
            harness_init(&h, runner_plugin_entry());
            harness_init(&again, runner_plugin_entry());
            CHECK_INT_EQ(harness_set(&h, "scheme", value_text(schemes[s])), 0);
            CHECK_INT_EQ(harness_set(&again, "scheme", value_text(schemes[s])), 0);
            CHECK_INT_EQ(harness_set(&h, "nodes", value_integer(nodes)), 0);
            CHECK_INT_EQ(harness_set(&again, "nodes", value_integer(nodes)), 0);
            CHECK_INT_EQ(harness_run(&h, 1), 0);
            CHECK_INT_EQ(harness_run(&again, 7), 0);
            CHECK(harness_rows_identical(&h, &again));
            CHECK_INT_EQ(h.point.row_count, 1);
            if (h.point.row_count != 1) {
                harness_free(&h);
                harness_free(&again);
                continue;
            }

            /* Which columns are NULL. */
            shard_scheme scheme;
            shard_scheme_parse(schemes[s], &scheme);
            int no_geometry = scheme == SHARD_SCHEME_MOD || scheme == SHARD_SCHEME_JUMP ||
                              scheme == SHARD_SCHEME_RENDEZVOUS;
            for (uint32_t c = 0; c < h.plugin->column_count; c++) {
                const char *name = h.plugin->columns[c].name;
                int null =
                    strcmp(name, "lookup_ns") == 0 ||
                    (strcmp(name, "capacity") == 0 && scheme != SHARD_SCHEME_BOUNDED) ||
                    (strcmp(name, "load_cv_expected") == 0 && scheme == SHARD_SCHEME_BOUNDED) ||
                    (strcmp(name, "ring_points") == 0 && scheme == SHARD_SCHEME_MAGLEV);
                for (int g = 0; g < 3; g++)
                    null |= no_geometry && strcmp(name, geometry[g]) == 0;
                for (int g = 0; g < 4; g++)
                    null |= nodes == 1 && strcmp(name, shrink[g]) == 0;
                const value *v = &h.point.rows[c];
                if (null ? v->type != 0 : v->type != h.plugin->columns[c].type) {
                    fprintf(stderr, "scheme %s, %d nodes: column %s is %s\n", schemes[s], nodes,
                            name, v->type ? value_type_name(v->type) : "NULL");
                    check_failures++;
                }
            }

            /* The row is the model's result. */
            shard_hasher hasher;
            shard_hash_kind kind =
                scheme == SHARD_SCHEME_KETAMA ? SHARD_HASH_MD5 : SHARD_HASH_XXH64;
            CHECK_INT_EQ(shard_hasher_init(&hasher, kind, 0), 0);
            shard_config config = { 20000, (uint32_t)nodes, 120, scheme, 65537, 0.25, 0 };
            shard_result r;
            CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &r), 0);
            shard_hasher_cleanup(&hasher);
            CHECK_STR_EQ(harness_text(&h, 0, "hash_name"), shard_hash_name(kind));
            CHECK_INT_EQ(harness_integer(&h, 0, "moved_grow_keys"), r.moved_grow_keys);
            CHECK_INT_EQ(harness_integer(&h, 0, "moved_ring_keys"), r.moved_grow_keys);
            CHECK_NEAR(harness_real(&h, 0, "moved_grow_excess"), r.moved_grow_excess_keys / 20000.0,
                       0);
            CHECK_INT_EQ(harness_integer(&h, 0, "moved_mod_keys"), r.moved_mod_keys);
            CHECK_INT_EQ(harness_integer(&h, 0, "load_max"), r.load_max);
            CHECK_INT_EQ(harness_integer(&h, 0, "load_min"), r.load_min);
            CHECK_NEAR(harness_real(&h, 0, "load_cv"), r.load_cv, 0);
            CHECK_NEAR(harness_real(&h, 0, "probes_per_lookup"), r.probes / 20000.0, 0);
            CHECK_INT_EQ(harness_integer(&h, 0, "table_bytes"), r.table_bytes);
            if (nodes > 1) {
                CHECK_INT_EQ(harness_integer(&h, 0, "moved_shrink_keys"), r.moved_shrink_keys);
                CHECK_NEAR(harness_real(&h, 0, "moved_shrink_excess"),
                           r.moved_shrink_excess_keys / 20000.0, 0);
            }
            if (scheme == SHARD_SCHEME_BOUNDED)
                CHECK_INT_EQ(harness_integer(&h, 0, "capacity"), nodes == 1 ? 25000 : 3125);

            /* Measured: lookup_ns appears, nothing else changes. */
            CHECK_INT_EQ(harness_set(&again, "measure_lookup", value_boolean(1)), 0);
            CHECK_INT_EQ(harness_run(&again, 1), 0);
            CHECK(harness_real(&again, 0, "lookup_ns") > 0);
            CHECK(rows_identical_except(&h, &again, "lookup_ns"));
            CHECK(!rows_identical_except(&h, &again, NULL));
            harness_free(&h);
            harness_free(&again);
        }
    }

    /* ketama hashes with md5 whatever hash says, so hash does not matter. */
    harness a, b;
    harness_init(&a, runner_plugin_entry());
    harness_init(&b, runner_plugin_entry());
    CHECK_INT_EQ(harness_set(&a, "scheme", value_text("ketama")), 0);
    CHECK_INT_EQ(harness_set(&b, "scheme", value_text("ketama")), 0);
    CHECK_INT_EQ(harness_set(&b, "hash", value_text("md5")), 0);
    CHECK_INT_EQ(harness_run(&a, 1), 0);
    CHECK_INT_EQ(harness_run(&b, 1), 0);
    CHECK(harness_rows_identical(&a, &b));
    /* Parameters a scheme does not use change nothing. */
    CHECK_INT_EQ(harness_set(&b, "vnodes", value_integer(7)), 0);
    CHECK_INT_EQ(harness_set(&b, "epsilon", value_real(3.0)), 0);
    CHECK_INT_EQ(harness_set(&b, "table_size", value_integer(101)), 0);
    CHECK_INT_EQ(harness_run(&b, 1), 0);
    CHECK(harness_rows_identical(&a, &b));
    harness_free(&a);
    harness_free(&b);
}

static void test_plugin_failures(void)
{
    harness h;
    harness_init(&h, runner_plugin_entry());

    CHECK_INT_EQ(harness_set(&h, "nodes", value_integer(100000)), 0);
    CHECK_INT_EQ(harness_set(&h, "vnodes", value_integer(10000)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error, "sharding: ring of (nodes+1)*vnodes = 1000010000 points "
                                "exceeds the limit of 33554432 (about 0.7 GB): lower nodes "
                                "or vnodes");
    CHECK_INT_EQ(h.point.row_count, 0);
    CHECK_INT_EQ(harness_set(&h, "scheme", value_text("bounded")), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error, "sharding: ring of (nodes+1)*vnodes = 1000010000 points "
                                "exceeds the limit of 33554432 (about 0.7 GB): lower nodes "
                                "or vnodes");
    CHECK_INT_EQ(harness_set(&h, "scheme", value_text("ketama")), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error, "sharding: ketama's three continua (160 points per server on "
                                "nodes-1, nodes and nodes+1 servers) need 48000480 points, "
                                "over the limit of 33554432: lower nodes to at most 69904");
    CHECK_INT_EQ(harness_set(&h, "nodes", value_integer(69905)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_INT_EQ(harness_set(&h, "nodes", value_integer(69904)), 0);
    CHECK_INT_EQ(harness_set(&h, "keys", value_integer(1)), 0);
    h.stop = 1; /* passes the size check, then stops before building */
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error, "sharding: stopped on request before all 1 keys were placed");
    h.stop = 0;

    CHECK_INT_EQ(harness_set(&h, "nodes", value_integer(8)), 0);
    CHECK_INT_EQ(harness_set(&h, "scheme", value_text("maglev")), 0);
    CHECK_INT_EQ(harness_set(&h, "table_size", value_integer(65536)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error, "sharding: table_size 65536 is not prime: Maglev's preference "
                                "lists (offset + j*skip mod M) are permutations only for a "
                                "prime M; try 65537 or 655373");
    /* The same table size is fine for a scheme that has no table. */
    CHECK_INT_EQ(harness_set(&h, "scheme", value_text("jump")), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);

    /* Values outside the choices or ranges never reach run(). */
    CHECK_INT_EQ(harness_set(&h, "hash", value_text("sha1")), -1);
    CHECK_STR_EQ(h.message, "hash: 'sha1' is not one of 'xxh64', 'md5'");
    CHECK_INT_EQ(harness_set(&h, "scheme", value_text("multiprobe")), -1);
    CHECK_INT_EQ(harness_set(&h, "epsilon", value_real(-0.5)), -1);
    CHECK_INT_EQ(harness_set(&h, "table_size", value_integer(1)), -1);

    CHECK_INT_EQ(harness_set(&h, "scheme", value_text("ring")), 0);
    CHECK_INT_EQ(harness_set(&h, "vnodes", value_integer(120)), 0);
    CHECK_INT_EQ(harness_set(&h, "keys", value_integer(1000000)), 0);
    h.stop = 1;
    const char *schemes[] = { "mod", "ring", "jump", "rendezvous", "maglev", "ketama", "bounded" };
    for (size_t s = 0; s < 7; s++) {
        CHECK_INT_EQ(harness_set(&h, "scheme", value_text(schemes[s])), 0);
        CHECK_INT_EQ(harness_set(&h, "table_size", value_integer(65537)), 0);
        CHECK_INT_EQ(harness_run(&h, 1), -1);
        CHECK_STR_EQ(h.point.error,
                     "sharding: stopped on request before all 1000000 keys were placed");
        CHECK_INT_EQ(h.point.row_count, 0);
    }
    harness_free(&h);
}

int main(void)
{
    test_names();
    test_hashes();
    test_ring_against_linear_scan(SHARD_HASH_XXH64);
    test_ring_against_linear_scan(SHARD_HASH_MD5);
    test_run_against_two_rings(SHARD_HASH_XXH64, 8, 120, 20000);
    test_run_against_two_rings(SHARD_HASH_MD5, 5, 3, 3000);
    test_run_against_two_rings(SHARD_HASH_XXH64, 1, 2, 1000);
    test_defaults(SHARD_HASH_XXH64);
    test_defaults(SHARD_HASH_MD5);
    test_vnodes_balance();
    test_theory_over_seeds();
    test_expected_cv_limits();
    test_one_node();
    test_empty_node();
    test_determinism();
    test_stop();

    test_scheme_names();
    test_ring_owners();
    test_jump_vectors();
    test_jump_exact_arithmetic();
    test_jump_properties();
    test_rendezvous();
    test_maglev_table();
    test_maglev_disruption();
    test_ketama_vectors();
    test_bounded_capacity();
    test_bounded_against_naive();
    for (int s = 0; s <= SHARD_SCHEME_BOUNDED; s++) {
        shard_hash_kind kind =
            s == SHARD_SCHEME_KETAMA || s % 2 ? SHARD_HASH_MD5 : SHARD_HASH_XXH64;
        test_run_against_naive((shard_scheme)s, kind, 5, 3000);
        test_run_against_naive((shard_scheme)s, kind, 2, 500);
        test_run_against_naive((shard_scheme)s, kind, 1, 500);
    }
    test_scheme_figures();
    test_bounded_properties();
    test_measure_lookup();
    test_run_rejects();

    test_descriptor();
    test_plugin_run("xxh64", SHARD_HASH_XXH64);
    test_plugin_run("md5", SHARD_HASH_MD5);
    test_plugin_schemes();
    test_plugin_failures();
    return check_done("test_sharding");
}
