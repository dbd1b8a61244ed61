/* store_process: which process runs a sweep (sweep.pid and, since schema
 * version 4, pid_host, pid_start_ticks, pid_boot_id; since version 12 its
 * lease and Slurm ids), written when a sweep begins or is resumed and read
 * by resume's liveness check (lifecycle.c), and the status readers show for
 * a sweep whose process is gone (lease.h). */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/scheduler.h"

/* The claim waited the busy timeout for SQLite's write lock: some process
 * holds it, most likely the sweep's owner stopped inside a write
 * transaction (docs/guarantees.md, "Fencing"). Names the owner on record
 * and what to do; -1. */
static int busy_refusal(store *s, int64_t sweep_id, char **err)
{
    sqlite3_stmt *st = NULL;
    char owner[300] = "unknown";
    if (sqlite3_prepare_v2(s->db,
                           "SELECT coalesce(pid_host, host) || ':' || pid FROM sweep WHERE id = ?1"
                           " AND pid IS NOT NULL",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, sweep_id);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            snprintf(owner, sizeof owner, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    int waited_ms = 0;
    if (sqlite3_prepare_v2(s->db, "PRAGMA busy_timeout", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        waited_ms = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return util_fail(err,
                     "%s: sweep %lld: another process held the database's write lock for the "
                     "whole %g s this process waits (the sweep's owner is %s; a process stopped "
                     "inside a write transaction, by SIGSTOP or scontrol suspend, keeps the lock "
                     "until it runs again or ends): continue it (kill -CONT) or end it, then "
                     "resume again",
                     s->path, (long long)sweep_id, waited_ms / 1000.0, owner);
}

int store_sweep_claim(store *s, int64_t sweep_id, const process_identity *who,
                      const sweep_lease *lease, char **err)
{
    if (storei_batch_commit(s, err) != 0)
        return -1;
    char what[96];
    snprintf(what, sizeof what, "cannot record the process running sweep %lld",
             (long long)sweep_id);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "UPDATE sweep SET pid = ?2, pid_host = ?3,"
                           " pid_start_ticks = ?4, pid_boot_id = ?5, lease_renewed_at = ?6,"
                           " lease_period_s = ?7, slurm_job_id = ?8, slurm_array_job_id = ?9,"
                           " slurm_array_task_id = ?10, slurm_step_id = ?11,"
                           " owner_epoch = owner_epoch + 1, owner_claimed_at = ?12"
                           " WHERE id = ?1 RETURNING owner_epoch",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, who->pid);
    storei_bind_text(st, 3, who->host[0] ? who->host : NULL);
    if (who->start_ticks > 0)
        sqlite3_bind_int64(st, 4, who->start_ticks);
    storei_bind_text(st, 5, who->boot_id[0] ? who->boot_id : NULL);
    if (lease && lease->period_s > 0) {
        sqlite3_bind_double(st, 6, lease->renewed_at_s);
        sqlite3_bind_double(st, 7, lease->period_s);
    }
    const char *ids[4] = { NULL };
    if (lease) {
        ids[0] = lease->slurm_job_id;
        ids[1] = lease->slurm_array_job_id;
        ids[2] = lease->slurm_array_task_id;
        ids[3] = lease->slurm_step_id;
    }
    for (int i = 0; i < 4; i++)
        storei_bind_text(st, 8 + i, ids[i] && ids[i][0] ? ids[i] : NULL);
    sqlite3_bind_double(st, 12, util_now());
    /* The new epoch fences every earlier owner (store_fence.c): from here
     * on their batches roll back. */
    int step = sqlite3_step(st);
    int rc = 0;
    if (step == SQLITE_ROW) {
        s->fence_sweep_id = sweep_id;
        s->fence_epoch = sqlite3_column_int64(st, 0);
        free(s->taken_over_line);
        s->taken_over_line = NULL;
        step = sqlite3_step(st);
    }
    if ((step & 0xff) == SQLITE_BUSY) {
        sqlite3_finalize(st);
        return busy_refusal(s, sweep_id, err);
    }
    if (step != SQLITE_DONE)
        rc = storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}

/* Copies column i's text (or "") into out, size bytes. */
static void column_text(sqlite3_stmt *st, int i, char *out, size_t size)
{
    const unsigned char *text = sqlite3_column_text(st, i);
    snprintf(out, size, "%s", text ? (const char *)text : "");
}

int store_sweep_process(store *s, int64_t sweep_id, process_identity *out, sweep_lease *lease,
                        char **err)
{
    memset(out, 0, sizeof *out);
    if (lease)
        memset(lease, 0, sizeof *lease);
    char what[96];
    snprintf(what, sizeof what, "cannot read the process running sweep %lld", (long long)sweep_id);
    /* A row from before version 4 names only the pid, on the sweep's host. */
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT coalesce(pid, 0), coalesce(pid_host, host),"
                           " coalesce(pid_start_ticks, 0), coalesce(pid_boot_id, ''),"
                           " coalesce(lease_renewed_at, 0), coalesce(lease_period_s, 0),"
                           " slurm_job_id, slurm_array_job_id, slurm_array_task_id, slurm_step_id"
                           " FROM sweep WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->pid = sqlite3_column_int64(st, 0);
        column_text(st, 1, out->host, sizeof out->host);
        out->start_ticks = sqlite3_column_int64(st, 2);
        column_text(st, 3, out->boot_id, sizeof out->boot_id);
        if (lease) {
            lease->renewed_at_s = sqlite3_column_double(st, 4);
            lease->period_s = sqlite3_column_double(st, 5);
            column_text(st, 6, lease->slurm_job_id, sizeof lease->slurm_job_id);
            column_text(st, 7, lease->slurm_array_job_id, sizeof lease->slurm_array_job_id);
            column_text(st, 8, lease->slurm_array_task_id, sizeof lease->slurm_array_task_id);
            column_text(st, 9, lease->slurm_step_id, sizeof lease->slurm_step_id);
        }
    }
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}

/* --- the status readers show ---------------------------------------------- */

/* A connection's answers from the scheduler, kept a little while: a list of
 * a hundred sweeps of one job asks once, and a server's long-lived
 * connection asks again after SCHEDULER_ANSWER_TTL_S. */
#define SCHEDULER_ANSWERS 16
#define SCHEDULER_ANSWER_TTL_S 5.0

typedef struct status_context {
    process_identity self;
    struct {
        char job_id[32];
        scheduler_answer answer;
        double asked_at; /* monotonic s; 0: empty slot */
    } answers[SCHEDULER_ANSWERS];
    size_t next_slot;
} status_context;

static scheduler_answer ask_cached(const char *job_id, void *arg)
{
    status_context *c = arg;
    double now = util_monotonic();
    for (size_t i = 0; i < SCHEDULER_ANSWERS; i++)
        if (c->answers[i].asked_at > 0 && now - c->answers[i].asked_at < SCHEDULER_ANSWER_TTL_S &&
            strcmp(c->answers[i].job_id, job_id) == 0)
            return c->answers[i].answer;
    scheduler_answer answer = scheduler_job_state(job_id, SCHEDULER_TIMEOUT_S);
    size_t slot = c->next_slot++ % SCHEDULER_ANSWERS;
    snprintf(c->answers[slot].job_id, sizeof c->answers[slot].job_id, "%s", job_id);
    c->answers[slot].answer = answer;
    c->answers[slot].asked_at = util_monotonic();
    return answer;
}

static void arg_text(sqlite3_value *v, char *out, size_t size)
{
    const unsigned char *text = sqlite3_value_text(v);
    snprintf(out, size, "%s", text ? (const char *)text : "");
}

/* SQL runner_sweep_status(status, pid, pid_host, pid_start_ticks,
 * pid_boot_id[, lease_renewed_at, lease_period_s, slurm_job_id]): the
 * status as stored, except that a sweep still 'running' whose process is
 * gone is 'interrupted': proven gone on this host (killed with SIGKILL: a
 * second Ctrl-C, the OOM killer, srun ending an MPI job), its Slurm job
 * ended, or its lease expired (a crashed node, seen from any host). A
 * process with a fresh lease, or on another host without one (an older
 * row), or one that cannot be told apart from a live one, stays 'running'. */
static void sql_sweep_status(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const unsigned char *status = sqlite3_value_text(argv[0]);
    if (status && strcmp((const char *)status, "running") == 0 &&
        sqlite3_value_int64(argv[1]) > 0) {
        status_context *c = sqlite3_user_data(ctx);
        process_identity recorded = { .pid = sqlite3_value_int64(argv[1]),
                                      .start_ticks = sqlite3_value_int64(argv[3]) };
        arg_text(argv[2], recorded.host, sizeof recorded.host);
        arg_text(argv[4], recorded.boot_id, sizeof recorded.boot_id);
        sweep_lease lease = { 0 };
        if (argc >= 8) {
            lease.renewed_at_s = sqlite3_value_double(argv[5]);
            lease.period_s = sqlite3_value_double(argv[6]);
            arg_text(argv[7], lease.slurm_job_id, sizeof lease.slurm_job_id);
        }
        if (lease_judge(&recorded, &lease, &c->self, util_now(), ask_cached, c) == SWEEP_GONE) {
            sqlite3_result_text(ctx, "interrupted", -1, SQLITE_STATIC);
            return;
        }
    }
    sqlite3_result_value(ctx, argv[0]);
}

int store_process_register_sql(struct sqlite3 *db)
{
    status_context *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    process_identity_self(&c->self);
    /* SQLite frees c with the connection (or at once if this fails); the
     * five-argument form (before schema 12) shares it and frees nothing. */
    if (sqlite3_create_function_v2(db, "runner_sweep_status", 8, SQLITE_UTF8, c, sql_sweep_status,
                                   NULL, NULL, free) != SQLITE_OK)
        return -1;
    return sqlite3_create_function_v2(db, "runner_sweep_status", 5, SQLITE_UTF8, c,
                                      sql_sweep_status, NULL, NULL, NULL) == SQLITE_OK
               ? 0
               : -1;
}
