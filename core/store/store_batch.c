/* store_batch: the write transaction the points go in (a batch) and its
 * open point block, written as one point_block row with its point_index
 * rows just before the commit; and the answers' transaction. Every write
 * that must not land inside a batch commits it first (storei_batch_commit),
 * so the files that write call down into this one, which calls only the
 * fence (store_fence.c) and the SQL helpers (store_sql.c). */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int storei_batch_begin(store *s, char **err)
{
    if (s->in_batch)
        return 0;
    if (storei_fence_refuse(s, err) != 0)
        return -1;
    if (storei_run_stmt(s, STMT_BEGIN, "cannot begin a transaction", err) != 0)
        return -1;
    /* Point ids come from the blocks, read under the write lock: another
     * runner writing the same file cannot take the same ids. */
    sqlite3_stmt *st = storei_stmt(s, STMT_NEXT_POINT_ID, "cannot number points", err);
    int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
    if (rc != SQLITE_ROW) {
        if (st)
            storei_fail_sql(s, err, "cannot number points");
        sqlite3_reset(st);
        storei_run_stmt(s, STMT_ROLLBACK, "cannot roll back", NULL);
        return -1;
    }
    s->next_point_id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    s->in_batch = 1;
    s->batch_points = 0;
    s->batch_started = util_monotonic();
    return 0;
}

/* Forgets the open block (its batch was rolled back). */
void storei_block_discard(store *s)
{
    strbuf_reset(&s->block);
    s->block_points = s->block_ok = 0;
}

int storei_block_keys(store *s, int64_t section_id, int64_t first_id, const int64_t *ordinals,
                      int64_t count, char **err)
{
    sqlite3_stmt *st;
    int64_t i = 0;
    for (; count - i >= STOREI_KEY_RUN; i += STOREI_KEY_RUN) {
        if (!(st = storei_stmt(s, STMT_KEY_RUN, "cannot store points", err)))
            return -1;
        sqlite3_bind_int64(st, 1, section_id);
        sqlite3_bind_int64(st, 2, first_id + i);
        for (int n = 0; n < STOREI_KEY_RUN; n++) /* ?10 .. ?19, ?110 .. ?199 */
            sqlite3_bind_int64(st, n < 10 ? 10 + n : 100 + n, ordinals[i + n]);
        if (storei_step_done(s, st, "cannot store points", err) != 0)
            return -1;
    }
    for (; i < count; i++) {
        if (!(st = storei_stmt(s, STMT_KEY, "cannot store points", err)))
            return -1;
        sqlite3_bind_int64(st, 1, section_id);
        sqlite3_bind_int64(st, 2, ordinals[i]);
        sqlite3_bind_int64(st, 3, first_id + i);
        if (storei_step_done(s, st, "cannot store points", err) != 0)
            return -1;
    }
    return 0;
}

int storei_index_block(store *s, int64_t block_id, int64_t first_id, int64_t last_id, int all_ok,
                       const char *points, size_t points_len, char **err)
{
    sqlite3_stmt *st;
    if (!all_ok) {
        if (!(st = storei_stmt(s, STMT_INDEX_BLOCK, "cannot index points", err)))
            return -1;
        sqlite3_bind_int64(st, 1, block_id);
        storei_bind_block(st, 2, points, points_len);
        return storei_step_done(s, st, "cannot index points", err);
    }
    /* Every point ok: STOREI_INDEX_RUN ids a statement, the rest at once. */
    int64_t next_id = first_id;
    for (; last_id - next_id + 1 >= STOREI_INDEX_RUN; next_id += STOREI_INDEX_RUN) {
        if (!(st = storei_stmt(s, STMT_INDEX_OK_RUN, "cannot index points", err)))
            return -1;
        sqlite3_bind_int64(st, 1, block_id);
        sqlite3_bind_int64(st, 2, next_id);
        if (storei_step_done(s, st, "cannot index points", err) != 0)
            return -1;
    }
    if (next_id > last_id)
        return 0;
    if (!(st = storei_stmt(s, STMT_INDEX_OK_BLOCK, "cannot index points", err)))
        return -1;
    sqlite3_bind_int64(st, 1, block_id);
    sqlite3_bind_int64(st, 2, next_id);
    sqlite3_bind_int64(st, 3, last_id);
    return storei_step_done(s, st, "cannot index points", err);
}

