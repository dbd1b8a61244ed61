/* store_process: which process runs a sweep (sweep.pid and, since schema
 * version 4, pid_host, pid_start_ticks, pid_boot_id), written when a sweep
 * begins or is resumed and read by resume's liveness check (lifecycle.c),
 * and the status readers show for a sweep whose process is gone. */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_sweep_claim(store *s, int64_t sweep_id, const process_identity *who, char **err)
{
    if (storei_batch_commit(s, err) != 0)
        return -1;
    char what[96];
    snprintf(what, sizeof what, "cannot record the process running sweep %lld",
             (long long)sweep_id);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "UPDATE sweep SET pid = ?2, pid_host = ?3,"
                           " pid_start_ticks = ?4, pid_boot_id = ?5 WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, who->pid);
    storei_bind_text(st, 3, who->host[0] ? who->host : NULL);
    if (who->start_ticks > 0)
        sqlite3_bind_int64(st, 4, who->start_ticks);
    storei_bind_text(st, 5, who->boot_id[0] ? who->boot_id : NULL);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_process(store *s, int64_t sweep_id, process_identity *out, char **err)
{
    memset(out, 0, sizeof *out);
    char what[96];
    snprintf(what, sizeof what, "cannot read the process running sweep %lld", (long long)sweep_id);
    /* A row from before version 4 names only the pid, on the sweep's host. */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT coalesce(pid, 0), coalesce(pid_host, host),"
                           " coalesce(pid_start_ticks, 0), coalesce(pid_boot_id, '')"
                           " FROM sweep WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->pid = sqlite3_column_int64(st, 0);
        snprintf(out->host, sizeof out->host, "%s", (const char *)sqlite3_column_text(st, 1));
        out->start_ticks = sqlite3_column_int64(st, 2);
        snprintf(out->boot_id, sizeof out->boot_id, "%s", (const char *)sqlite3_column_text(st, 3));
    }
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}

/* SQL runner_sweep_status(status, pid, pid_host, pid_start_ticks,
 * pid_boot_id): the status as stored, except that a sweep still 'running'
 * whose process this host proves gone (killed with SIGKILL: a second
 * Ctrl-C, the OOM killer, or srun ending an MPI job at once when a rank
 * died) is 'interrupted'. A process on another host, or one that cannot be
 * told apart from a live one, stays 'running'. */
static void sql_sweep_status(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *status = sqlite3_value_text(argv[0]);
    if (status && strcmp((const char *)status, "running") == 0 &&
        sqlite3_value_int64(argv[1]) > 0) {
        process_identity recorded = { .pid = sqlite3_value_int64(argv[1]),
                                      .start_ticks = sqlite3_value_int64(argv[3]) };
        const unsigned char *host = sqlite3_value_text(argv[2]);
        const unsigned char *boot = sqlite3_value_text(argv[4]);
        snprintf(recorded.host, sizeof recorded.host, "%s", host ? (const char *)host : "");
        snprintf(recorded.boot_id, sizeof recorded.boot_id, "%s", boot ? (const char *)boot : "");
        if (process_identity_check(&recorded, sqlite3_user_data(ctx)) == PROCESS_GONE) {
            sqlite3_result_text(ctx, "interrupted", -1, SQLITE_STATIC);
            return;
        }
    }
    sqlite3_result_value(ctx, argv[0]);
}

int store_process_register_sql(struct sqlite3 *db)
{
    process_identity *self = malloc(sizeof *self);
    if (!self)
        return -1;
    process_identity_self(self);
    /* SQLite frees self with the connection (or at once if this fails). */
    return sqlite3_create_function_v2(db, "runner_sweep_status", 5, SQLITE_UTF8, self,
                                      sql_sweep_status, NULL, NULL, free) == SQLITE_OK
               ? 0
               : -1;
}
