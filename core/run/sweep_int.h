/* sweep_int.h: what the files of the point loop share: sweep.c (a section,
 * its points run inline), sweep_point.c (a point prepared, run and written
 * in order, whoever runs it), sweep_threads.c
 * (--jobs threads), sweep_mpi.c (rank 0's side of MPI; its writer thread:
 * sweep_mpi_writer.c) and sweep_serve.c (a worker rank's side): a finished
 * point, a section's job and its reorder window, the MPI messages between
 * the ranks, and running one point.
 * Private to them; sweep.h is the public header. Shared functions are
 * sweepi_*. */
#ifndef RUNNER_SWEEP_INT_H
#define RUNNER_SWEEP_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "base/artifact.h"
#include "base/point_run.h"
#include "base/progress.h"
#include "base/wire.h"
#include "plugin/plugin.h"
#include "sweep.h"

/* A finished point waiting to be written. Owns everything but params.
 * state, index and params come first: sweepi_release_finished keeps them. */
typedef struct finished_point {
    int state; /* SLOT_FREE, SLOT_RUNNING, SLOT_DONE */
    uint64_t index;
    value *params; /* param_count values borrowing text from the grid */
    char *canonical;
    char identity[65];
    uint64_t seed;
    int skipped;                     /* already stored by an earlier run (resume) */
    int64_t stored_point_id;         /* which stored point, when skipped */
    const store_reuse_entry *reused; /* --reuse: copy this point (then skipped too) */
    int failed;
    const char *status; /* "ok", "failed", "crashed" or "timeout" */
    int interrupted;    /* cut short by a stop request: not a result */
    char *error;
    double started_at, duration_s;
    value *rows; /* row_count * column_count, owned */
    size_t row_count;
    artifact *artifacts; /* a command's files, stored with the point, owned */
    point_runs *runs;    /* a command's runs (repeats, warmup), stored with it, owned */
    char *fatal;         /* out of memory and such: stops the sweep */
} finished_point;

enum {
    SLOT_FREE = 0,
    SLOT_RUNNING,
    SLOT_DONE
};

/* A point's status by isolate_status; MPI results carry the index. */
extern const char *const sweepi_status_names[4];

/* One section being run: its points, the reorder window the workers fill
 * and the writer empties in point order, and the locks between them. */
typedef struct section_job {
    sweep_run *run;
    const runner_plugin *plugin;
    const grid *grid;
    /* The points this process runs, counted 0..count-1 (f->index, the
     * window's order; under --shard, this shard's own; else every point). */
    uint64_t count;
    uint64_t total;     /* the grid's points, the section's point_count */
    shard_walk walk;    /* point i is the grid's shard_ordinal(&walk, i) */
    int64_t section_id; /* once begun: the key of its series */
    finished_point *window;
    size_t window_size;
    /* Points in flight at most (<= window_size): small for points whose
     * rows are many (memory), large for quick small ones, where a small
     * window made threads sleep and wake for every few points. */
    size_t window_limit;
    size_t window_floor;       /* the limit never goes below this */
    uint64_t values_written;   /* parameter and row values of the points consumed */
    uint64_t next_index;       /* next point a worker may claim */
    uint64_t written;          /* points the writer has consumed */
    int cancel;                /* the writer failed: workers stop */
    store_identity_set *done;  /* identities to skip (resume), may be NULL */
    pthread_mutex_t done_lock; /* guards done */
    store_reuse_set *reuse;    /* --reuse: points other sweeps stored; read-only */
    pthread_mutex_t lock;
    /* Held by the writer inside the store while plugins may run, so that a
     * plugin calling exit() finds the store between calls (mark_exited). */
    pthread_mutex_t store_lock;
    /* A commit the lease thread made between points failed (sweep.c,
     * flush_for_lease): its message, for the writer to report; owned. */
    char *flush_err;
    pthread_cond_t slot_done; /* a worker finished a point */
    pthread_cond_t slot_free; /* the writer freed a slot */
    /* --jobs: workers allowed to claim points, the others wait. Fewer when
     * the writer is the bottleneck: a worker the writer cannot keep up with
     * only takes a core from it (sweep_threads.c). */
    int active_workers;
    double work_s;        /* workers' seconds on points since the last choice */
    uint64_t work_points; /* and the points */
    /* The point whose end wakes the writer: the last of the batch it waits
     * for, so that it wakes once per batch, not once per point. */
    uint64_t wake_at;
} section_job;

/* The grid's ordinal of the job's point i. */
static inline uint64_t sweepi_ordinal(const section_job *job, uint64_t i)
{
    return shard_ordinal(&job->walk, i);
}

/* Where a section's points run. */
typedef enum section_mode {
    SECTION_LOCAL,       /* this process: inline or --jobs threads */
    SECTION_DISTRIBUTED, /* each point on one worker rank */
    SECTION_COLLECTIVE   /* each point on every rank together */
} section_mode;

/* MPI (docs/mpi.md)
 *
 * Messages between rank 0 and the workers, each payload in wire.c's bytes:
 *   SECTION  0 -> all     plugin name, its .so's sha256, collective, isolate,
 *                         point timeout, command; for a command (1) its
 *                         declaration (exec_command_encode), which the
 *                         workers build themselves: they never run the
 *                         script, and the sha256 is then the program's
 *   READY    worker -> 0  ok, and why not ("rank 2 on node7: ...")
 *   POINTS   0 -> worker  n, then per point: index, seed, parameter cells;
 *                         n grows with the points' measured time (sweep_mpi.c)
 *   RESULTS  worker -> 0  n, then per point: index, status, interrupted,
 *                         started_at, duration_s, outcome (wire_put_outcome),
 *                         artifacts (sweepi_put_artifacts: a command's);
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

/* sweep_point.c: the section's common steps. */

