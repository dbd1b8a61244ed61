/* test_shard_walk: which shard runs a point (run/shard.c, docs/slurm.md
 * "Which shard runs a point"). For grids of many sizes, N shards and
 * sections: every point is in exactly one shard, the one the documented
 * rule 1 + (o + o / N + s - 1) % N names; each shard walks its own points in
 * point order and counts them exactly; shard sizes differ by at most one;
 * the walk's index comes back from an ordinal; an axis of N values (or two
 * whose product is N) is spread over every shard. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "run/shard.h"

static void test_cover(uint64_t total, uint32_t n, uint32_t section)
{
    unsigned char *seen = calloc(total ? total : 1, 1);
    CHECK(seen != NULL);
    if (!seen)
        return;
    uint64_t least = UINT64_MAX, most = 0;
    for (uint32_t k = 1; k <= n; k++) {
        shard_spec shard = { k, n };
        shard_walk walk;
        uint64_t count;
        shard_own(&shard, section, total, &walk, &count);
        least = count < least ? count : least;
        most = count > most ? count : most;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t o = shard_ordinal(&walk, i);
            CHECK(o < total);
            if (o >= total)
                break;
            CHECK(i == 0 || o > shard_ordinal(&walk, i - 1));
            CHECK_INT_EQ(1 + (o + o / n + section - 1) % n, k);
            CHECK_INT_EQ(shard_walk_index(&walk, o), i);
            seen[o]++;
        }
    }
    for (uint64_t o = 0; o < total; o++)
        CHECK_INT_EQ(seen[o], 1);
    CHECK(most - least <= 1);
    free(seen);
}

/* A grid {a = A values} x {b = B values}, the last axis varying fastest:
 * how many shards each value of the axis of `values` lands in. */
static void test_axes_spread(uint32_t n, uint64_t a, uint64_t b)
{
    uint64_t total = a * b;
    for (uint64_t v = 0; v < b; v++) {
        uint32_t shards_seen = 0;
        for (uint32_t k = 1; k <= n; k++) {
            shard_spec shard = { k, n };
            shard_walk walk;
            uint64_t count;
            shard_own(&shard, 1, total, &walk, &count);
            int has = 0;
            for (uint64_t i = 0; i < count && !has; i++)
                has = shard_ordinal(&walk, i) % b == v;
            shards_seen += has;
        }
        /* With the plain rule (o % N) every value of an axis of N would be
         * one shard's alone. */
        CHECK_INT_EQ(shards_seen, n);
    }
}

int main(void)
{
    static const uint64_t totals[] = { 0, 1, 2, 5, 7, 12, 64, 100, 999, 1000, 1001, 4097 };
    static const uint32_t counts[] = { 1, 2, 3, 7, 8, 64, 1000 };
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (uint32_t section = 1; section <= 3; section++)
                test_cover(totals[t], counts[c], section);
    /* Not sharded: every point, in order. */
    shard_walk walk;
    uint64_t count;
    shard_own(&(shard_spec){ 0, 0 }, 2, 10, &walk, &count);
    CHECK_INT_EQ(count, 10);
    CHECK_INT_EQ(shard_ordinal(&walk, 7), 7);
    test_axes_spread(4, 10, 4); /* threads = {1, 2, 4, 8} last, 4 shards */
    test_axes_spread(8, 16, 8);
    test_axes_spread(4, 6, 2); /* an axis of 2 over 4 shards: still all four */
    return check_failures > 100 ? 100 : check_failures;
}
