/* run_int.h: what the files of run/ share and no other folder calls
 * (moved out of their modules' headers, which run.h gathers as the
 * folder's face). Private to run/. */
#ifndef RUNNER_RUN_INT_H
#define RUNNER_RUN_INT_H

#include "machine_facts.h"
#include "shard.h"
#include "sweep.h"

/* "runner: warning: ..." without "\n" when m is not fit to measure on
 * with jobs points at once (machine_judge's noisy findings); NULL when it
 * is fit, or out of memory. malloc'd. */
char *machine_facts_warning(const machine_facts *m, int jobs);

/* 1 when the point with this identity is shard's to run (always when the
 * sweep is not sharded). */
int shard_includes(const shard_spec *shard, const char *identity);

/* Runs every point of g with lp's plugin and stores them, in point order
 * whatever run->options->jobs is; under MPI (mpi_pool_size() > 1) the worker ranks
 * run the points, or every rank runs each one for a collective plugin
 * (docs/mpi.md). On return *rows
 * (when rows is not NULL) is a new table of the section's rows: every
 * parameter, then every output column; the caller frees it. Failed points
 * are counted and reported on stderr, not returned as errors. Returns 0, or
 * -1 with *err when storing failed (the sweep cannot go on). */
int sweep_run_section(sweep_run *run, const loaded_plugin *lp, const grid *g,
                      const sweep_section_options *options, table **rows, char **err);
void sweep_run_free(sweep_run *run); /* frees the bookkeeping, not the store */

#endif
