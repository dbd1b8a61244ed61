/* shard: which points of a sweep one `runner sweep --shard I/N` process
 * runs (docs/slurm.md). A point belongs to shard 1 + h % N, h being the
 * first 64 bits of its identity (param.c's SHA-256 of plugin, version,
 * parameters and sweep seed): the same for any order, --jobs, rank or
 * machine, so N processes cover every point exactly once. */
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
/* The shard (1..count) of the point with this identity (64 hex digits). */
uint32_t shard_of(const char *identity, uint32_t count);

#endif
