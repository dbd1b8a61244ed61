/* cli_slurm_int: what cli_slurm.c (the job scripts, submitting them) and
 * cli_slurm_shards.c (which shards are complete, the merge job's report)
 * share. Not a header of the cli face. */
#ifndef RUNNER_CLI_SLURM_INT_H
#define RUNNER_CLI_SLURM_INT_H

#include <stdint.h>

#include "base/strbuf.h"
#include "cli.h"

/* 1 when the database at path holds a finished sweep as its newest (ok,
 * or with failed points: a complete shard, or a complete partial merge);
 * 0 otherwise, with *why (malloc'd, NULL without memory) saying what it
 * holds: "no database", "interrupted (host n2, pid 812)", ... */
int slurm_file_complete(const char *path, char **why);

/* The shards 1..count of dir not complete (shard-I.db), as a Slurm
 * --array list ("3,5-7"), appended to list; *missing: how many. 0, or -1
 * without memory. */
int slurm_missing_shards(const char *dir, uint64_t count, strbuf *list, uint64_t *missing);

/* --merge-complete, the merge job's second step when `runner merge`
 * refused: merges the complete shards of dir into dir/complete.db
 * (a partial merge), names the others one per line, and prints rerun, the
 * command that runs them and merges again. Exit status: 2 (the merge did
 * not happen), also when every shard is complete (then the refusal above
 * is about something else, a partial merge missing or inputs that do not
 * belong together: it says so, with the same command). */
int slurm_merge_complete(const char *dir, uint64_t count, const char *rerun);

#endif
