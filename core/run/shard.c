/* shard: a shard's own points, from their ordinals (shard.h). */
#include "shard.h"

#include <stdlib.h>

#include "base/util.h"
#include "run_int.h"

static int parse_number(const char *p, const char **end, uint64_t *out)
{
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > SHARD_COUNT_MAX)
            return -1;
    }
    *end = p;
    *out = v;
    return 0;
}

int shard_parse(const char *text, shard_spec *out, char **err)
{
    const char *p = text;
    uint64_t index, count;
    if (parse_number(p, &p, &index) != 0 || *p++ != '/' || parse_number(p, &p, &count) != 0 ||
        *p != '\0' || count < 1)
        return util_fail(err, "--shard %s: expected I/N, shard I of N (1 <= I <= N <= %d)", text,
                         SHARD_COUNT_MAX);
    if (index == 0)
        return util_fail(err, "--shard %s: shards count from 1 (with Slurm, --array=1-%llu)", text,
                         (unsigned long long)count);
    if (index > count)
        return util_fail(err, "--shard %s: there is no shard %llu of %llu", text,
                         (unsigned long long)index, (unsigned long long)count);
    out->index = (uint32_t)index;
    out->count = (uint32_t)count;
    return 0;
}

void shard_own(const shard_spec *shard, uint32_t section, uint64_t total, shard_walk *walk,
               uint64_t *count)
{
    if (!shard || shard->count == 0) {
        *walk = (shard_walk){ 0, 0 };
        *count = total;
        return;
    }
    uint64_t n = shard->count, section_turn = section > 0 ? (uint64_t)(section - 1) % n : 0;
    *walk = (shard_walk){ n, (shard->index - 1 + n - section_turn) % n };
    /* One point in each whole run, and maybe one in the last, partial run. */
    uint64_t runs = total / n;
    *count = runs + (shard_ordinal(walk, runs) < total);
}
