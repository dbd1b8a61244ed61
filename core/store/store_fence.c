/* store_fence: fencing a sweep's writers (docs/guarantees.md, "Fencing").
 *
 * Every claim of a sweep (its beginning, a resume, a requeued job running
 * again) raises sweep.owner_epoch by one and keeps the new value in the
 * store; every write transaction of points reads the row's epoch inside the
 * transaction (under the write lock, so no claim can slip in between) and
 * commits only while it is still this store's. A process paused past its
 * lease, or cut off from the others, and taken over meanwhile, therefore
 * stores nothing more: its next batch rolls back and it stops with one line
 * saying why. Unfenced writers (no claim: merges, tests) are unaffected. */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int storei_fence_refuse(store *s, char **err)
{
    if (!s->taken_over_line)
        return 0;
    if (err && !*err)
        *err = util_strdup(s->taken_over_line);
    return -1;
}

int storei_fence_check(store *s, int64_t unstored, char **err)
{
    if (s->taken_over_line)
        return storei_fence_refuse(s, err);
    if (!s->fence_sweep_id)
        return 0;
    const char *what = "cannot check who owns the sweep";
    sqlite3_stmt *st = storei_stmt(s, STMT_FENCE, what, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, s->fence_sweep_id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            util_fail(err, "%s: sweep %" PRId64 " is gone (removed by another process)", s->path,
                      s->fence_sweep_id);
        else
            storei_fail_sql(s, err, "%s", what);
        sqlite3_reset(st);
        return -1;
    }
    int64_t epoch = sqlite3_column_int64(st, 0);
    if (epoch == s->fence_epoch) {
        sqlite3_reset(st);
        return 0;
    }
    const unsigned char *host = sqlite3_column_text(st, 1);
    int64_t pid = sqlite3_column_int64(st, 2);
    double claimed_at = sqlite3_column_double(st, 3);
    char when[32] = "an unrecorded time";
    if (claimed_at > 0)
        storei_format_utc(claimed_at, when);
    char lost[96];
    if (unstored == 0)
        snprintf(lost, sizeof lost, "every point it computed before is stored");
    else if (unstored == 1)
        snprintf(lost, sizeof lost, "its last point was not stored and the new owner runs it");
    else
        snprintf(lost, sizeof lost,
                 "its last %" PRId64 " points were not stored and the new owner runs them",
                 unstored);
    s->taken_over_line =
        util_format("sweep %" PRId64 " was taken over by %s:%" PRId64 " at %s; this process "
                    "stops; %s",
                    s->fence_sweep_id, host ? (const char *)host : "?", pid, when, lost);
    sqlite3_reset(st);
    if (!s->taken_over_line)
        return util_fail(err, "out of memory");
    return storei_fence_refuse(s, err);
}

int store_taken_over(const store *s) { return s && s->taken_over_line != NULL; }