/* The window the points written so far allow; the job's lock is held. */
size_t sweepi_window_limit(const section_job *job);
/* Fills f->params, f->canonical, f->identity and f->seed for point f->index,
 * and marks it skipped when it is another shard's, stored by an earlier run
 * (resume) or copied (--reuse). Sets f->fatal when memory runs out. */
void sweepi_prepare_point(section_job *job, finished_point *f);
/* Prepares and runs point f->index into f, using the caller's point. */
void sweepi_compute_point(section_job *job, runner_point *point, finished_point *f);
/* The writer's step for each point in turn: reports it if it failed,
 * stores it and empties its slot. Returns 1 when the sweep stops here
 * (failed points reached the limit the options set), 0 to go on, -1 with
 * *err. */
int sweepi_write_in_turn(section_job *job, int64_t section_id, finished_point *f, table *result,
                         progress *bar, char **err);
/* The same step without emptying the slot: --jobs threads leave that to the
 * slot's next claimer (sweepi_release_finished), which allocated the rows. */
int sweepi_store_in_turn(section_job *job, int64_t section_id, finished_point *f, table *result,
                         progress *bar, char **err);

/* sweep_threads.c: --jobs N (N > 1) threads run the points, the caller
 * writes them. Returns 0 (interrupted or not), or -1 with *err. */
int sweepi_run_threads(section_job *job, int jobs, int64_t section_id, table *result, progress *bar,
                       char **err);

/* sweep_mpi.c: rank 0's side. sweepi_remote_mode says where the points run
 * and sizes the window for it; the two others run a section so. Each
 * returns 0 (interrupted or not), or -1 with *err when communication or
 * storing failed. */
section_mode sweepi_remote_mode(section_job *job);
int sweepi_run_distributed(section_job *job, const loaded_plugin *lp, int64_t section_id,
                           table *result, progress *bar, char **err);
int sweepi_run_collective(section_job *job, const loaded_plugin *lp, int64_t section_id,
                          table *result, progress *bar, char **err);

/* sweep_mpi_writer.c: rank 0's writer thread for a distributed section,
 * which stores the points the MPI thread hands over in point order; it
 * makes no MPI call. The MPI thread claims slots before preparing points
 * in them and hands them over done; it reads the writer's progress, never
 * job->written directly. Functions without a return value cannot fail. */
typedef struct mpi_writer mpi_writer;
/* Starts the writer; returns 0 with *writer, or -1 with *err. */
int sweepi_writer_start(section_job *job, int64_t section_id, table *result, progress *bar,
                        mpi_writer **writer, char **err);
/* Marks points [first, first + count) running, with their indices. */
void sweepi_writer_claim(mpi_writer *w, uint64_t first, uint64_t count);
/* The points `indices` (count of them, claimed) are done: the writer's now. */
void sweepi_writer_hand_over(mpi_writer *w, const uint64_t *indices, size_t count);
/* The points written and the window's limit now; returns 1 once the writer
 * has left (all written, stopped at a point, or failed). */
int sweepi_writer_progress(mpi_writer *w, uint64_t *written, size_t *window_limit);
/* While the writer is busy (the point at `written`, the head, is done),
 * waits until it has written more or left. Returns 1 when it has (written
 * more than `written`, or left), 0 when it waits for the head's result. */
int sweepi_writer_wait(mpi_writer *w, uint64_t written);
/* Tells the writer nothing more comes: it writes the done points in a row
 * and leaves. Joins it and frees w (NULL: nothing to do). Sets *interrupted
 * when it met a point cut short by a stop request. Returns 0, or -1 when
 * storing failed, with the store's message in *err unless *err was set. */
int sweepi_writer_finish(mpi_writer *w, int *interrupted, char **err);

/* sweep_serve.c: a point's artifacts in a RESULTS message: a u32 count,
 * then per artifact its name, sha256 and bytes. get returns 0 with *list
 * (NULL when none; the caller frees it), or -1 with nothing allocated. */
void sweepi_put_artifacts(wire_writer *w, const artifact *list);
int sweepi_get_artifacts(wire_reader *r, artifact **list);
/* ... then its runs: a u32 count (0: none) and each run's fields. */
void sweepi_put_runs(wire_writer *w, const point_runs *runs);
int sweepi_get_runs(wire_reader *r, point_runs **runs);

/* 1 once a stop request (SIGINT, SIGTERM) came: start no more points. */
int sweepi_stopping(const sweep_run *run);
/* Frees what f owns and empties it, keeping its params array. */
void sweepi_clear_finished(finished_point *f, const runner_plugin *plugin);
/* The same, keeping state and index too (a claimed slot, before reuse). */
void sweepi_release_finished(finished_point *f, const runner_plugin *plugin);
/* Runs one point into f, here or (isolate) in a child (sweep_point.c says
 * how). */
void sweepi_execute_point(runner_point *point, finished_point *f, uint64_t ordinal, int isolate,
                          double timeout_s, const volatile sig_atomic_t *stop);

#endif
