/* store_merge_int.h: what store_merge.c (checking the shards, the merged
 * sweep's catalog) shares with store_merge_write.c (its points and rows).
 * Private to those two files. */
#ifndef RUNNER_STORE_MERGE_INT_H
#define RUNNER_STORE_MERGE_INT_H

#include "store_int.h"

#define MERGE_BELONGING_FIELDS 5 /* store_merge.c's belonging[]: what shards must share */

/* One merge: the shards given, and what reading them found. The temporary
 * tables temp.merge_section (ordinal, plugin, point_count, new_id) and
 * temp.merge_plugin (plugin, so_sha256) hold their catalog. */
typedef struct merge {
    store *s;
    const char *const *paths;
    size_t count;
    uint32_t shard_count;
    uint32_t *index_of; /* per path: its shard index */
    int64_t *sweep_of;  /* per path: its sharded sweep's id there */
    char *reference[MERGE_BELONGING_FIELDS];
    int incomplete; /* a shard is still running or was cut short */
    int any_failed;
    char started[40], ended[40]; /* the first start and the last end of the shards */
    strbuf problems;             /* what is missing or incomplete, for the message */
} merge;

/* Writes every section's points and rows of the merged sweep sweep_id into
 * s, in point order from the first free point id, committing as it goes
 * (a merge cut short leaves the sweep 'running'). *rows: rows written. */
int store_merge_write_points(merge *m, int64_t sweep_id, int64_t *rows, char **err);

#endif
