/* store_merge: merging the databases of a sharded sweep's shards (`runner
 * merge`, docs/slurm.md) into one sweep equal to a single-process run. */
#ifndef RUNNER_STORE_MERGE_H
#define RUNNER_STORE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct store_merge_result {
    int64_t sweep_id;            /* the merged sweep in the output database */
    int already;                 /* it was there from an earlier merge: nothing written */
    int failed;                  /* some points failed (status 'failed') */
    int64_t points, rows;
} store_merge_result;

/* Merges the newest sharded sweep of each of the count databases at paths
 * into one new sweep of s, recorded with command_line. Refuses (-1, *err
 * naming the field) shards that do not belong together: shard count,
 * script SHA-256, sweep seed, overrides, runner and schema version,
 * plugins' .so SHA-256, sections; a shard index given twice; and, naming
 * them and the points they lack, shards missing or not finished. Nothing is
 * written then. A merge already in s is not done again (result->already). */
int store_merge(store *s, const char *const *paths, size_t count, const char *command_line,
                store_merge_result *result, char **err);

#endif
