/* store_printed: the lines a sweep's script printed with printf
 * (sweep_printed, schema 21): its findings, kept with the sweep so the
 * dashboard's sweep page can lead with them (docs/serve.md). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store_int.h"

/* Written with a savepoint: inside the batch of points a sweep may have
 * open, or on its own. Blank lines are not kept; a line is cut at
 * STORE_PRINTED_MAX_BYTES (at a UTF-8 boundary), and lines after the
 * first STORE_PRINTED_MAX_LINES are left out. */
int store_sweep_printed_set(store *s, int64_t sweep_id, const char *text, char **err)
{
    const char *what = "cannot keep the lines the script printed";
    sqlite3_stmt *st = NULL;
    if (storei_exec(s, "SAVEPOINT printed", what, err) != 0)
        return -1;
    int rc = 0;
    if (sqlite3_prepare_v2(s->db, "DELETE FROM sweep_printed WHERE sweep_id = ?1", -1, &st, NULL) !=
        SQLITE_OK) {
        rc = storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    rc = storei_step_done(s, st, what, err);
    sqlite3_finalize(st);
    st = NULL;
    if (rc != 0)
        goto done;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO sweep_printed (sweep_id, position, line)"
                           " VALUES (?1, ?2, ?3)",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    int64_t position = 0;
    for (const char *at = text ? text : ""; *at && position < STORE_PRINTED_MAX_LINES;) {
        size_t len = strcspn(at, "\n");
        size_t kept = len;
        while (kept > 0 && (at[kept - 1] == '\r' || at[kept - 1] == ' ' || at[kept - 1] == '\t'))
            kept--;
        if (kept > STORE_PRINTED_MAX_BYTES) {
            kept = STORE_PRINTED_MAX_BYTES;
            while (kept > 0 && ((unsigned char)at[kept] & 0xC0) == 0x80)
                kept--; /* not inside a UTF-8 sequence */
        }
        if (kept > 0) {
            sqlite3_bind_int64(st, 1, sweep_id);
            sqlite3_bind_int64(st, 2, ++position);
            sqlite3_bind_text(st, 3, at, (int)kept, SQLITE_STATIC);
            if (storei_step_done(s, st, what, err) != 0) {
                rc = -1;
                break;
            }
        }
        at += len + (at[len] == '\n');
    }
done:
    sqlite3_finalize(st);
    if (rc != 0) {
        storei_exec(s, "ROLLBACK TO printed", what, NULL);
        storei_exec(s, "RELEASE printed", what, NULL);
        return -1;
    }
    return storei_exec(s, "RELEASE printed", what, err);
}

int store_sweep_printed(store *s, int64_t sweep_id, char ***lines, size_t *count, char **err)
{
    const char *what = "cannot read the lines the script printed";
    *lines = NULL;
    *count = 0;
    /* a file older than schema 21, read as it is, kept none */
    if (sqlite3_table_column_metadata(s->db, "main", "sweep_printed", NULL, NULL, NULL, NULL, NULL,
                                      NULL) != SQLITE_OK)
        return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT line FROM sweep_printed WHERE sweep_id = ?1 ORDER BY position",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc, failed = 0;
    size_t capacity = 0;
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*count == capacity) {
            size_t grown = capacity ? 2 * capacity : 8;
            char **more = realloc(*lines, grown * sizeof *more);
            if (!more) {
                failed = 1;
                break;
            }
            *lines = more;
            capacity = grown;
        }
        char *line = util_strdup((const char *)sqlite3_column_text(st, 0));
        failed = line == NULL;
        if (line)
            (*lines)[(*count)++] = line;
    }
    sqlite3_finalize(st);
    if (failed || rc != SQLITE_DONE) {
        store_sweep_printed_free(*lines, *count);
        *lines = NULL;
        *count = 0;
        return failed ? util_fail(err, "out of memory") : storei_fail_sql(s, err, "%s", what);
    }
    return 0;
}

void store_sweep_printed_free(char **lines, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(lines[i]);
    free(lines);
}
