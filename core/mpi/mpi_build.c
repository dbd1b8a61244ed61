/* mpi_build: the start-up check that every rank runs rank 0's runner build
 * (version and executable SHA-256); see mpi_pool.h. */
#include "mpi_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"
#include "base/provenance.h"
#include "base/util.h"
#include "base/wire.h"

const char *mpi_build_id(void)
{
    static char id[160];
    if (!id[0]) {
        char hex[DIGEST_HEX_SIZE];
        if (digest_file_sha256_hex("/proc/self/exe", hex) != 0)
            snprintf(hex, sizeof hex, "unknown");
        snprintf(id, sizeof id, "%s sha256:%s", RUNNER_VERSION, hex);
    }
    return id;
}

/* "version 1.2.0, sha256 0123456789abcdef..." of an id, for a person. */
static void describe(const char *id, char *out, size_t size)
{
    const char *sha = strstr(id, " sha256:");
    int version_len = sha ? (int)(sha - id) : (int)strlen(id);
    snprintf(out, size, "version %.*s, sha256 %.16s...", version_len, id,
             sha ? sha + 8 : "unknown");
}

/* A worker: waits for rank 0's id, answers with its own and its host.
 * Returns 0 when they match, -1 with *err NULL when they differ, -1 with
 * *err when the handshake itself failed. */
static int worker_check(char **err)
{
    mpi_pool_message msg;
    if (mpi_pool_receive(0, MPI_POOL_ANY, NULL, 0, &msg, err) < 0) {
        mpi_pool_abandon();
        return -1;
    }
    if (msg.tag != MPI_BUILD_TAG_HELLO) {
        free(msg.data);
        mpi_pool_abandon();
        return util_fail(err,
                         "rank %d: rank 0 runs another runner build (it did not send "
                         "its build id); every rank needs the same runner",
                         mpi_pool_rank());
    }
    wire_reader r = wire_reader_of(msg.data, msg.len);
    char *theirs = wire_get_text(&r);
    free(msg.data);
    char host[256];
    provenance_host(host, sizeof host);
    wire_writer w = { 0 };
    wire_put_text(&w, mpi_build_id());
    wire_put_text(&w, host);
    int rc = w.failed ? util_fail(err, "out of memory")
                      : mpi_pool_send(0, MPI_BUILD_TAG_BUILD, w.data, w.len, err);
    wire_writer_free(&w);
    if (rc != 0)
        mpi_pool_abandon(); /* rank 0 is unreachable: the launcher ends the job */
    else if (!theirs || strcmp(theirs, mpi_build_id()) != 0)
        rc = -1; /* rank 0 reports it, and MPI ends cleanly */
    free(theirs);
    return rc;
}

/* Rank 0: sends its id to every worker, then reads every answer. Returns 0,
 * or -1 with *err naming the lowest rank that differs. */
static int coordinator_check(char **err)
{
    int size = mpi_pool_size(), differing = 0, first_rank = size;
    char *first = NULL; /* about the lowest rank that differs */
    wire_writer w = { 0 };
    wire_put_text(&w, mpi_build_id());
    int rc = w.failed ? util_fail(err, "out of memory") : 0;
    for (int r = 1; r < size && rc == 0; r++)
        rc = mpi_pool_send(r, MPI_BUILD_TAG_HELLO, w.data, w.len, err);
    wire_writer_free(&w);
    for (int i = 1; i < size && rc == 0; i++) {
        mpi_pool_message msg;
        if (mpi_pool_receive(MPI_POOL_ANY, MPI_BUILD_TAG_BUILD, NULL, 0, &msg, err) < 0) {
            rc = -1;
            break;
        }
        wire_reader r = wire_reader_of(msg.data, msg.len);
        char *id = wire_get_text(&r), *host = wire_get_text(&r);
        if (!id || !host || strcmp(id, mpi_build_id()) != 0) {
            if (msg.source < first_rank) {
                char mine[128], theirs[128], here[256];
                describe(mpi_build_id(), mine, sizeof mine);
                describe(id ? id : "unknown", theirs, sizeof theirs);
                provenance_host(here, sizeof here);
                free(first);
                first_rank = msg.source;
                first = util_format("rank %d on %s runs another runner build (%s) than rank 0 "
                                    "on %s (%s)",
                                    msg.source, host ? host : "unknown", theirs, here, mine);
            }
            differing++;
        }
        free(id);
        free(host);
        free(msg.data);
    }
    if (rc != 0)
        mpi_pool_abandon(); /* a rank is unreachable: the launcher ends the job */
    else if (differing) {
        char more[48] = "";
        if (differing > 1)
            snprintf(more, sizeof more, " (and %d more rank%s)", differing - 1,
                     differing > 2 ? "s" : "");
        rc = util_fail(err,
                       "%s%s; every rank needs the same runner (the same binary on a "
                       "shared file system, or an identical install)",
                       first ? first : "a rank runs another runner build", more);
    }
    free(first);
    return rc;
}

int mpi_build_check(char **err)
{
    *err = NULL;
    if (mpi_pool_size() == 1)
        return 0;
    return mpi_pool_rank() == 0 ? coordinator_check(err) : worker_check(err);
}
