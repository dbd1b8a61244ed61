/* shard: a point's shard from its identity (shard.h). */
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

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : 0;
}

uint32_t shard_of(const char *identity, uint32_t count)
{
    uint64_t h = 0;
    for (int i = 0; i < 16 && identity[i]; i++)
        h = h << 4 | (uint64_t)hex_digit(identity[i]);
    return count ? (uint32_t)(h % count) + 1 : 1;
}

int shard_includes(const shard_spec *shard, const char *identity)
{
    return !shard || shard->count == 0 || shard_of(identity, shard->count) == shard->index;
}
