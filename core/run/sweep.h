/* sweep: runs the points of one section (one `sweep` call of a script) and
 * hands each finished point, with its rows, to the store. The Lua side
 * (script.c) builds the grid; this module owns the loop. */
#ifndef RUNNER_SWEEP_H
#define RUNNER_SWEEP_H

#include <signal.h>
#include <stdint.h>
#include "base/table.h"
#include "plugin/plugin.h"
#include "shard.h"
#include "store/store.h"

typedef struct sweep_run {
    store *store; /* borrowed */
    int64_t sweep_id;
    uint64_t seed;                     /* the sweep seed */
    const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM */
    int section_count;
    uint64_t points_ok, points_failed;
    int interrupted;         /* a stop request cut a section short */
    int quiet;               /* no progress line */
    int jobs;                /* threads running points (1: inline) */
    int resume;              /* skip points an earlier run stored */
    int isolate;             /* each point in a child process */
    double point_timeout_s;  /* with isolate: kill a point after this */
    uint64_t points_skipped; /* already stored, not run again */
    shard_spec shard;        /* --shard: run only this shard's points */
    int reuse;               /* copy points other sweeps stored (--reuse) */
    uint64_t points_reused;  /* of points_ok: copied, not run */
    char **recorded_plugins; /* names already in sweep_plugin */
    size_t recorded_count;
    int ranks_not_ready; /* under MPI, a rank could not run the last
                                          * section's plugin: it stopped, not storing */
} sweep_run;

typedef struct sweep_section_options {
    const char *title; /* may be NULL */
    int script_line;   /* 0 when unknown */
    int fail_fast;     /* stop at the first failed point */
} sweep_section_options;

/* Runs every point of g with lp's plugin and stores them, in point order
 * whatever run->jobs is; under MPI (mpi_pool_size() > 1) the worker ranks
 * run the points, or every rank runs each one for a collective plugin
 * (docs/mpi.md). On return *rows
 * (when rows is not NULL) is a new table of the section's rows: every
 * parameter, then every output column; the caller frees it. Failed points
 * are counted and reported on stderr, not returned as errors. Returns 0, or
 * -1 with *err when storing failed (the sweep cannot go on). */
int sweep_run_section(sweep_run *run, const loaded_plugin *lp, const grid *g,
                      const sweep_section_options *options, table **rows, char **err);
void sweep_run_free(sweep_run *run); /* frees the bookkeeping, not the store */

/* The whole life of an MPI worker (a rank other than 0, docs/mpi.md): runs
 * the points that rank 0's sweep_run_section hands out, section after
 * section, until rank 0 says to exit. Plugins come from plugin_dirs and the
 * usual search path, like rank 0's; each must be the same file as rank 0's
 * (same sha256). Never opens the database. Returns the exit status: 0, or 2
 * after a communication error (printed on stderr; MPI is then abandoned). */
int sweep_serve(const char *const *plugin_dirs, const volatile sig_atomic_t *stop);

#endif
