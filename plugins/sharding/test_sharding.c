/* Unit tests of the sharding model: names and hashes against independent
 * computations (snprintf, XXH64 itself, RFC 1321 vectors), the ring against a
 * naive linear scan, and the figures against the formulas of science.md
 * section 4. plugin.c runs through the real host (plugin_harness.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <runner/plugin.h>

#include <xxhash.h>

#include "check.h"
#include "model.h"
#include "plugin_harness.h"

static shard_result run_config(shard_hash_kind kind, uint64_t seed, uint64_t keys,
                               uint32_t nodes, uint32_t vnodes)
{
    shard_hasher hasher;
    shard_result result;
    memset(&result, 0, sizeof(result));
    CHECK_INT_EQ(shard_hasher_init(&hasher, kind, seed), 0);
    shard_config config = { keys, nodes, vnodes };
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
        mismatches_old += shard_ring_node_without_last(ring, h) != naive_owner(&naive, h, nodes - 1);
    }
    /* The edges: exactly on a point, just past it, 0 and the wrap at 2^64-1. */
    for (size_t i = 0; i < naive.count; i++) {
        const uint64_t probes[] = { naive.hash[i], naive.hash[i] + 1, naive.hash[i] - 1 };
        for (int p = 0; p < 3; p++) {
            mismatches += shard_ring_node(ring, probes[p]) != naive_owner(&naive, probes[p], UINT32_MAX);
            mismatches_old += shard_ring_node_without_last(ring, probes[p])
                              != naive_owner(&naive, probes[p], nodes - 1);
        }
    }
    const uint64_t extremes[] = { 0, UINT64_MAX };
    for (int p = 0; p < 2; p++) {
        mismatches += shard_ring_node(ring, extremes[p]) != naive_owner(&naive, extremes[p], UINT32_MAX);
        mismatches_old += shard_ring_node_without_last(ring, extremes[p])
                          != naive_owner(&naive, extremes[p], nodes - 1);
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

    shard_config config = { keys, nodes, vnodes };
    shard_result r;
    CHECK_INT_EQ(shard_run(&hasher, &config, NULL, NULL, &r), 0);
    CHECK_INT_EQ(r.moved_ring_keys, moved);
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
    double moved_ring = (double)r.moved_ring_keys / keys;

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
    CHECK(shard_load_ratio(r.load_max_mod, r.load_min_mod)
          < shard_load_ratio(r.load_max, r.load_min));
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
    CHECK(shard_load_ratio(one.load_max, one.load_min)
          > 2 * shard_load_ratio(many.load_max, many.load_min));
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
        double m = (double)r.moved_ring_keys / keys;
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
    CHECK(sd > 0.009 && sd < 0.011); /* science.md: "about one point" */
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
    CHECK_NEAR((double)r.moved_ring_keys / keys, p, 5 * sqrt(p * (1 - p) / keys) + 1e-9);

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
    CHECK(e.moved_ring_keys != a.moved_ring_keys || e.load_max != a.load_max);
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
    shard_config config = { 1000000, 8, 10 };
    shard_result r;
    int calls = 0;
    CHECK_INT_EQ(shard_run(&hasher, &config, stop_after, &calls, &r), 1);
    CHECK_INT_EQ(calls, 2); /* asked at key 0 and again at key 65536 */
    shard_hasher_cleanup(&hasher);
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

static void test_descriptor(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    CHECK_INT_EQ(plugin->abi_version, RUNNER_PLUGIN_ABI);
    CHECK_INT_EQ(plugin->struct_size, sizeof(runner_plugin));
    CHECK_STR_EQ(plugin->name, "sharding");
    /* What the loader checks: names lower_snake_case and unique, no column
     * named like a parameter, defaults in range and among the choices. */
    CHECK_INT_EQ(harness_validate(plugin), 0);

    /* The contract: names, types, units, defaults and ranges. */
    struct { const char *name; runner_type type; const char *unit; double def, min, max; } want[] = {
        { "keys", RUNNER_INTEGER, "keys", 20000, 1, 1e8 },
        { "nodes", RUNNER_INTEGER, "nodes", 8, 1, 100000 },
        { "vnodes", RUNNER_INTEGER, "points/node", 120, 1, 10000 },
        { "seed", RUNNER_INTEGER, "", 0, 0, 9007199254740992.0 },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const runner_param *param = &plugin->params[find_field(plugin, want[i].name, 0)];
        CHECK_INT_EQ(param->type, want[i].type);
        CHECK_STR_EQ(param->unit, want[i].unit);
        CHECK_NEAR(param->default_number, want[i].def, 0);
        CHECK_NEAR(param->min, want[i].min, 0);
        CHECK_NEAR(param->max, want[i].max, 0);
    }
    const runner_param *hash = &plugin->params[find_field(plugin, "hash", 0)];
    CHECK_INT_EQ(hash->type, RUNNER_TEXT);
    CHECK_STR_EQ(hash->default_text, "xxh64");
    CHECK(hash->choices && hash->choices[0] && hash->choices[1] && !hash->choices[2]);
    if (hash->choices) {
        CHECK_STR_EQ(hash->choices[0], "xxh64");
        CHECK_STR_EQ(hash->choices[1], "md5");
    }
    const char *fractions[] = { "moved_mod", "moved_ring", "moved_ideal", "moved_mod_expected",
                                "load_cv" };
    for (size_t i = 0; i < sizeof(fractions) / sizeof(fractions[0]); i++)
        CHECK_STR_EQ(plugin->columns[find_field(plugin, fractions[i], 1)].unit, "fraction");
    const char *counts[] = { "load_max", "load_min", "load_mean" };
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        CHECK_STR_EQ(plugin->columns[find_field(plugin, counts[i], 1)].unit, "keys");
}

static void test_plugin_run(const char *hash_name, shard_hash_kind kind)
{
    harness h;
    harness_init(&h, runner_plugin_entry());
    CHECK_INT_EQ(harness_set(&h, "hash", value_text(hash_name)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), 0);
    CHECK(h.point.error == NULL);
    CHECK_INT_EQ(h.point.row_count, 1);
    CHECK_INT_EQ(harness_row_problems(&h, 0), 0); /* every column, of its type */

    /* The row is the model's result at the defaults (hash seed 0: the
     * plugin's seed parameter, not the host's seed). */
    shard_result r = run_config(kind, 0, 20000, 8, 120);
    CHECK_STR_EQ(harness_text(&h, 0, "hash_name"), hash_name);
    CHECK_NEAR(harness_real(&h, 0, "moved_mod"), r.moved_mod_keys / 20000.0, 0);
    CHECK_NEAR(harness_real(&h, 0, "moved_ring"), r.moved_ring_keys / 20000.0, 0);
    CHECK_NEAR(harness_real(&h, 0, "moved_ideal"), 1.0 / 9, 1e-15);
    CHECK_NEAR(harness_real(&h, 0, "moved_mod_expected"), 8.0 / 9, 1e-15);
    CHECK_INT_EQ(harness_integer(&h, 0, "moved_mod_keys"), r.moved_mod_keys);
    CHECK_INT_EQ(harness_integer(&h, 0, "moved_ring_keys"), r.moved_ring_keys);
    CHECK_INT_EQ(harness_integer(&h, 0, "load_max"), r.load_max);
    CHECK_INT_EQ(harness_integer(&h, 0, "load_min"), r.load_min);
    CHECK_NEAR(harness_real(&h, 0, "load_ratio"), (double)r.load_max / (double)r.load_min, 1e-15);
    CHECK_NEAR(harness_real(&h, 0, "load_ratio_mod"),
               (double)r.load_max_mod / (double)r.load_min_mod, 1e-15);
    CHECK_NEAR(harness_real(&h, 0, "load_cv"), r.load_cv, 0);
    CHECK_NEAR(harness_real(&h, 0, "load_mean"), 2500, 0);
    CHECK_INT_EQ(harness_integer(&h, 0, "ring_points"), 9 * 120);

    /* Only the seed parameter chooses the keys: the host's seed does not. */
    harness other;
    harness_init(&other, runner_plugin_entry());
    CHECK_INT_EQ(harness_set(&other, "hash", value_text(hash_name)), 0);
    CHECK_INT_EQ(harness_run(&other, 2), 0);
    CHECK(harness_rows_identical(&h, &other));
    harness_free(&other);
    harness_free(&h);
}

static void test_plugin_failures(void)
{
    harness h;
    harness_init(&h, runner_plugin_entry());

    CHECK_INT_EQ(harness_set(&h, "nodes", value_integer(100000)), 0);
    CHECK_INT_EQ(harness_set(&h, "vnodes", value_integer(10000)), 0);
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error, "ring of (nodes+1)*vnodes = 1000010000 points exceeds the limit "
                                "of 33554432 (about 0.7 GB): lower nodes or vnodes");
    CHECK_INT_EQ(h.point.row_count, 0);

    /* A hash outside the choices never reaches run(). */
    CHECK_INT_EQ(harness_set(&h, "hash", value_text("sha1")), -1);
    CHECK_STR_EQ(h.message, "hash: 'sha1' is not one of 'xxh64', 'md5'");

    CHECK_INT_EQ(harness_set(&h, "nodes", value_integer(8)), 0);
    CHECK_INT_EQ(harness_set(&h, "vnodes", value_integer(120)), 0);
    CHECK_INT_EQ(harness_set(&h, "keys", value_integer(1000000)), 0);
    h.stop = 1;
    CHECK_INT_EQ(harness_run(&h, 1), -1);
    CHECK_STR_EQ(h.point.error, "stopped on request before all 1000000 keys were placed");
    CHECK_INT_EQ(h.point.row_count, 0);
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
    test_descriptor();
    test_plugin_run("xxh64", SHARD_HASH_XXH64);
    test_plugin_run("md5", SHARD_HASH_MD5);
    test_plugin_failures();
    return check_done("test_sharding");
}
