/* sweep_int.h: what sweep.c (the point loop, and rank 0's side of MPI) and
 * sweep_serve.c (a worker rank's side) share: a finished point, the MPI
 * messages between the ranks, and running one point. Private to the two;
 * sweep.h is the public header. Shared functions are sweepi_*. */
#ifndef RUNNER_SWEEP_INT_H
#define RUNNER_SWEEP_INT_H

#include <signal.h>
#include <stdint.h>

#include "plugin/plugin.h"
#include "sweep.h"

/* A finished point waiting to be written. Owns everything but params. */
typedef struct finished_point {
    int state; /* SLOT_FREE, SLOT_RUNNING, SLOT_DONE */
    uint64_t index;
    value *params; /* param_count values borrowing text from the grid */
    char *canonical;
    char identity[65];
    uint64_t seed;
    int skipped;                     /* already stored by an earlier run (resume) */
    int64_t stored_point_id;         /* which stored point, when skipped */
    int elsewhere;                   /* skipped: another shard's point (--shard) */
    const store_reuse_entry *reused; /* --reuse: copy this point (then skipped too) */
    int failed;
    const char *status; /* "ok", "failed", "crashed" or "timeout" */
    int interrupted;    /* cut short by a stop request: not a result */
    char *error;
    double started_at, duration_s;
    value *rows; /* row_count * column_count, owned */
    size_t row_count;
    artifact *artifacts; /* a command's files, stored with the point, owned */
    char *fatal;         /* out of memory and such: stops the sweep */
} finished_point;

enum {
    SLOT_FREE = 0,
    SLOT_RUNNING,
    SLOT_DONE
};

/* A point's status by isolate_status; MPI results carry the index. */
extern const char *const sweepi_status_names[4];

/* MPI (docs/mpi.md)
 *
 * Messages between rank 0 and the workers, each payload in wire.c's bytes:
 *   SECTION  0 -> all     plugin name, its .so's sha256, collective, isolate,
 *                         point timeout
 *   READY    worker -> 0  ok, and why not ("rank 2 on node7: ...")
 *   POINTS   0 -> worker  n, then per point: index, seed, parameter cells;
 *                         n grows with the points' measured time (sweep.c)
 *   RESULTS  worker -> 0  n, then per point: index, status, interrupted,
 *                         started_at, duration_s, outcome (wire_put_outcome);
 *                         sent within about 1 ms of the first point in it
 *   END      0 -> worker  the section is over
 *   STATUS   worker -> 0  after each collective point: failed, interrupted,
 *                         error
 * A collective section sends its points with mpi_pool_broadcast instead of
 * POINTS; an empty broadcast ends it. Rank 0 computes and checks every
 * point's identity and seed, so workers need neither the grid nor the
 * sweep seed, and a point's rows cannot depend on the rank that ran it. */
enum {
    TAG_SECTION = 1,
    TAG_READY,
    TAG_POINTS,
    TAG_RESULTS,
    TAG_END,
    TAG_STATUS
};

/* 1 once a stop request (SIGINT, SIGTERM) came: start no more points. */
int sweepi_stopping(const sweep_run *run);
/* Frees what f owns and empties it, keeping its params array. */
void sweepi_clear_finished(finished_point *f, const runner_plugin *plugin);
/* Runs one point into f, here or (isolate) in a child (sweep.c says how). */
void sweepi_execute_point(runner_point *point, finished_point *f, int isolate, double timeout_s,
                          const volatile sig_atomic_t *stop);

#endif
