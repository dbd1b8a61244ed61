/* bench_sharding: keys placed per second on a consistent-hash ring (1000
 * nodes x 120 points), against the bare hash's rate on the same keys in the
 * same run, and against the 10 M keys/s/core target. Not a test: ratios are
 * what to compare across machines (docs/performance.md).
 *
 * usage: bench_sharding [keys] [xxh64|md5]   (default 10000000 xxh64) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model.h"

#define TARGET_KEYS_PER_S 10e6

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    uint64_t keys = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *hash_name = argc > 2 ? argv[2] : "xxh64";
    const uint32_t nodes = 1000, vnodes = 120;
    shard_hash_kind kind;
    if (keys == 0 || shard_hash_parse(hash_name, &kind) != 0) {
        fprintf(stderr, "usage: bench_sharding [keys >= 1] [xxh64|md5]\n");
        return 2;
    }

    shard_hasher hasher;
    if (shard_hasher_init(&hasher, kind, 0) != 0) {
        fprintf(stderr, "bench_sharding: OpenSSL libcrypto could not provide MD5\n");
        return 1;
    }
    double t0 = now_s();
    shard_ring *ring = shard_ring_new(&hasher, nodes, vnodes);
    double build_s = now_s() - t0;
    if (!ring) {
        fprintf(stderr, "bench_sharding: out of memory building the ring\n");
        shard_hasher_cleanup(&hasher);
        return 1;
    }

    /* The checksums keep the compiler from dropping either loop. */
    uint64_t hash_sum = 0, node_sum = 0;
    t0 = now_s();
    for (uint64_t i = 0; i < keys; i++)
        hash_sum += shard_key_hash(&hasher, i);
    double hash_s = now_s() - t0;

    uint64_t *load = calloc(nodes, sizeof(*load));
    t0 = now_s();
    for (uint64_t i = 0; i < keys; i++) {
        uint32_t node = shard_ring_node(ring, shard_key_hash(&hasher, i));
        node_sum += node;
        if (load)
            load[node]++;
    }
    double place_s = now_s() - t0;

    double hash_rate = (double)keys / hash_s, place_rate = (double)keys / place_s;
    printf("bench_sharding: %s, %" PRIu64 " keys, ring of %u nodes x %u points "
           "(built in %.3f s)\n", shard_hash_name(kind), keys, nodes, vnodes, build_s);
    printf("  hash only:       %8.2f M keys/s  (%.1f ns/key)\n",
           hash_rate / 1e6, 1e9 / hash_rate);
    printf("  ring placement:  %8.2f M keys/s  (%.1f ns/key)\n",
           place_rate / 1e6, 1e9 / place_rate);
    printf("  placement / hash speed: %.2f  (lookup costs %.1f ns/key)\n",
           place_rate / hash_rate, 1e9 / place_rate - 1e9 / hash_rate);
    printf("  placement / target 10 M keys/s: %.2f  %s\n", place_rate / TARGET_KEYS_PER_S,
           place_rate >= TARGET_KEYS_PER_S ? "(meets target)" : "(BELOW target)");
    printf("  checksums %016" PRIx64 " %" PRIu64 "\n", hash_sum, node_sum);

    free(load);
    shard_ring_free(ring);
    shard_hasher_cleanup(&hasher);
    return 0;
}
