/* mpi_pool: MPI start and end, byte messages between rank 0 and the workers,
 * a broadcast and the plugins' allreduce. Without RUNNER_HAVE_MPI only the
 * launcher check is left, so a build without MPI refuses to run N copies of
 * the whole script. */
#include "mpi_pool.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef RUNNER_HAVE_MPI
#include <mpi.h>
#endif

#include "base/exit_status.h"
#include "base/log.h"
#include "base/provenance.h"
#include "base/util.h"

/* The number of ranks the launcher's environment announces: > 1 when
 * launched on several ranks, 1 when not launched (or on one rank), 0 when
 * launched by a PMIx launcher that does not say how many. */
static long env_world_size(void)
{
    static const char *const sizes[] = {
        "OMPI_COMM_WORLD_SIZE", /* Open MPI's mpirun */
        "PMI_SIZE",             /* MPICH's hydra, srun --mpi=pmi2 */
        NULL,
    };
    for (const char *const *name = sizes; *name; name++) {
        const char *v = getenv(*name);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    if (getenv("PMIX_RANK")) /* srun --mpi=pmix, prterun */
        return 0;
    const char *tasks = getenv("SLURM_STEP_NUM_TASKS");
    return tasks && *tasks ? strtol(tasks, NULL, 10) : 1;
}

int mpi_pool_compiled(void)
{
#ifdef RUNNER_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

#ifndef RUNNER_HAVE_MPI

int mpi_pool_start(volatile sig_atomic_t *stop, char **err)
{
    (void)stop;
    long size = env_world_size();
    if (size == 1)
        return 0;
    char ranks[32] = "several";
    if (size > 1)
        snprintf(ranks, sizeof ranks, "%ld", size);
    return util_fail(err,
                     "launched on %s ranks by mpirun or srun, but this runner was built "
                     "without MPI, so every rank would run the whole script; install "
                     "libopenmpi-dev and rebuild (docs/mpi.md)",
                     ranks);
}

int mpi_pool_rank(void) { return 0; }
int mpi_pool_size(void) { return 1; }
void mpi_pool_finish(int exit_status) { (void)exit_status; }
void mpi_pool_abandon(void) {}
int mpi_pool_peer_lost(void) { return 0; }

int mpi_pool_send(int to, int tag, const void *data, size_t len, char **err)
{
    (void)to, (void)tag, (void)data, (void)len;
    return util_fail(err, "MPI is not running");
}

int mpi_pool_receive(int from, int tag, const volatile sig_atomic_t *stop, double grace_s,
                     mpi_pool_message *msg, char **err)
{
    (void)from, (void)tag, (void)stop, (void)grace_s;
    memset(msg, 0, sizeof *msg);
    return util_fail(err, "MPI is not running");
}

int mpi_pool_broadcast(char **data, size_t *len, char **err)
{
    (void)data, (void)len, (void)err;
    return 0; /* one rank: it already has the data */
}

int mpi_pool_allreduce_sum(double *values, size_t count, char **err)
{
    (void)values, (void)count, (void)err;
    return 0; /* one rank: the sum is the values */
}

#else /* RUNNER_HAVE_MPI */

/* 1 if a process-management interface is there for MPI_Init to talk to. */
static int env_has_pmi(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") ||
           getenv("PMI_FD");
}

static struct {
    int started;
    int abandoned;
    int rank, size;
    MPI_Comm comm; /* runner's own messages */
    /* Sends not yet completed: MPI owns send_data[i] until send_requests[i]
     * completes; parallel arrays so one MPI_Testsome checks them all. */
    MPI_Request *send_requests;
    char **send_data;
    int *send_done; /* MPI_Testsome's indices */
    size_t send_count, send_capacity;
} pool = { .size = 1 };

/* Liveness (docs/mpi.md, "When a rank dies"): a thread of its own on each
 * rank, on a communicator of its own, so a long point, a long write or a
 * blocking collective never silences it. Rank 0 and each worker send each
 * other a beat every LIVE_BEAT_S; a peer heard from for none of
 * live.timeout_s is lost (its process is gone, stopped or cut off), as is
 * one that says it leaves. Losing one sets the stop flag (the Ctrl-C
 * path), and at the end rank 0 aborts the job instead of finalizing. */
#define LIVE_BEAT_S 0.5
#define LIVE_POLL_NS 10000000L      /* 10 ms between probes */
#define LIVE_TIMEOUT_DEFAULT_S 10.0 /* RUNNER_MPI_LIVENESS_S changes it */
#define LIVE_TIMEOUT_MIN_S 2.0
/* A stopped worker has nothing to store, but it waits for rank 0's BYE
 * (at most LIVE_WORKER_LINGER_S) before it leaves: Open MPI's mpirun
 * SIGKILLs the processes left as soon as the others have exited after its
 * SIGTERM, which would leave rank 0 no time to commit and mark its sweep.
 * A point deaf to should_stop is left after LIVE_WORKER_EXIT_S. */
#define LIVE_WORKER_LINGER_S 2.0
#define LIVE_WORKER_EXIT_S 3.0
/* Rank 0 ends its sweep (commit, interrupted) once a peer is lost; stuck
 * in a collective with a dead peer it cannot, so the thread aborts the job
 * after this long. */
#define LIVE_ABORT_AFTER_S 10.0
#define LIVE_HOST_MAX 256
enum {
    LIVE_TAG_BEAT = 1,
    LIVE_TAG_LEAVING, /* worker -> 0: stopped, leaving */
    LIVE_TAG_BYE      /* 0 -> worker: rank 0 has ended its sweep, leave now */
};

static struct {
    int running;
    pthread_t thread;
    atomic_int quit;
    atomic_int lost;      /* a peer is lost (rank 0: a worker; a worker: rank 0) */
    atomic_int ending;    /* rank 0 is past its command: no late abort */
    atomic_int told;      /* a stopped worker has told rank 0 it leaves */
    atomic_int bye;       /* a worker got rank 0's BYE */
    atomic_int finishing; /* the main thread is in mpi_pool_finish */
    MPI_Comm comm;
    double timeout_s;
    volatile sig_atomic_t *stop;
    char *hosts;        /* size * LIVE_HOST_MAX: each rank's host name */
    double *heard;      /* per rank: when it was last heard from (thread only) */
    MPI_Request *beats; /* per rank: the beat on its way (thread only) */
    char why[640];      /* the lost peer, for mpi_pool_receive without a stop */
} live;

/* Sets *err to what MPI says about rc; returns -1. */
static int mpi_fail(char **err, const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        len = 0;
    text[len] = '\0';
    return util_fail(err, "MPI: %s failed on rank %d of %d: %s", what, pool.rank, pool.size,
                     len ? text : "unknown error");
}

static int live_start(volatile sig_atomic_t *stop, char **err);

/* Each worker waits for a message from rank 0 before it sends anything.
 * Workers leave MPI_Init first, and their first collective then connected
 * to a rank 0 still inside it: under load, Open MPI 4.1's TCP transport
 * crashed rank 0 there now and then (a call through a null callback, seen
 * across nodes in test_multinode). Rank 0 opening each connection avoids
 * that race. */
static int greet_workers(void)
{
    int hello = 1;
    if (pool.rank != 0)
        return MPI_Recv(&hello, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = 1; r < pool.size; r++) {
        int rc = MPI_Send(&hello, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int mpi_pool_start(volatile sig_atomic_t *stop, char **err)
{
    if (pool.started)
        return 0;
    long size = env_world_size();
    if (size == 1)
        return 0;
    if (!env_has_pmi())
        return util_fail(err,
                         "srun started %ld tasks without an MPI plugin, so each would run "
                         "the whole script alone; use srun --mpi=pmix (docs/mpi.md)",
                         size);
    int provided = 0;
    /* The thread that calls mpi_pool_* and the liveness thread use MPI,
     * each on its own communicator (rank 0's writer thread makes no MPI
     * call). Without MPI_THREAD_MULTIPLE there is no liveness thread. */
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Init_thread", rc);
    pool.started = 1;
    /* Errors come back as return codes, so a failed call is reported where
     * it is understood instead of aborting the job from inside MPI. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &pool.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pool.size);
    rc = greet_workers();
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "the first message between rank 0 and the workers", rc);
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &pool.comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Comm_dup", rc);
    MPI_Comm_set_errhandler(pool.comm, MPI_ERRORS_RETURN);
    if (size > 1 && pool.size != size)
        return util_fail(err,
                         "the launcher announced %ld ranks but MPI sees %d; with srun use "
                         "--mpi=pmix (docs/mpi.md)",
                         size, pool.size);
    if (provided < MPI_THREAD_MULTIPLE) {
        log_print(LOG_LEVEL_WARN,
                  "runner: this MPI library runs no second thread (MPI_THREAD_MULTIPLE), so "
                  "a dead rank is noticed only by the launcher (docs/mpi.md)\n");
        return 0;
    }
    return pool.size > 1 ? live_start(stop, err) : 0;
}

/* Frees the buffers of sends that completed. Returns 0 or -1 with *err. */
static int reap_sends(char **err)
{
    if (!pool.send_count)
        return 0;
    int done = 0;
    int rc = MPI_Testsome((int)pool.send_count, pool.send_requests, &done, pool.send_done,
                          MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Testsome", rc);
    if (done == MPI_UNDEFINED || done == 0)
        return 0;
    for (int i = 0; i < done; i++) {
        free(pool.send_data[pool.send_done[i]]);
        pool.send_data[pool.send_done[i]] = NULL;
    }
    /* Completed requests are MPI_REQUEST_NULL now: close the gaps. */
    size_t kept = 0;
    for (size_t i = 0; i < pool.send_count; i++)
        if (pool.send_requests[i] != MPI_REQUEST_NULL) {
            pool.send_requests[kept] = pool.send_requests[i];
            pool.send_data[kept++] = pool.send_data[i];
        }
    pool.send_count = kept;
    return 0;
}

static const char *live_host(int rank)
{
    return live.hosts ? live.hosts + (size_t)rank * LIVE_HOST_MAX : "an unknown host";
}

static void live_nap(long ns) { util_nap_s((double)ns * 1e-9); }

/* Marks `rank` lost (the first one only) and stops this process's work
 * through the stop flag. Quiet when this rank was stopping already (a
 * Ctrl-C reaches every rank, and workers leave at once). */
static void live_lose(int rank, const char *what)
{
    if (atomic_exchange(&live.lost, 1))
        return;
    if (pool.rank == 0)
        snprintf(live.why, sizeof live.why, "rank %d on %s %s", rank, live_host(rank), what);
    else
        snprintf(live.why, sizeof live.why, "rank 0 on %s %s: rank %d on %s leaves", live_host(0),
                 what, pool.rank, live_host(pool.rank));
    int was_stopping = live.stop && *live.stop;
    if (!was_stopping)
        log_print(LOG_LEVEL_ERROR, "runner: %s%s\n", live.why,
                  pool.rank == 0 ? "; ending the sweep, the points done are stored" : "");
    /* The stop flag is the one every loop of a sweep watches (a signal
     * handler sets it elsewhere); a plain store from this thread is seen
     * there within a poll. */
    if (live.stop)
        *live.stop = 1;
}

/* Sends `tag` to `to` unless the last beat to it is still on its way (a
 * peer that reads nothing must not pile them up). */
static void live_send(int to, int tag)
{
    int done = 1;
    if (live.beats[to] != MPI_REQUEST_NULL &&
        MPI_Test(&live.beats[to], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        done = 0;
    if (done)
        MPI_Isend(NULL, 0, MPI_BYTE, to, tag, live.comm, &live.beats[to]);
}

static void *live_thread(void *unused)
{
    (void)unused;
    double started = util_monotonic(), next_beat = started, stop_seen = 0, lost_at = 0;
    for (int r = 0; r < pool.size; r++)
        live.heard[r] = started;
    while (!atomic_load(&live.quit)) {
        double now = util_monotonic();
        int stopping = live.stop && *live.stop;
        /* A worker that stops tells rank 0 at once, then leaves. */
        int leaving = pool.rank != 0 && stopping;
        if (now >= next_beat || (leaving && !stop_seen)) {
            if (pool.rank == 0) {
                for (int r = 1; r < pool.size; r++)
                    live_send(r, LIVE_TAG_BEAT);
            } else {
                live_send(0, leaving ? LIVE_TAG_LEAVING : LIVE_TAG_BEAT);
                if (leaving)
                    atomic_store(&live.told, 1);
            }
            next_beat = now + LIVE_BEAT_S;
        }
        if (leaving && !stop_seen)
            stop_seen = now;
        if (leaving && now - stop_seen > LIVE_WORKER_EXIT_S) {
            if (!atomic_load(&live.finishing))
                log_print(LOG_LEVEL_WARN,
                          "runner: rank %d on %s: its point did not stop; leaving\n", pool.rank,
                          live_host(pool.rank));
            _Exit(EXIT_INTERRUPTED);
        }
        for (;;) {
            int ready = 0;
            MPI_Status status;
            if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, live.comm, &ready, &status) !=
                    MPI_SUCCESS ||
                !ready)
                break;
            MPI_Recv(NULL, 0, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, live.comm,
                     MPI_STATUS_IGNORE);
            live.heard[status.MPI_SOURCE] = now;
            if (status.MPI_TAG == LIVE_TAG_LEAVING)
                live_lose(status.MPI_SOURCE, "stopped (SIGTERM or Ctrl-C)");
            else if (status.MPI_TAG == LIVE_TAG_BYE)
                atomic_store(&live.bye, 1);
        }
        for (int r = pool.rank == 0 ? 1 : 0; r < (pool.rank == 0 ? pool.size : 1); r++)
            if (now - live.heard[r] > live.timeout_s) {
                char what[96];
                snprintf(what, sizeof what,
                         "sent nothing for %.0f s (its process is gone, stopped or cut off)",
                         live.timeout_s);
                live_lose(r, what);
            }
        if (pool.rank == 0 && atomic_load(&live.lost) && !atomic_load(&live.ending)) {
            if (!lost_at)
                lost_at = now;
            else if (now - lost_at > LIVE_ABORT_AFTER_S)
                MPI_Abort(MPI_COMM_WORLD, EXIT_INTERRUPTED); /* stuck with a dead peer */
        }
        live_nap(LIVE_POLL_NS);
    }
    return NULL;
}

/* Learns every rank's host, then starts the liveness thread. */
static int live_start(volatile sig_atomic_t *stop, char **err)
{
    live.stop = stop;
    live.timeout_s = LIVE_TIMEOUT_DEFAULT_S;
    const char *given = getenv("RUNNER_MPI_LIVENESS_S");
    if (given && *given) {
        char *end = NULL;
        double v = strtod(given, &end);
        if (*end || !(v >= LIVE_TIMEOUT_MIN_S) || v > 1e6)
            return util_fail(err, "RUNNER_MPI_LIVENESS_S is '%s'; it takes seconds, at least %g",
                             given, LIVE_TIMEOUT_MIN_S);
        live.timeout_s = v;
    }
    char here[LIVE_HOST_MAX] = "";
    provenance_host(here, sizeof here);
    live.hosts = calloc((size_t)pool.size, LIVE_HOST_MAX);
    live.heard = calloc((size_t)pool.size, sizeof *live.heard);
    live.beats = malloc((size_t)pool.size * sizeof *live.beats);
    if (!live.hosts || !live.heard || !live.beats)
        return util_fail(err, "out of memory starting MPI");
    for (int r = 0; r < pool.size; r++)
        live.beats[r] = MPI_REQUEST_NULL;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &live.comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Comm_dup", rc);
    MPI_Comm_set_errhandler(live.comm, MPI_ERRORS_RETURN);
    rc = MPI_Allgather(here, LIVE_HOST_MAX, MPI_CHAR, live.hosts, LIVE_HOST_MAX, MPI_CHAR,
                       live.comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Allgather", rc);
    for (int r = 0; r < pool.size; r++)
        live.hosts[(size_t)r * LIVE_HOST_MAX + LIVE_HOST_MAX - 1] = '\0';
    if (pthread_create(&live.thread, NULL, live_thread, NULL) != 0)
        return util_fail(err, "cannot start the MPI liveness thread");
    live.running = 1;
    return 0;
}

/* Stops the liveness thread; beats still on their way are left to MPI. A
 * stopped worker the thread had no time to announce says it leaves now. */
static void live_end(void)
{
    if (!live.running)
        return;
    atomic_store(&live.quit, 1);
    pthread_join(live.thread, NULL);
    live.running = 0;
    if (pool.rank != 0 && live.stop && *live.stop && !atomic_load(&live.told)) {
        if (live.beats[0] != MPI_REQUEST_NULL)
            MPI_Request_free(&live.beats[0]);
        MPI_Isend(NULL, 0, MPI_BYTE, 0, LIVE_TAG_LEAVING, live.comm, &live.beats[0]);
    }
    for (int r = 0; r < pool.size; r++)
        if (live.beats[r] != MPI_REQUEST_NULL)
            MPI_Request_free(&live.beats[r]);
}

int mpi_pool_peer_lost(void) { return atomic_load(&live.lost); }

/* Rank 0, its sweep ended: tells the workers waiting for it to leave
 * (briefly waiting for the sends: MPI_Abort follows). */
static void live_bye(void)
{
    if (!live.hosts)
        return;
    for (int r = 1; r < pool.size; r++)
        MPI_Isend(NULL, 0, MPI_BYTE, r, LIVE_TAG_BYE, live.comm, &live.beats[r]);
    double until = util_monotonic() + 0.1;
    int done = 0;
    while (!done && util_monotonic() < until) {
        if (MPI_Testall(pool.size - 1, live.beats + 1, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            break;
        if (!done)
            live_nap(1000000L);
    }
}

int mpi_pool_rank(void) { return pool.rank; }
int mpi_pool_size(void) { return pool.size; }
void mpi_pool_abandon(void) { pool.abandoned = 1; }

void mpi_pool_finish(int exit_status)
{
    if (!pool.started)
        return;
    atomic_store(&live.ending, 1);
    atomic_store(&live.finishing, 1);
    if (pool.rank != 0 && live.running && live.stop && *live.stop) {
        /* A stopped worker: rank 0 is told (the thread), and ends first. */
        double until = util_monotonic() + LIVE_WORKER_LINGER_S;
        while (!atomic_load(&live.bye) && !atomic_load(&live.lost) && util_monotonic() < until)
            live_nap(LIVE_POLL_NS);
    }
    live_end();
    int lost = atomic_load(&live.lost);
    if (pool.rank == 0 && (lost || pool.abandoned)) {
        live_bye();
        /* A worker is gone, or cannot be waited for: finalizing would
         * wait for it, and a launcher that keeps the job going when one
         * process dies (srun without --kill-on-bad-exit, mpirun
         * --enable-recovery) would leave the others running. */
        fflush(stdout);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, exit_status ? exit_status : 1);
    }
    if (pool.abandoned || lost)
        return;
    if (pool.rank == 0)
        for (int r = 1; r < pool.size; r++)
            mpi_pool_send(r, MPI_POOL_TAG_EXIT, NULL, 0, NULL);
    /* Every peer is alive and receiving (or the pool was abandoned). */
    if (pool.send_count)
        MPI_Waitall((int)pool.send_count, pool.send_requests, MPI_STATUSES_IGNORE);
    for (size_t i = 0; i < pool.send_count; i++)
        free(pool.send_data[i]);
    free(pool.send_requests);
    free(pool.send_data);
    free(pool.send_done);
    pool.send_requests = NULL;
    pool.send_data = NULL;
    pool.send_done = NULL;
    pool.send_count = pool.send_capacity = 0;
    MPI_Comm_free(&pool.comm);
    if (live.hosts)
        MPI_Comm_free(&live.comm);
    free(live.hosts);
    free(live.heard);
    free(live.beats);
    live.hosts = NULL;
    live.heard = NULL;
    live.beats = NULL;
    MPI_Finalize();
    pool.started = 0;
    pool.rank = 0;
    pool.size = 1;
}

int mpi_pool_send(int to, int tag, const void *data, size_t len, char **err)
{
    if (len > INT_MAX)
        return util_fail(err,
                         "a message of %zu bytes to rank %d is larger than MPI can send "
                         "at once (2 GiB); emit fewer rows per point",
                         len, to);
    if (reap_sends(err) != 0)
        return -1;
    /* Never wait for the receiver: a worker busy with a point, or gone,
     * must not stop rank 0 from writing (or from noticing a stop). */
    if (pool.send_count == pool.send_capacity) {
        size_t cap = pool.send_capacity ? pool.send_capacity * 2 : 16;
        if (cap > INT_MAX)
            return util_fail(err, "too many messages to rank %d are still on their way", to);
        MPI_Request *requests = realloc(pool.send_requests, cap * sizeof *requests);
        if (requests)
            pool.send_requests = requests;
        char **buffers = realloc(pool.send_data, cap * sizeof *buffers);
        if (buffers)
            pool.send_data = buffers;
        int *done = realloc(pool.send_done, cap * sizeof *done);
        if (done)
            pool.send_done = done;
        if (!requests || !buffers || !done)
            return util_fail(err, "out of memory sending to rank %d", to);
        pool.send_capacity = cap;
    }
    char *copy = len ? malloc(len) : NULL;
    if (len && !copy)
        return util_fail(err, "out of memory sending %zu bytes to rank %d", len, to);
    if (len)
        memcpy(copy, data, len);
    int rc = MPI_Isend(copy, (int)len, MPI_BYTE, to, tag, pool.comm,
                       &pool.send_requests[pool.send_count]);
    if (rc != MPI_SUCCESS) {
        free(copy);
        return mpi_fail(err, "MPI_Isend", rc);
    }
    pool.send_data[pool.send_count++] = copy;
    return 0;
}

/* A signal cuts the pause short, so the caller sees its stop flag at once. */
static void pause_for(long ns) { util_nap_s((double)ns * 1e-9); }

int mpi_pool_receive(int from, int tag, const volatile sig_atomic_t *stop, double grace_s,
                     mpi_pool_message *msg, char **err)
{
    memset(msg, 0, sizeof *msg);
    int source = from == MPI_POOL_ANY ? MPI_ANY_SOURCE : from;
    int want = tag == MPI_POOL_ANY ? MPI_ANY_TAG : tag;
    double stop_seen = 0;
    long sleep_ns = 1000, slept_ns = 0;
    for (int polls = 0;; polls++) {
        int ready = 0;
        MPI_Status status;
        if (pool.send_count && reap_sends(err) != 0)
            return -1;
        int rc = MPI_Iprobe(source, want, pool.comm, &ready, &status);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, "MPI_Iprobe", rc);
        if (ready) {
            int count = 0;
            MPI_Get_count(&status, MPI_BYTE, &count);
            msg->source = status.MPI_SOURCE;
            msg->tag = status.MPI_TAG;
            msg->len = (size_t)(count > 0 ? count : 0);
            msg->data = msg->len ? malloc(msg->len) : NULL;
            if (msg->len && !msg->data)
                return util_fail(err, "out of memory receiving %zu bytes from rank %d", msg->len,
                                 msg->source);
            rc = MPI_Recv(msg->data, count, MPI_BYTE, msg->source, msg->tag, pool.comm,
                          MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                free(msg->data);
                msg->data = NULL;
                return mpi_fail(err, "MPI_Recv", rc);
            }
            return 1;
        }
        if (!stop && atomic_load(&live.lost))
            return util_fail(err, "%s", live.why);
        if (stop && *stop) {
            double now = util_monotonic();
            if (!stop_seen)
                stop_seen = now;
            else if (now - stop_seen > grace_s)
                return 0;
        }
        /* Spin briefly (a reply is often on its way), then back off. Rank 0
         * naps at most 64 us at first (a longer nap left it asleep while
         * results waited, and its workers without points), up to 1 ms once
         * the wait has been long; a worker, which holds its next chunk
         * before it needs it, backs off to 1 ms at once and so leaves its
         * core to others (rank 0's writes, on a full machine). */
        if (polls < 64)
            continue;
        pause_for(sleep_ns);
        slept_ns += sleep_ns;
        if (sleep_ns < (pool.rank == 0 && slept_ns < 10000000 ? 64000 : 1000000))
            sleep_ns *= 2;
    }
}

int mpi_pool_broadcast(char **data, size_t *len, char **err)
{
    if (!pool.started || pool.size == 1)
        return 0;
    unsigned long long n = pool.rank == 0 ? (unsigned long long)*len : 0;
    int rc = MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, pool.comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Bcast", rc);
    if (n > INT_MAX)
        return util_fail(err, "a broadcast of %llu bytes is larger than MPI can send at once", n);
    if (pool.rank != 0) {
        *len = (size_t)n;
        *data = n ? malloc((size_t)n) : NULL;
        if (n && !*data)
            return util_fail(err, "out of memory receiving a broadcast of %llu bytes", n);
    }
    if (n == 0)
        return 0;
    rc = MPI_Bcast(*data, (int)n, MPI_BYTE, 0, pool.comm);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, "MPI_Bcast", rc);
}

int mpi_pool_allreduce_sum(double *values, size_t count, char **err)
{
    if (!pool.started || pool.size == 1)
        return 0;
    while (count > 0) {
        int piece = count > (size_t)INT_MAX ? INT_MAX : (int)count;
        int rc = MPI_Allreduce(MPI_IN_PLACE, values, piece, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, "MPI_Allreduce", rc);
        values += piece;
        count -= (size_t)piece;
    }
    return 0;
}

#endif /* RUNNER_HAVE_MPI */
