/* mpi_pool: runner's only contact with MPI (docs/mpi.md); no other file
 * includes <mpi.h>. Under mpirun or srun, rank 0 runs the script and is the
 * only rank that opens the database; the other ranks (workers) serve the
 * points rank 0 hands them (sweep_serve). Built without MPI, or started
 * without a launcher, every function is a cheap no-op: rank 0 of 1.
 *
 * Errors: functions return 0 (or 1, see each) on success and -1 with a
 * malloc'd one-line *err (caller frees) that names the MPI error.
 *
 * Threads: one thread calls the functions below (after mpi_pool_start, the
 * one that started MPI; they share the pending sends unguarded); the
 * liveness thread is mpi_pool's own. */
#ifndef RUNNER_MPI_POOL_H
#define RUNNER_MPI_POOL_H

#include <signal.h>
#include <stddef.h>

/* 1 if this runner was built with MPI (RUNNER_HAVE_MPI). */
int mpi_pool_compiled(void);

/* Starts MPI when the environment says that mpirun or srun launched this
 * process with more than one rank (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK,
 * SLURM_STEP_NUM_TASKS); otherwise does nothing, so a plain run never touches
 * MPI. Returns 0, or -1 with *err when MPI cannot start, when this build has
 * no MPI but was launched on several ranks (every rank would run the whole
 * script), or when srun started several tasks without an MPI plugin.
 *
 * Under MPI it also starts the liveness thread (docs/mpi.md, "When a rank
 * dies"): rank 0 and every worker beat to each other twice a second on a
 * communicator of their own, and a peer silent for RUNNER_MPI_LIVENESS_S
 * seconds (10 by default), or one that says it stopped, is lost: the thread
 * prints one line naming its rank and host and sets *stop (the flag a
 * signal handler sets on Ctrl-C), so rank 0 ends its sweep `interrupted`
 * with what it received stored and a worker leaves. A stopped worker tells
 * rank 0, and leaves within a second even if its point ignores the stop. */
int mpi_pool_start(volatile sig_atomic_t *stop, char **err);
int mpi_pool_rank(void); /* 0 when MPI is not running */
int mpi_pool_size(void); /* 1 when MPI is not running */

/* Ends MPI if it was started: rank 0 first sends MPI_POOL_TAG_EXIT to every
 * worker, then every rank calls MPI_Finalize. After mpi_pool_abandon(), or
 * once a peer is lost, it does neither (a peer is gone or busy for good,
 * and finalizing would wait for it): rank 0 calls MPI_Abort with
 * exit_status (1 if 0), so mpirun or srun ends the job at once, and a
 * worker just returns and exits. */
void mpi_pool_finish(int exit_status);
void mpi_pool_abandon(void);
/* 1 once the liveness thread has lost a peer (see mpi_pool_start). */
int mpi_pool_peer_lost(void);

/* Tags 1 .. MPI_POOL_TAG_EXIT - 1 are the caller's (sweep.c's protocol). */
#define MPI_POOL_TAG_EXIT 99 /* empty: leave the serve loop */
#define MPI_POOL_ANY (-1)

/* One received message; data is malloc'd (NULL when len is 0). */
typedef struct mpi_pool_message {
    int source, tag;
    char *data;
    size_t len;
} mpi_pool_message;

/* Sends len bytes to rank `to` on runner's own communicator (a duplicate of
 * MPI_COMM_WORLD, so a plugin's collectives never see these messages). It
 * never waits for the receiver: the bytes are copied and the send completes
 * in the background (mpi_pool_receive and mpi_pool_finish see to it). */
int mpi_pool_send(int to, int tag, const void *data, size_t len, char **err);
/* Waits for a message from rank `from` with `tag` (either MPI_POOL_ANY). It
 * polls, sleeping a little longer each time nothing came (up to 1 ms; on
 * rank 0 up to 64 us until nothing came for 10 ms), so an idle rank leaves
 * its core to busy ones and a stop request is seen: once
 * *stop is set, it gives up after grace_s seconds more. stop may be NULL:
 * it then waits until the message comes or a peer is lost (-1, *err names
 * it). Returns 1 with *msg (free msg->data), 0 when it gave up, -1 with
 * *err. */
int mpi_pool_receive(int from, int tag, const volatile sig_atomic_t *stop, double grace_s,
                     mpi_pool_message *msg, char **err);
/* Rank 0's *data (len bytes; len may be 0) to every rank: on the others
 * *data becomes a malloc'd copy (NULL when empty) and *len its length. */
int mpi_pool_broadcast(char **data, size_t *len, char **err);
/* MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM) on
 * MPI_COMM_WORLD, in pieces when count exceeds an int. */
int mpi_pool_allreduce_sum(double *values, size_t count, char **err);

/* mpi_build: under MPI, every rank must run the same runner build, or the
 * messages of sweep.c's protocol could mean different things on each side
 * (docs/mpi.md). A build is named by its version and the SHA-256 of its
 * executable (/proc/self/exe), hashed once at start: any two different
 * binaries differ, whatever built them, with nothing for the build system
 * to maintain. */

/* Tags of the start-up handshake, in mpi_pool's caller range and apart
 * from sweep.c's. A stable format, so a later build can still say which
 * build a rank runs: HELLO 0 -> worker "VERSION sha256:HEX"; BUILD worker
 * -> 0 the worker's own id, then its host name. */
#define MPI_BUILD_TAG_HELLO 90
#define MPI_BUILD_TAG_BUILD 91

/* "VERSION sha256:HEX" of this process (sha256:unknown without /proc),
 * computed on the first call. */
const char *mpi_build_id(void);

/* Right after mpi_pool_start, on every rank: rank 0 sends its build id to
 * every worker and collects theirs; each worker compares. Does nothing
 * without MPI or on one rank. Returns 0 when every rank runs rank 0's
 * build; otherwise -1 on every rank that must stop: on rank 0 with *err
 * (malloc'd) naming the first rank that differs, its host and both ids; on
 * a worker that differs with *err NULL (rank 0 says why). Workers that
 * match go on serving and leave when rank 0 finishes MPI. */
int mpi_build_check(char **err);

#endif
