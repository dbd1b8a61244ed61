/* bench_sharding: keys placed per second on a consistent-hash ring (1000
 * nodes x 120 points), against the bare hash's rate on the same keys in the
 * same run, and against the 10 M keys/s/core target; then the same for every
 * other scheme at 1000 nodes. Every figure is the fastest of 3 runs. Not a
 * test: ratios are what to compare across machines (docs/performance.md).
 *
 * usage: bench_sharding [keys] [xxh64|md5]   (default 10000000 xxh64) */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"

#define TARGET_KEYS_PER_S 10e6
#define REPEATS 3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What one scheme line needs. */
typedef struct bench_scheme {
    const char *label;
    shard_scheme scheme;
    uint64_t keys;          /* keys timed: fewer for the slow schemes */
    shard_hasher *hasher;   /* xxh64/md5 as asked; md5 for ketama */
    const shard_ring *ring; /* ring, bounded, ketama */
    const uint64_t *node_hashes;
    const shard_maglev *table;
    shard_bounded *bounded;
    uint32_t nodes;
} bench_scheme;

/* Seconds to hash `keys` keys with hasher (the reference for the lookup). */
static double time_hash(shard_hasher *hasher, uint64_t keys, uint64_t *sum)
{
    double t0 = now_s();
    for (uint64_t i = 0; i < keys; i++)
        *sum += shard_key_hash(hasher, i);
    return now_s() - t0;
}

/* Seconds to hash and place `keys` keys under the scheme. */
static double time_place(const bench_scheme *b, uint64_t *sum)
{
    uint64_t probes = 0, acc = 0;
    double t0 = now_s();
    for (uint64_t i = 0; i < b->keys; i++) {
        uint64_t h = shard_key_hash(b->hasher, i);
        switch (b->scheme) {
        case SHARD_SCHEME_MOD: acc += shard_mod_node(h, b->nodes); break;
        case SHARD_SCHEME_RING: acc += shard_ring_node(b->ring, h); break;
        case SHARD_SCHEME_JUMP: acc += shard_jump_bucket(h, b->nodes); break;
        case SHARD_SCHEME_RENDEZVOUS:
            acc += shard_rendezvous_node(b->node_hashes, b->nodes, h);
            break;
        case SHARD_SCHEME_MAGLEV: acc += shard_maglev_node(b->table, h); break;
        case SHARD_SCHEME_KETAMA: acc += shard_ketama_find(b->ring, (uint32_t)h)->node; break;
        case SHARD_SCHEME_BOUNDED: acc += shard_bounded_place(b->bounded, h, &probes); break;
        }
    }
    double s = now_s() - t0;
    *sum += acc;
    return s;
}

