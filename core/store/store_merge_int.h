/* store_merge_int.h: what store_merge.c (the merged sweep's catalog, merges
 * in parts), store_merge_check.c (reading and checking the inputs) and
 * store_merge_write.c (points and rows) share. Private to those files. */
#ifndef RUNNER_STORE_MERGE_INT_H
#define RUNNER_STORE_MERGE_INT_H

#include "store_int.h"

#define MERGE_BELONGING_FIELDS 6 /* store_merge_check.c's belonging[]: what inputs share */

/* One merge: the inputs given (shards, or merged files of some shards),
 * and what reading them found. The temporary tables temp.merge_section
 * (ordinal, plugin, point_count, new_id), temp.merge_plugin (plugin,
 * so_sha256) and temp.merge_src (one row per shard the inputs hold: where
 * it ran, which input holds it) hold their catalog. */
typedef struct merge {
    store *s;
    const char *const *paths;
    size_t count;
    int partial; /* a part of a bigger merge: shards may be missing */
    uint32_t shard_count;
    int64_t *sweep_of;  /* per input: its sharded (or merged) sweep's id there */
    char **uri_of;      /* per input: an immutable URI to read it by, or NULL */
    int64_t *rows_of;   /* per input: result rows the writer copied from it */
    int *merged_input;  /* per input: 1 when it is a merged file */
    int *absent;        /* per input: 1 when no file is there */
    size_t inputs_read; /* inputs whose catalog is in the temporary tables */
    char *reference[MERGE_BELONGING_FIELDS];
    int incomplete; /* an input is still running or was cut short, or absent */
    int any_failed;
    char started[40], ended[40]; /* the first start and the last end of the shards */
    strbuf problems;             /* one line per shard missing or not done, for the message */
} merge;

/* Runs sql with integer parameters ?1..?n on m's store, ignoring rows. */
int merge_run_sql(store *s, const char *sql, const int64_t *args, int n, const char *what,
                  char **err);
/* The first column of sql's first row as an integer (0 without a row). */
int merge_query_int(store *s, const char *sql, const int64_t *args, int n, int64_t *out,
                    const char *what, char **err);

/* Reads every input into the temporary tables and checks that they belong
 * together, are finished and (unless m->partial) hold every point; -1 with
 * *err saying what is missing, one shard per line. Inputs left with -wal
 * and -shm files are checkpointed first, so each is read as immutable. */
int merge_read_inputs(merge *m, char **err);
/* Drops the temporary tables. */
void merge_drop_temp(store *s);

/* The descriptors one input costs while the writer reads it. */
int merge_input_descriptors(const merge *m, size_t k);

/* Writes every section's points and rows of the merged sweep sweep_id into
 * s, in point order from the first free point id, committing as it goes
 * (a merge cut short leaves the sweep 'running'). *rows: rows written;
 * m->rows_of: per input. */
int store_merge_write_points(merge *m, int64_t sweep_id, int64_t *rows, char **err);

#endif
