/* store_lease: the thread that renews a running sweep's lease (store.h).
 *
 * Why a thread and not the writer's loop: with one job the writer runs each
 * point itself, so a point of minutes would let the lease expire, and with
 * --jobs it sleeps on a condition until the next point in order is done. A
 * thread of its own with its own connection renews on time whatever the
 * writer does, and costs tiny points nothing (it wakes once a period). The
 * one thing it needs from the writer is the write lock: the writer's batch
 * transaction may be open while a long point runs, so the thread first asks
 * the writer's side to commit it (store_lease_watch), between points. */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A renewal waits at most this long for the write lock (another writer's
 * transaction), so stopping never waits long; a renewal that gives up is
 * tried again a period later, well within the lease's expiry. */
#define RENEW_BUSY_MAX_MS 2000

struct store_lease {
    pthread_t thread;
    pthread_mutex_t lock; /* quit and the condition */
    pthread_cond_t wake;
    int quit;
    pthread_mutex_t flush_lock; /* flush and flush_ctx; held while flushing */
    int (*flush)(void *ctx);
    void *flush_ctx;
    sqlite3 *db; /* the thread's own connection */
    int64_t sweep_id;
    process_identity who;
    double period_s;
};

/* Sets the lease's renewal time to now while the row still names this
 * process and is running: a process that lost its sweep to a resume (it was
 * taken for dead) must not keep the new owner's lease alive. */
static void renew(store_lease *l)
{
    pthread_mutex_lock(&l->flush_lock);
    if (l->flush)
        l->flush(l->flush_ctx);
    pthread_mutex_unlock(&l->flush_lock);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(l->db,
                           "UPDATE sweep SET lease_renewed_at = ?2 WHERE id = ?1 AND pid = ?3"
                           " AND pid_host IS ?4 AND status = 'running'",
                           -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    sqlite3_bind_int64(st, 1, l->sweep_id);
    sqlite3_bind_double(st, 2, util_now());
    sqlite3_bind_int64(st, 3, l->who.pid);
    storei_bind_text(st, 4, l->who.host[0] ? l->who.host : NULL);
    /* A failure (busy, disk full) is not reported: the next period tries
     * again, and the writer reports what it meets itself. No row changed:
     * another process took the sweep over; the writer's next batch finds
     * it (store_fence.c) and stops with the line that says so. */
    sqlite3_step(st);
    sqlite3_finalize(st);
}

static void *lease_main(void *arg)
{
    store_lease *l = arg;
    pthread_mutex_lock(&l->lock);
    while (!l->quit) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        double wait_s = l->period_s;
        until.tv_sec += (time_t)wait_s;
        until.tv_nsec += (long)((wait_s - (double)(time_t)wait_s) * 1e9);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        int rc = 0;
        while (!l->quit && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&l->wake, &l->lock, &until);
        if (l->quit)
            break;
        pthread_mutex_unlock(&l->lock);
        renew(l);
        pthread_mutex_lock(&l->lock);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

int store_lease_start(const char *path, int64_t sweep_id, const process_identity *who,
                      double period_s, store_lease **out, char **err)
{
    *out = NULL;
    store_lease *l = calloc(1, sizeof *l);
    if (!l)
        return util_fail(err, "%s: cannot start renewing the sweep's lease: out of memory", path);
    l->sweep_id = sweep_id;
    l->who = *who;
    l->period_s = period_s;
    if (sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        util_fail(err, "%s: cannot open the database to renew the sweep's lease: %s", path,
                  l->db ? sqlite3_errmsg(l->db) : "out of memory");
        sqlite3_close(l->db);
        free(l);
        return -1;
    }
    sqlite3_busy_timeout(l->db, period_s * 1000 < RENEW_BUSY_MAX_MS ? (int)(period_s * 1000) + 1
                                                                    : RENEW_BUSY_MAX_MS);
    pthread_condattr_t attr;
    int made = pthread_condattr_init(&attr) == 0;
    made = made && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
           pthread_cond_init(&l->wake, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!made) {
        sqlite3_close(l->db);
        free(l);
        return util_fail(err, "%s: cannot start renewing the sweep's lease", path);
    }
    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->flush_lock, NULL);
    if (pthread_create(&l->thread, NULL, lease_main, l) != 0) {
        pthread_cond_destroy(&l->wake);
        pthread_mutex_destroy(&l->lock);
        pthread_mutex_destroy(&l->flush_lock);
        sqlite3_close(l->db);
        free(l);
        return util_fail(err, "%s: cannot start renewing the sweep's lease (no thread)", path);
    }
    *out = l;
    return 0;
}

void store_lease_watch(store_lease *l, int (*flush)(void *ctx), void *ctx)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->flush_lock);
    l->flush = flush;
    l->flush_ctx = ctx;
    pthread_mutex_unlock(&l->flush_lock);
}

void store_lease_stop(store_lease *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    l->quit = 1;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    pthread_cond_destroy(&l->wake);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->flush_lock);
    sqlite3_close(l->db);
    free(l);
}
