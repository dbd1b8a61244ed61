/* mpi_pool: MPI start and end, byte messages between rank 0 and the workers,
 * a broadcast and the plugins' allreduce. Without RUNNER_HAVE_MPI only the
 * launcher check is left, so a build without MPI refuses to run N copies of
 * the whole script. */
#include "mpi_pool.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef RUNNER_HAVE_MPI
#include <mpi.h>
#endif

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

int mpi_pool_start(char **err)
{
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
void mpi_pool_finish(void) {}
void mpi_pool_abandon(void) {}

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

int mpi_pool_start(char **err)
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
    /* Only the thread that calls mpi_pool_* uses MPI. */
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Init_thread", rc);
    pool.started = 1;
    /* Errors come back as return codes, so a failed call is reported where
     * it is understood instead of aborting the job from inside MPI. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &pool.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pool.size);
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &pool.comm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Comm_dup", rc);
    MPI_Comm_set_errhandler(pool.comm, MPI_ERRORS_RETURN);
    if (size > 1 && pool.size != size)
        return util_fail(err,
                         "the launcher announced %ld ranks but MPI sees %d; with srun use "
                         "--mpi=pmix (docs/mpi.md)",
                         size, pool.size);
    return 0;
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

int mpi_pool_rank(void) { return pool.rank; }
int mpi_pool_size(void) { return pool.size; }
void mpi_pool_abandon(void) { pool.abandoned = 1; }

void mpi_pool_finish(void)
{
    if (!pool.started || pool.abandoned)
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
        char **data = realloc(pool.send_data, cap * sizeof *data);
        if (data)
            pool.send_data = data;
        int *done = realloc(pool.send_done, cap * sizeof *done);
        if (done)
            pool.send_done = done;
        if (!requests || !data || !done)
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
static void pause_for(long ns)
{
    struct timespec t = { .tv_sec = 0, .tv_nsec = ns };
    nanosleep(&t, NULL);
}

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