/* Writes the open block, if it has points, as one point_block row. */
int storei_block_write(store *s, char **err)
{
    if (!s->block_points)
        return 0;
    strbuf_add(&s->block, "]", 1);
    if (s->block.oom) {
        storei_block_discard(s);
        return util_fail(err, "%s: cannot store points: out of memory", s->path);
    }
    if (storei_block_keys(s, s->block_section_id, s->block_first_id, s->block_ordinals,
                          s->block_points, err) != 0) {
        storei_block_discard(s);
        return -1;
    }
    sqlite3_stmt *st = storei_stmt(s, STMT_INSERT_BLOCK, "cannot store points", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, s->block_sweep_id);
    sqlite3_bind_int64(st, 2, s->block_section_id);
    sqlite3_bind_int64(st, 3, s->block_first_id);
    sqlite3_bind_int64(st, 4, s->block_first_id + s->block_points - 1);
    sqlite3_bind_int64(st, 5, s->block_points);
    sqlite3_bind_int64(st, 6, s->block_ok);
    storei_bind_block(st, 7, s->block.data, s->block.len);
    sqlite3_bind_text(st, 8, s->block_params_base, -1, SQLITE_STATIC);
    int rc = storei_step_done(s, st, "cannot store points", err);
    /* Its index rows, in the same transaction. */
    if (rc == 0)
        rc = storei_index_block(s, sqlite3_last_insert_rowid(s->db), s->block_first_id,
                                s->block_first_id + s->block_points - 1,
                                s->block_ok == s->block_points, s->block.data, s->block.len, err);
    storei_block_discard(s);
    return rc;
}

/* On failure the batch is rolled back (its points are lost) and the
 * message says so. */
int storei_batch_commit(store *s, char **err)
{
    if (!s->in_batch)
        return 0;
    s->in_batch = 0;
    int64_t unstored = s->batch_points;
    /* The fence is read inside the transaction, under its write lock: a
     * takeover either committed before (and this batch rolls back) or waits
     * for this commit (and then reruns none of these points). */
    if (storei_fence_check(s, unstored, err) == 0 && storei_block_write(s, err) == 0 &&
        storei_run_stmt(s, STMT_COMMIT, "cannot commit stored points", err) == 0)
        return 0;
    storei_block_discard(s);
    storei_rollback(s);
    if (!s->taken_over_line)
        storei_append_note(err, " (the points since the last commit were not stored)");
    return -1;
}

int storei_answer_begin(store *s, const char *what, char **err)
{
    if (storei_batch_commit(s, err) != 0 ||
        storei_exec(s, "PRAGMA foreign_keys = OFF", what, err) != 0)
        return -1;
    if (storei_exec(s, "BEGIN IMMEDIATE", what, err) != 0) {
        sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

int storei_answer_check(store *s, const char *head_table, const char *what, char **err)
{
    strbuf sql = { 0 };
    sqlite3_stmt *st = NULL;
    strbuf_str(&sql, "PRAGMA foreign_key_check(");
    storei_append_ident(&sql, head_table);
    strbuf_str(&sql, ")");
    int rc = -1;
    if (sql.oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "%s", what);
    else {
        int step = sqlite3_step(st);
        if (step == SQLITE_DONE)
            rc = 0;
        else if (step == SQLITE_ROW)
            util_fail(err, "%s: %s: a row it references is no longer stored", s->path, what);
        else
            storei_fail_sql(s, err, "%s", what);
    }
    sqlite3_finalize(st);
    strbuf_free(&sql);
    return rc;
}

int storei_answer_end(store *s, int rc, const char *what, char **err)
{
    if (rc == 0)
        rc = storei_exec(s, "COMMIT", what, err);
    if (rc != 0)
        storei_rollback(s);
    if (sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK && rc == 0)
        rc = storei_fail_sql(s, err, "%s", what);
    return rc;
}
