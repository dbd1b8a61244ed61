/* store_resume.c: what resuming a sweep needs: the sweep record to resume,
 * marking it running again, and a section's finished points (its failed
 * ones are removed here, so they run again). These write; store_read.c
 * only reads. */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_find_sweep(store *s, int64_t sweep_id, const char *script_path, store_sweep_record *out,
                     char **err)
{
    memset(out, 0, sizeof *out);
    const char *sql =
        "SELECT id, script_path, script_text, overrides_json, seed, status, pid, host,"
        " script_sha256, shard_index, shard_count,"
        " (julianday(ended_at) - 2440587.5) * 86400.0, shard_by IS NULL FROM sweep WHERE (?1 > 0 AND id = ?1) OR (?1 = 0 AND script_path = ?2)"
        " ORDER BY id DESC LIMIT 1";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot look up the sweep to resume");
    sqlite3_bind_int64(st, 1, sweep_id);
    storei_bind_text(st, 2, script_path);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        out->script_path = util_strdup((const char *)sqlite3_column_text(st, 1));
        out->script_text = util_strdup((const char *)sqlite3_column_text(st, 2));
        out->overrides_json = util_strdup((const char *)sqlite3_column_text(st, 3));
        int64_t seed = sqlite3_column_int64(st, 4);
        memcpy(&out->seed, &seed, sizeof seed);
        out->status = util_strdup((const char *)sqlite3_column_text(st, 5));
        out->pid = sqlite3_column_type(st, 6) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 6);
        out->host = util_strdup((const char *)sqlite3_column_text(st, 7));
        const char *sha = (const char *)sqlite3_column_text(st, 8);
        snprintf(out->script_sha256, sizeof out->script_sha256, "%s", sha ? sha : "");
        out->shard_index = (uint32_t)sqlite3_column_int64(st, 9);
        out->shard_count = (uint32_t)sqlite3_column_int64(st, 10);
        out->ended_at = sqlite3_column_double(st, 11); /* NULL reads as 0 */
        out->shard_by_identity = out->shard_count > 0 && sqlite3_column_int(st, 12);
        if (!out->script_path || !out->script_text || !out->status || !out->host) {
            sqlite3_finalize(st);
            store_sweep_record_clear(out);
            return util_fail(err, "out of memory");
        }
    } else if (rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "cannot look up the sweep to resume");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

void store_sweep_record_clear(store_sweep_record *r)
{
    if (!r)
        return;
    free(r->script_path);
    free(r->script_text);
    free(r->overrides_json);
    free(r->status);
    free(r->host);
    memset(r, 0, sizeof *r);
}

