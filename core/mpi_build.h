/* mpi_build: under MPI, every rank must run the same runner build, or the
 * messages of sweep.c's protocol could mean different things on each side
 * (docs/mpi.md). A build is named by its version and the SHA-256 of its
 * executable (/proc/self/exe), hashed once at start: any two different
 * binaries differ, whatever built them, with nothing for the build system
 * to maintain. */
#ifndef RUNNER_MPI_BUILD_H
#define RUNNER_MPI_BUILD_H

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
