/* store_outbox.c: the webhook outbox (docs/webhooks.md). Closes a sweep and
 * queues its summary in one transaction, then reads and updates the queued
 * rows as the webhook module delivers them. */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"

/* Inserts the outbox row for the sweep; its idempotency key names the row,
 * so the id is chosen here (we hold the write lock: max + 1 is ours). */
static int outbox_insert(store *s, int64_t sweep_id, const char *format, const char *body,
                         int64_t *id, char **err)
{
    const char *what = "cannot queue the webhook summary";
    sqlite3_stmt *st = NULL;
    char created[32], sha[DIGEST_HEX_SIZE], key[96];
    int rc = -1;
    *id = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(id), 0) + 1 FROM outbox", -1, &st, NULL) !=
            SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    int64_t next = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (digest_sha256_hex(body, strlen(body), sha) != 0) {
        util_fail(err, "%s: %s: cannot hash the body", s->path, what);
        goto done;
    }
    snprintf(key, sizeof key, "runner-%" PRId64 "-%" PRId64 "-%.16s", sweep_id, next, sha);
    storei_format_utc(util_now(), created);
    /* A resumed sweep ends again: its new summary replaces one still waiting. */
    if (sqlite3_prepare_v2(s->db,
                           "DELETE FROM outbox WHERE sweep_id = ?1 AND"
                           " delivered_at IS NULL",
                           -1, &st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    if (sqlite3_step(st) != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO outbox (id, sweep_id, created_at, format, body,"
                           " idempotency_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                           -1, &st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_bind_int64(st, 1, next);
    sqlite3_bind_int64(st, 2, sweep_id);
    storei_bind_text(st, 3, created);
    storei_bind_text(st, 4, format);
    storei_bind_text(st, 5, body);
    storei_bind_text(st, 6, key);
    if (sqlite3_step(st) != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    *id = next;
    rc = 0;
done:
    sqlite3_finalize(st);
    return rc;
}

/* One transaction: the sweep's status and end, then (under a savepoint, so
 * its failure undoes only itself) the outbox row. */
int store_sweep_end_with_outbox(store *s, int64_t sweep_id, const char *status, double ended_at,
                                store_outbox_request *request, char **err)
{
    if (request) {
        request->id = 0;
        request->error = NULL;
    }
    if (storei_batch_commit(s, err) != 0)
        return -1;
    char what[96];
    snprintf(what, sizeof what, "cannot close sweep %" PRId64, sweep_id);
    sqlite3_stmt *st = storei_stmt(s, STMT_END_SWEEP, what, err);
    if (!st || storei_run_stmt(s, STMT_BEGIN, what, err) != 0)
        return -1;
    /* A process taken over must not close the sweep its new owner runs. */
    if (storei_fence_check(s, 0, err) != 0)
        goto fail;
    char ended[32];
    storei_format_utc(ended_at, ended);
    sqlite3_bind_int64(st, 1, sweep_id);
    storei_bind_text(st, 2, status);
    storei_bind_text(st, 3, ended);
    if (storei_step_done(s, st, what, err) != 0)
        goto fail;
    if (sqlite3_changes(s->db) != 1) {
        util_fail(err, "%s: %s: no such sweep", s->path, what);
        goto fail;
    }
    if (request && request->build) {
        const char *queue = "cannot queue the webhook summary";
        char *body = NULL, *why = NULL;
        int64_t id = 0;
        int saved = storei_exec(s, "SAVEPOINT store_outbox", queue, &why) == 0;
        if (saved && request->build(s, sweep_id, request->ctx, &body, &why) == 0 &&
            outbox_insert(s, sweep_id, request->format, body, &id, &why) == 0) {
            storei_exec(s, "RELEASE store_outbox", queue, NULL);
            request->id = id;
        } else {
            if (saved) {
                storei_exec(s, "ROLLBACK TO store_outbox", queue, NULL);
                storei_exec(s, "RELEASE store_outbox", queue, NULL);
            }
            request->error = why ? why : util_format("%s: %s", s->path, queue);
            why = NULL;
        }
        free(body);
        free(why);
    }
    if (storei_run_stmt(s, STMT_COMMIT, what, err) == 0)
        return 0;
    storei_rollback(s);
    if (request && request->id) {
        /* The summary must not cost the sweep its end: close it without. */
        if (err) {
            free(*err);
            *err = NULL;
        }
        free(request->error);
        request->error = util_format("%s: cannot commit the webhook summary with sweep %" PRId64,
                                     s->path, sweep_id);
        request->id = 0;
        return store_sweep_end_with_outbox(s, sweep_id, status, ended_at, NULL, err);
    }
    return -1;
fail:
    storei_rollback(s);
    return -1;
}

int store_outbox_read(store *s, int64_t id, store_outbox_row *out, char **err)
{
    memset(out, 0, sizeof *out);
    const char *what = "cannot read the webhook outbox";
    sqlite3_stmt *st = NULL;
    /* next_attempt_at has format_utc's layout, so text order is time order. */
    if (sqlite3_prepare_v2(s->db,
                           "SELECT id, sweep_id, format, body, idempotency_key, attempts,"
                           " delivered_at, next_attempt_at, delivered_at IS NULL AND"
                           " (next_attempt_at IS NULL OR"
                           "  next_attempt_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
                           " FROM outbox WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st), oom = 0;
    if (rc == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        out->sweep_id = sqlite3_column_int64(st, 1);
        out->format = storei_column_strdup(st, 2, &oom);
        out->body = storei_column_strdup(st, 3, &oom);
        out->idempotency_key = storei_column_strdup(st, 4, &oom);
        out->attempts = sqlite3_column_int64(st, 5);
        out->delivered_at = storei_column_strdup(st, 6, &oom);
        out->next_attempt_at = storei_column_strdup(st, 7, &oom);
        out->due = sqlite3_column_int(st, 8);
    } else if (rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
    }
    sqlite3_finalize(st);
    if (oom || (out->id && (!out->format || !out->body || !out->idempotency_key))) {
        store_outbox_row_clear(out);
        return util_fail(err, "%s: %s: out of memory", s->path, what);
    }
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

void store_outbox_row_clear(store_outbox_row *row)
{
    if (!row)
        return;
    free(row->format);
    free(row->body);
    free(row->idempotency_key);
    free(row->delivered_at);
    free(row->next_attempt_at);
    memset(row, 0, sizeof *row);
}

int store_outbox_pending(store *s, int64_t **ids, size_t *count, char **err)
{
    *ids = NULL;
    *count = 0;
    const char *what = "cannot list the webhook outbox";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM outbox WHERE delivered_at IS NULL ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    int rc = storei_collect_ids(s, st, what, ids, count, err);
    sqlite3_finalize(st);
    return rc;
}

int store_outbox_attempt(store *s, int64_t id, int http_status, const char *error, int delivered,
                         double not_before, char **err)
{
    if (storei_batch_commit(s, err) != 0)
        return -1;
    char what[96];
    snprintf(what, sizeof what, "cannot record a delivery attempt of outbox row %" PRId64, id);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "UPDATE outbox SET attempts = attempts + 1, last_status = ?2,"
                           " last_error = ?3, delivered_at = ?4, next_attempt_at = ?5"
                           " WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    char now[32], later[32];
    storei_format_utc(util_now(), now);
    sqlite3_bind_int64(st, 1, id);
    if (http_status > 0)
        sqlite3_bind_int(st, 2, http_status);
    else
        sqlite3_bind_null(st, 2);
    storei_bind_text(st, 3, error);
    storei_bind_text(st, 4, delivered ? now : NULL);
    if (not_before > 0) {
        storei_format_utc(not_before, later);
        storei_bind_text(st, 5, later);
    } else {
        sqlite3_bind_null(st, 5);
    }
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}
