/* shard: which points of a sweep one `runner sweep --shard I/N` process
 * runs (docs/slurm.md, "Which shard runs a point"). Point o (its ordinal,
 * from 0) of section s (from 1) belongs to shard 1 + (o + o / N + s - 1) %
 * N: each run of N consecutive points has one point of every shard, and the
 * shard of a run's first point moves on by one from run to run (a Latin
 * square: an axis of N values, or two whose product is N, is spread over
 * every shard). The same for any order, --jobs, rank or machine, so N
 * processes cover every point exactly once, and a shard finds its own
 * points, in point order, without building anyone else's. (Runners before
 * schema 23 used the point's identity hash; sweep.shard_by tells the two
 * apart.) */
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
/* A shard's walk through one section's points: its i-th point (from 0)
 * is in run i, at shard_ordinal(walk, i). n 0: not sharded, point i. */
typedef struct shard_walk {
    uint64_t n;        /* N */
    uint64_t rotation; /* (I - 1 - (s - 1)) mod N: its place in run 0 */
} shard_walk;

/* Shard's walk through section `section` (from 1) of `total` points, and
 * *count, how many of them are its own (all when not sharded). */
void shard_own(const shard_spec *shard, uint32_t section, uint64_t total, shard_walk *walk,
               uint64_t *count);

/* The ordinal of the walk's i-th point. */
static inline uint64_t shard_ordinal(const shard_walk *walk, uint64_t i)
{
    if (walk->n == 0)
        return i;
    return i * walk->n + (walk->rotation + walk->n - i % walk->n) % walk->n;
}

/* The walk's i whose point is ordinal (which must be the walk's). */
static inline uint64_t shard_walk_index(const shard_walk *walk, uint64_t ordinal)
{
    return walk->n ? ordinal / walk->n : ordinal;
}

#endif
