/* host: runner's side of the plugin ABI. One runner_point per running point
 * holds its parameter values, its random stream, the rows it emitted and its
 * error; host_table() is the function table handed to every plugin. */
#ifndef RUNNER_HOST_H
#define RUNNER_HOST_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include "base/artifact.h"
#include "base/point_run.h"
#include "base/value.h"
#include "runner/plugin.h"
#include "store/store.h"

struct runner_point {
    const runner_plugin *plugin;
    const value *params; /* borrowed, plugin->param_count values */
    uint64_t seed;
    runner_rng rng;
    value *current; /* the row being filled, column_count values */
    value *rows;    /* emitted rows, row-major */
    size_t row_count, row_capacity;
    char *error;                       /* set by fail() or by a wrong set_* call */
    const volatile sig_atomic_t *stop; /* non-zero: the user asked to stop */
    int rank, size;                    /* the ranks running this point together: 0 and 1
                                 unless it is a collective point under MPI */
    uint64_t index;                    /* for messages: the point's index in its section */
    const char *canonical;             /* for messages: its parameters as JSON; may be NULL */
    atomic_int in_run;                 /* 1 while run() runs (read by any thread) */
    atomic_int misuse;                 /* the first host call refused from a thread not
                                 running the point; written by any thread */
    /* Command experiments (exec.c): set by the command's run(). */
    int timed_out;       /* the failure was its time limit: status 'timeout' */
    artifact *artifacts; /* files to store with the point, owned */
    point_runs *runs;    /* its runs (repeats, warmup), stored with the point; owned */
    /* Series during the point (host_series.c): set by the point loop
     * before run(); series NULL: none are kept. */
    store_series *series; /* borrowed */
    store_series_key series_key;
    double sample_interval_s; /* --sample-interval; 0: no sampling */
    double began;             /* monotonic s when run() began */
    uint64_t series_kept, samples_kept, series_dropped, series_bad;
    char series_bad_first[160]; /* why the first value was refused */
    /* Resources for point_system: host_run_point fills them for a plugin
     * (its thread), a command fills them for its process tree. */
    store_point_system system;
    int system_measured; /* a command filled system */
};

const runner_host *host_table(void);

/* --- host_series.c --- */

/* Series values from a plugin's point: no more than this many a point;
 * the samples runner takes (sys.*, gpu.*) have a cap of their own. */
#define HOST_SERIES_MAX_PER_POINT 100000

/* A value runner records itself (a command's progress line, a sample):
 * reserved names allowed when sample is 1. Counts refusals like
 * host_series. Any thread that owns p for the moment. */
int host_series_add(runner_point *p, const char *name, double step, double value, int sample);
/* Notes a malformed progress line of a command (counted, said at the end). */
void host_series_refuse(runner_point *p, const char *why);

/* Prepares p for running plugin on params with the given seed, as rank 0 of
 * 1. Returns 0 or -1 (no memory). Reuse with host_point_reset; release with
 * host_point_free. A collective point under MPI sets p->rank and p->size to
 * the world's (mpi_pool.h): allreduce_sum then goes through MPI. */
int host_point_init(runner_point *p, const runner_plugin *plugin,
                    const volatile sig_atomic_t *stop);
void host_point_reset(runner_point *p, const value *params, uint64_t seed);
void host_point_free(runner_point *p);
/* Runs the plugin on the point. Returns 0 when the point succeeded, -1 when
 * it failed (p->error holds the message; emitted rows are discarded). A host
 * call that uses the point from a thread other than the one running run()
 * (docs/plugin-abi.md) is refused without touching the point, and fails it
 * with a message naming the call; so does one that arrives between two runs
 * on the same runner_point, failing the next. */
int host_run_point(runner_point *p);

#endif
