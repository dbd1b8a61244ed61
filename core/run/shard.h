/* shard: which points of a sweep one `runner sweep --shard I/N` process
 * runs (docs/slurm.md, "Which shard runs a point"). Point o (its ordinal,
 * from 0) of section s (from 1) belongs to shard 1 + (o + s - 1) % N: the
 * same for any order, --jobs, rank or machine, so N processes cover every
 * point exactly once, and a shard finds its own points without building
 * anyone else's. (Runners before schema 21 used the point's identity
 * hash; sweep.shard_by tells the two apart.) */
#ifndef RUNNER_SHARD_H
#define RUNNER_SHARD_H

#include <stdint.h>

/* index counts from 1 (Slurm's --array=1-N gives SLURM_ARRAY_TASK_ID);
 * count 0 means not sharded: every point is ours. */
typedef struct shard_spec {
    uint32_t index;
    uint32_t count;
} shard_spec;

#define SHARD_COUNT_MAX 100000

/* Parses "I/N" (1 <= I <= N <= SHARD_COUNT_MAX). Returns 0, or -1 with
 * *err (malloc'd) saying what is wrong. */
int shard_parse(const char *text, shard_spec *out, char **err);
/* Shard's own points of section `section` (from 1) of `total` points: the
 * ordinals *first, *first + *stride, ... (*count of them). Not sharded:
 * every point (0, 1, total). */
void shard_own(const shard_spec *shard, uint32_t section, uint64_t total, uint64_t *first,
               uint64_t *stride, uint64_t *count);

#endif
