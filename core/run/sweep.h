/* sweep: runs the points of one section (one `sweep` call of a script) and
 * hands each finished point, with its rows, to the store. The Lua side
 * (script.c) builds the grid; this module owns the loop. */
#ifndef RUNNER_SWEEP_H
#define RUNNER_SWEEP_H

#include <signal.h>
#include <stdint.h>
#include "base/table.h"
#include "plugin/plugin.h"
#include "store/store.h"
#include "sweep_options.h"

/* One sweep's point loop: its options and what it counted so far. */
typedef struct sweep_run {
    const sweep_options *options; /* borrowed; never NULL */
    store *store;                 /* borrowed */
    store_lease *lease;           /* borrowed; NULL: no lease renewed */
    store_series *series;         /* series during points; owned by the lifecycle; NULL: none */
    int64_t sweep_id;
    uint64_t seed; /* the sweep seed (a resumed sweep's own, not options->seed) */
    int section_count;
    uint64_t points_ok, points_failed;
    int interrupted;         /* a stop request cut a section short */
    uint64_t points_skipped; /* already stored, not run again */
    uint64_t points_reused;  /* of points_ok: copied, not run */
    /* Why failed points stopped the last section (options->fail_fast):
     * "" when they did not; sweep_run_section empties it first. */
    char failures_stopped[128];
    char **recorded_plugins; /* names already in sweep_plugin */
    size_t recorded_count;
    int ranks_not_ready; /* under MPI, a rank could not run the last
                          * section's plugin: it stopped, not storing */
} sweep_run;

typedef struct sweep_section_options {
    const char *title; /* may be NULL */
    int script_line;   /* 0 when unknown */
} sweep_section_options;

/* The whole life of an MPI worker (a rank other than 0, docs/mpi.md): runs
 * the points that rank 0's sweep_run_section hands out, section after
 * section, until rank 0 says to exit. Plugins come from plugin_dirs and the
 * usual search path, like rank 0's; each must be the same file as rank 0's
 * (same sha256). Never opens the database. Returns the exit status: 0, or 2
 * after a communication error (printed on stderr; MPI is then abandoned). */
int sweep_serve(const char *const *plugin_dirs, const volatile sig_atomic_t *stop);

#endif
