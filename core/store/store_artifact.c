/* store_artifact: command experiments in the catalog: what a command ran
 * (sweep_command) and the files its points left (artifact, artifact_blob),
 * written inside the batch that stores the point, so a point and its
 * artifacts are committed, or lost to kill -9, together. */
#include <stdlib.h>
#include <string.h>

#include "base/artifact.h"
#include "base/util.h"
#include "store_int.h"

int store_sweep_command(store *s, int64_t sweep_id, const char *command, const char *argv_json,
                        int shell, const char *executable, const char *sha256, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT OR IGNORE INTO sweep_command (sweep_id, command, "
                           "argv_template, shell, executable, executable_sha256) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot record command %s", command);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_text(st, 2, command, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, argv_json, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, shell != 0);
    sqlite3_bind_text(st, 5, executable, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, sha256, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE
                 ? 0
                 : storei_fail_sql(s, err, "cannot record command %s", command);
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_command_program(store *s, int64_t sweep_id, const char *name, char **executable,
                                char **err)
{
    *executable = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT executable FROM sweep_command WHERE sweep_id = ?1 AND "
                           "command = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the commands of sweep %lld",
                               (long long)sweep_id);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int oom = 0, rc = 0, step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *executable = storei_column_strdup(st, 0, &oom);
    else if (step != SQLITE_DONE)
        rc = storei_fail_sql(s, err, "cannot read the commands of sweep %lld", (long long)sweep_id);
    sqlite3_finalize(st);
    return oom ? util_fail(err, "out of memory") : rc;
}

static void undo_artifacts(store *s, int64_t point_id)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "DELETE FROM artifact WHERE point_id = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(st, 1, point_id);
        sqlite3_step(st);
    }
    sqlite3_finalize(st);
}

int storei_write_artifacts(store *s, int64_t sweep_id, int64_t point_id, const artifact *list,
                           char **err)
{
    sqlite3_stmt *blob = NULL, *ref = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT OR IGNORE INTO artifact_blob (sha256, bytes, content) "
                           "VALUES (?, ?, ?)",
                           -1, &blob, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT OR REPLACE INTO artifact (sweep_id, point_id, name, "
                           "sha256, bytes) VALUES (?, ?, ?, ?, ?)",
                           -1, &ref, NULL) != SQLITE_OK) {
        sqlite3_finalize(blob);
        return storei_fail_sql(s, err, "cannot store the artifacts of point %lld",
                               (long long)point_id);
    }
    int rc = 0;
    for (const artifact *a = list; a && rc == 0; a = a->next) {
        sqlite3_bind_text(blob, 1, a->sha256, -1, SQLITE_STATIC);
        sqlite3_bind_int64(blob, 2, (sqlite3_int64)a->size);
        sqlite3_bind_blob64(blob, 3, a->data ? (const void *)a->data : "", a->size, SQLITE_STATIC);
        sqlite3_bind_int64(ref, 1, sweep_id);
        sqlite3_bind_int64(ref, 2, point_id);
        sqlite3_bind_text(ref, 3, a->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(ref, 4, a->sha256, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ref, 5, (sqlite3_int64)a->size);
        if (sqlite3_step(blob) != SQLITE_DONE || sqlite3_step(ref) != SQLITE_DONE)
            rc = storei_fail_sql(s, err, "cannot store artifact %s of point %lld", a->name,
                                 (long long)point_id);
        sqlite3_reset(blob);
        sqlite3_reset(ref);
    }
    sqlite3_finalize(blob);
    sqlite3_finalize(ref);
    if (rc != 0)
        undo_artifacts(s, point_id);
    return rc;
}

int store_artifact_list(store *s, int64_t sweep_id, int64_t point_id, table **out, char **err)
{
    table *t = table_new("artifacts");
    if (!t || table_add_column(t, "point_id", "", RUNNER_INTEGER, 0) != 0 ||
        table_add_column(t, "name", "", RUNNER_TEXT, 0) != 0 ||
        table_add_column(t, "bytes", "bytes", RUNNER_INTEGER, 0) != 0 ||
        table_add_column(t, "sha256", "", RUNNER_TEXT, 0) != 0) {
        table_free(t);
        return util_fail(err, "out of memory");
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT point_id, name, bytes, sha256 FROM artifact "
                           "WHERE sweep_id = ?1 AND (?2 <= 0 OR point_id = ?2) "
                           "ORDER BY point_id, name",
                           -1, &st, NULL) != SQLITE_OK) {
        table_free(t);
        return storei_fail_sql(s, err, "cannot list the artifacts of sweep %lld",
                               (long long)sweep_id);
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, point_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        value row[4] = {
            value_integer(sqlite3_column_int64(st, 0)),
            value_text((const char *)sqlite3_column_text(st, 1)),
            value_integer(sqlite3_column_int64(st, 2)),
            value_text((const char *)sqlite3_column_text(st, 3)),
        };
        if (!row[1].type || !row[3].type || table_append_row(t, row) != 0) {
            for (int i = 0; i < 4; i++)
                value_clear(&row[i]);
            step = SQLITE_NOMEM;
            break;
        }
    }
    int rc = step == SQLITE_DONE ? 0
                                 : storei_fail_sql(s, err,
                                                   "cannot list the artifacts "
                                                   "of sweep %lld",
                                                   (long long)sweep_id);
    sqlite3_finalize(st);
    if (rc != 0) {
        table_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

int store_artifact_content(store *s, const char *sha256, void **data, size_t *size, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT content FROM artifact_blob WHERE sha256 = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read artifact %s", sha256);
    sqlite3_bind_text(st, 1, sha256, -1, SQLITE_STATIC);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        void *copy = malloc(n ? n : 1);
        if (copy) {
            if (n)
                memcpy(copy, sqlite3_column_blob(st, 0), n);
            *data = copy;
            *size = n;
            rc = 0;
        } else {
            util_fail(err, "out of memory");
        }
    } else {
        util_fail(err, "%s: artifact %s is not stored", s->path, sha256);
    }
    sqlite3_finalize(st);
    return rc;
}