int main(int argc, char **argv)
{
    uint64_t keys = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *hash_name = argc > 2 ? argv[2] : "xxh64";
    const uint32_t nodes = 1000, vnodes = 120, table_size = 65537;
    const double epsilon = 0.25;
    shard_hash_kind kind;
    if (keys == 0 || shard_hash_parse(hash_name, &kind) != 0) {
        fprintf(stderr, "usage: bench_sharding [keys >= 1] [xxh64|md5]\n");
        return 2;
    }

    shard_hasher hasher, md5;
    if (shard_hasher_init(&hasher, kind, 0) != 0 ||
        shard_hasher_init(&md5, SHARD_HASH_MD5, 0) != 0) {
        fprintf(stderr, "bench_sharding: OpenSSL libcrypto could not provide MD5\n");
        return 1;
    }
    double t0 = now_s();
    shard_ring *ring = shard_ring_new(&hasher, nodes, vnodes);
    double build_s = now_s() - t0;
    if (!ring) {
        fprintf(stderr, "bench_sharding: out of memory building the ring\n");
        shard_hasher_cleanup(&hasher);
        shard_hasher_cleanup(&md5);
        return 1;
    }

    /* The checksums keep the compiler from dropping either loop. Each
     * figure is the fastest of REPEATS runs: other processes on the machine
     * only ever slow a run down. */
    uint64_t hash_sum = 0, node_sum = 0;
    double hash_s = HUGE_VAL, place_s = HUGE_VAL;
    uint64_t *load = calloc(nodes, sizeof(*load));
    for (int r = 0; r < REPEATS; r++) {
        t0 = now_s();
        for (uint64_t i = 0; i < keys; i++)
            hash_sum += shard_key_hash(&hasher, i);
        double s = now_s() - t0;
        hash_s = s < hash_s ? s : hash_s;

        t0 = now_s();
        for (uint64_t i = 0; i < keys; i++) {
            uint32_t node = shard_ring_node(ring, shard_key_hash(&hasher, i));
            node_sum += node;
            if (load)
                load[node]++;
        }
        s = now_s() - t0;
        place_s = s < place_s ? s : place_s;
    }

    double hash_rate = (double)keys / hash_s, place_rate = (double)keys / place_s;
    printf("bench_sharding: %s, %" PRIu64 " keys, ring of %u nodes x %u points "
           "(built in %.3f s)\n",
           shard_hash_name(kind), keys, nodes, vnodes, build_s);
    printf("  hash only:       %8.2f M keys/s  (%.1f ns/key)\n", hash_rate / 1e6, 1e9 / hash_rate);
    printf("  ring placement:  %8.2f M keys/s  (%.1f ns/key)\n", place_rate / 1e6,
           1e9 / place_rate);
    printf("  placement / hash speed: %.2f  (lookup costs %.1f ns/key)\n", place_rate / hash_rate,
           1e9 / place_rate - 1e9 / hash_rate);
    printf("  placement / target 10 M keys/s: %.2f  %s\n", place_rate / TARGET_KEYS_PER_S,
           place_rate >= TARGET_KEYS_PER_S ? "(meets target)" : "(BELOW target)");

    /* The other schemes at the same 1000 nodes, on 1/10 of the keys.
     * Placement = key hash + lookup; the lookup's cost is placement time
     * minus the same keys' hash time. rendezvous scores all 1000 nodes, so
     * it gets 1/1000 of the keys. */
    uint64_t *node_hashes = malloc(nodes * sizeof(*node_hashes));
    shard_maglev table = { 0 };
    shard_bounded bounded = { 0 };
    t0 = now_s();
    int table_rc = shard_maglev_build(&table, &hasher, nodes, table_size, NULL, NULL);
    double table_s = now_s() - t0;
    shard_ring *continuum = NULL;
    {
        shard_ketama_server *servers = malloc(nodes * sizeof(*servers));
        char *names = malloc((size_t)nodes * 24);
        if (servers && names) {
            for (uint32_t n = 0; n < nodes; n++) {
                shard_node_name(names + (size_t)n * 24, n);
                servers[n].name = names + (size_t)n * 24;
                servers[n].weight = 1;
            }
            continuum = shard_ketama_new(&md5, servers, nodes);
        }
        free(servers);
        free(names);
    }
    if (!node_hashes || table_rc != 0 || !continuum ||
        shard_bounded_init(&bounded, ring, nodes,
                           shard_bounded_capacity(keys / 10 ? keys / 10 : 1, nodes, epsilon)) !=
            0) {
        fprintf(stderr, "bench_sharding: out of memory building the schemes\n");
        return 1;
    }
    shard_rendezvous_hashes(&hasher, nodes, node_hashes);

    uint64_t few = keys / 1000 ? keys / 1000 : 1, tenth = keys / 10 ? keys / 10 : 1;
    const bench_scheme schemes[] = {
        { "mod", SHARD_SCHEME_MOD, tenth, &hasher, NULL, NULL, NULL, NULL, nodes },
        { "ring (v=120)", SHARD_SCHEME_RING, tenth, &hasher, ring, NULL, NULL, NULL, nodes },
        { "jump", SHARD_SCHEME_JUMP, tenth, &hasher, NULL, NULL, NULL, NULL, nodes },
        { "rendezvous", SHARD_SCHEME_RENDEZVOUS, few, &hasher, NULL, node_hashes, NULL, NULL,
          nodes },
        { "maglev (M=65537)", SHARD_SCHEME_MAGLEV, tenth, &hasher, NULL, NULL, &table, NULL,
          nodes },
        { "ketama (md5 keys)", SHARD_SCHEME_KETAMA, tenth, &md5, continuum, NULL, NULL, NULL,
          nodes },
        { "bounded (eps=0.25)", SHARD_SCHEME_BOUNDED, tenth, &hasher, ring, NULL, NULL, &bounded,
          nodes },
    };
    printf("  all schemes at %u nodes (maglev table built in %.3f s):\n", nodes, table_s);
    printf("    %-20s %10s %12s %12s\n", "scheme", "keys", "M keys/s", "lookup ns");
    for (size_t s = 0; s < sizeof(schemes) / sizeof(schemes[0]); s++) {
        const bench_scheme *b = &schemes[s];
        double hashed = HUGE_VAL, placed = HUGE_VAL;
        for (int r = 0; r < REPEATS; r++) {
            double h = time_hash(b->hasher, b->keys, &hash_sum);
            if (b->bounded) /* every run places the same keys on empty nodes */
                memset(b->bounded->load, 0, nodes * sizeof(*b->bounded->load));
            double p = time_place(b, &node_sum);
            hashed = h < hashed ? h : hashed;
            placed = p < placed ? p : placed;
        }
        printf("    %-20s %10" PRIu64 " %12.2f %12.1f\n", b->label, b->keys,
               (double)b->keys / placed / 1e6, (placed - hashed) * 1e9 / (double)b->keys);
    }
    printf("  checksums %016" PRIx64 " %" PRIu64 "\n", hash_sum, node_sum);

    shard_bounded_cleanup(&bounded);
    shard_ring_free(continuum);
    shard_maglev_cleanup(&table);
    free(node_hashes);
    free(load);
    shard_ring_free(ring);
    shard_hasher_cleanup(&hasher);
    shard_hasher_cleanup(&md5);
    return 0;
}