int store_sweep_reopen(store *s, int64_t sweep_id, int64_t pid, char **err)
{
    if (storei_batch_commit(s, err) != 0)
        return -1;
    sqlite3_stmt *st = NULL;
    const char *what = "cannot reopen the sweep";
    if (sqlite3_prepare_v2(s->db,
                           "UPDATE sweep SET status = 'running', ended_at = NULL, pid = ?2"
                           " WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, pid);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}

static int compare_identity(const void *a, const void *b) { return memcmp(a, b, 64); }

int store_identity_set_take(store_identity_set *set, const char *identity, int64_t *point_id)
{
    if (!set || !set->count)
        return 0;
    store_identity *hit =
        bsearch(identity, set->entries, set->count, sizeof set->entries[0], compare_identity);
    if (!hit)
        return 0;
    size_t i = (size_t)(hit - set->entries);
    while (i > 0 && compare_identity(set->entries[i - 1].id, identity) == 0)
        i--;
    for (; i < set->count && compare_identity(set->entries[i].id, identity) == 0; i++)
        if (!set->taken[i]) {
            set->taken[i] = 1;
            *point_id = set->entries[i].point_id;
            return 1;
        }
    return 0;
}

void store_identity_set_free(store_identity_set *set)
{
    if (!set)
        return;
    free(set->taken);
    free(set->entries);
    free(set);
}

/* Runs one statement with (id) bound; 0 or -1. */
static int exec_with_id(store *s, const char *sql, int64_t id, const char *what, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}

int store_section_resume(store *s, int64_t sweep_id, int ordinal, const char *plugin,
                         const char *title, int script_line, int64_t point_count,
                         int64_t *section_id, store_identity_set **done, char **err)
{
    *done = NULL;
    char what[160];
    snprintf(what, sizeof what, "cannot resume section %d (\"%s\") of sweep %" PRId64, ordinal,
             plugin, sweep_id);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT id FROM section WHERE sweep_id = ?1 AND ordinal = ?2"
                           " AND plugin = ?3 ORDER BY id LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int(st, 2, ordinal);
    storei_bind_text(st, 3, plugin);
    int rc = sqlite3_step(st);
    int64_t found = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    if (!found)
        return store_section_begin(s, sweep_id, ordinal, plugin, title, script_line, point_count,
                                   section_id, err);
    *section_id = found;
    /* Points that did not succeed run again: their old records go, in one
     * transaction with nothing else, so the section never shows both. */
    if (storei_batch_commit(s, err) != 0)
        return -1;
    if (storei_run_stmt(s, STMT_BEGIN, what, err) != 0)
        return -1;
    /* Emptied blocks stay: their last_point_id keeps the ids of removed
     * points from being given out again. */
    /* Their runs go with them (command_run, keyed by point id). */
    if (exec_with_id(s,
                     "DELETE FROM command_run WHERE sweep_id = (SELECT sweep_id FROM section"
                     " WHERE id = ?1) AND point_id IN (SELECT json_extract(p.value, '$[0]')"
                     " FROM point_block AS b, json_each(b.points) AS p WHERE b.section_id = ?1"
                     " AND b.ok_count < b.point_count AND json_extract(p.value, '$[5]') <> 'ok')",
                     found, what, err) != 0 ||
        exec_with_id(s,
                     "UPDATE point_block SET points = (SELECT json_group_array(json(p.value))"
                     " FROM json_each(point_block.points) AS p"
                     " WHERE json_extract(p.value, '$[5]') = 'ok'), point_count = ok_count"
                     " WHERE section_id = ?1 AND ok_count < point_count",
                     found, what, err) != 0 ||
        storei_run_stmt(s, STMT_COMMIT, what, err) != 0) {
        storei_rollback(s);
        return -1;
    }
    store_identity_set *set = calloc(1, sizeof *set);
    size_t capacity = 0;
    if (!set)
        return util_fail(err, "out of memory");
    if (sqlite3_prepare_v2(s->db,
                           "SELECT json_extract(p.value, '$[3]'), json_extract(p.value, '$[0]')"
                           " FROM point_block AS b, json_each(b.points) AS p"
                           " WHERE b.section_id = ?1",
                           -1, &st, NULL) != SQLITE_OK) {
        store_identity_set_free(set);
        return storei_fail_sql(s, err, "%s", what);
    }
    sqlite3_bind_int64(st, 1, found);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        if (!id || strlen(id) != 64)
            continue;
        if (set->count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            store_identity *bigger = realloc(set->entries, capacity * sizeof *bigger);
            if (!bigger) {
                sqlite3_finalize(st);
                store_identity_set_free(set);
                return util_fail(err, "out of memory");
            }
            set->entries = bigger;
        }
        memcpy(set->entries[set->count].id, id, 65);
        set->entries[set->count++].point_id = sqlite3_column_int64(st, 1);
    }
    if (rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        sqlite3_finalize(st);
        store_identity_set_free(set);
        return -1;
    }
    sqlite3_finalize(st);
    if (set->count)
        qsort(set->entries, set->count, sizeof set->entries[0], compare_identity);
    set->taken = calloc(set->count + 1, 1);
    if (!set->taken) {
        store_identity_set_free(set);
        return util_fail(err, "out of memory");
    }
    *done = set;
    return 0;
}
