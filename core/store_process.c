/* store_process: which process runs a sweep (sweep.pid and, since schema
 * version 4, pid_host, pid_start_ticks, pid_boot_id), written when a sweep
 * begins or is resumed and read by resume's liveness check (lifecycle.c). */
#include "store_int.h"

#include <stdio.h>
#include <string.h>

int store_sweep_claim(store *s, int64_t sweep_id, const process_identity *who, char **err)
{
    if (storei_batch_commit(s, err) != 0)
        return -1;
    char what[96];
    snprintf(what, sizeof what, "cannot record the process running sweep %lld",
             (long long)sweep_id);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "UPDATE sweep SET pid = ?2, pid_host = ?3,"
                           " pid_start_ticks = ?4, pid_boot_id = ?5 WHERE id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
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
    snprintf(what, sizeof what, "cannot read the process running sweep %lld",
             (long long)sweep_id);
    /* A row from before version 4 names only the pid, on the sweep's host. */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT coalesce(pid, 0), coalesce(pid_host, host),"
                           " coalesce(pid_start_ticks, 0), coalesce(pid_boot_id, '')"
                           " FROM sweep WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->pid = sqlite3_column_int64(st, 0);
        snprintf(out->host, sizeof out->host, "%s", (const char *)sqlite3_column_text(st, 1));
        out->start_ticks = sqlite3_column_int64(st, 2);
        snprintf(out->boot_id, sizeof out->boot_id, "%s",
                 (const char *)sqlite3_column_text(st, 3));
    }
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}
