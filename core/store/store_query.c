/* store_query.c: read-only queries for the dashboard and the HTML report
 * (store_query.h): the sweeps page, a sweep's record, plugins, tags,
 * sections and progress, a section's failed points and column docs, and the
 * limits a server puts on its reading connection (and a read transaction
 * that holds one snapshot over several queries). Results are tables "as
 * stored"; every query is fixed text with bound values. */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- tables as stored ---------------------------------------------------- */

/* Column i of st's current row as SQLite holds it (a BLOB as NULL: the
 * catalog holds none). 0, or -1 when out of memory. */
int storei_column_as_stored(sqlite3_stmt *st, int i, value *out)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: *out = value_integer(sqlite3_column_int64(st, i)); return 0;
    case SQLITE_FLOAT: *out = value_real(sqlite3_column_double(st, i)); return 0;
    case SQLITE_TEXT:
        *out = value_text((const char *)sqlite3_column_text(st, i));
        return out->type == RUNNER_TEXT ? 0 : -1;
    default: *out = VALUE_NULL; return 0;
    }
}

int storei_query_table(store *s, sqlite3_stmt *st, const char *what, table **out, char **err)
{
    *out = NULL;
    int width = sqlite3_column_count(st);
    table *t = table_new(NULL);
    value *row = calloc(width > 0 ? (size_t)width : 1, sizeof *row);
    int rc = SQLITE_DONE, oom = !t || !row;
    for (int i = 0; !oom && i < width; i++)
        oom = table_add_column(t, sqlite3_column_name(st, i), "", 0, 0) != 0;
    while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; !oom && i < width; i++)
            oom = storei_column_as_stored(st, i, &row[i]) != 0;
        oom = oom || table_append_row(t, row) != 0;
    }
    for (int i = 0; row && i < width; i++)
        value_clear(&row[i]);
    free(row);
    if (oom || rc != SQLITE_DONE) {
        table_free(t);
        if (oom)
            return util_fail(err, "%s: %s: out of memory", s->path, what);
        return storei_fail_sql(s, err, "%s", what);
    }
    *out = t;
    return 0;
}

/* Prepares sql, binds id to ?1 and reads every row as stored. */
static int query_by_id(store *s, const char *sql, int64_t id, const char *what, table **out,
                       char **err)
{
    *out = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, id);
    int rc = storei_query_table(s, st, what, out, err);
    sqlite3_finalize(st);
    return rc;
}

/* --- a server's connection ------------------------------------------------ */

/* SQLite's progress handler: nonzero interrupts the statement. */
static int past_deadline(void *arg)
{
    const store *s = arg;
    return (s->limits.stopping && s->limits.stopping()) || util_monotonic() > s->limits.deadline_s;
}

/* SQLite virtual machine steps between two looks at the clock. */
#define PROGRESS_STEPS 10000

int store_read_hold(store *s, char **err)
{
    return storei_exec(s, "BEGIN", "cannot begin reading", err);
}

void store_read_release(store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
}

int store_read_limit(store *s, const store_read_limits *limits, char **err)
{
    s->limits = *limits;
    sqlite3_busy_timeout(s->db, limits->busy_timeout_ms);
    sqlite3_progress_handler(s->db, PROGRESS_STEPS, past_deadline, s);
    char pragmas[96];
    snprintf(pragmas, sizeof pragmas, "PRAGMA query_only = 1; PRAGMA cache_size = -%d;",
             limits->cache_kib);
    if (sqlite3_exec(s->db, pragmas, NULL, NULL, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot open for reading");
    return 0;
}

/* --- sweeps ------------------------------------------------------------------ */

static const char *const sort_sql[] = {
    [STORE_SWEEP_BY_ID] = "s.id",
    [STORE_SWEEP_BY_STARTED] = "s.started_at",
    [STORE_SWEEP_BY_SCRIPT] = "s.script_path",
    [STORE_SWEEP_BY_STATUS] = STORE_SWEEP_STATUS_SQL,
    [STORE_SWEEP_BY_NAME] = "s.name",
    [STORE_SWEEP_BY_DURATION] =
        "(julianday(coalesce(s.ended_at, 'now')) - julianday(s.started_at))",
};

/* The page's query around the filter: the page of ids is chosen first (a
 * CTE SQLite materializes), then only its rows get their point counts and
 * tags. */
static int page_sql(store_sweep_sort sort, int descending, int64_t limit, int64_t offset,
                    strbuf *head, strbuf *tail)
{
    const char *dir = descending ? " DESC" : "";
    strbuf_str(head, "WITH page AS MATERIALIZED (SELECT s.id AS id, ");
    strbuf_str(head, sort_sql[sort]);
    strbuf_str(head, " AS sort_key");
    strbuf_printf(tail, " ORDER BY sort_key%s, s.id%s LIMIT %lld OFFSET %lld)", dir, dir,
                  (long long)limit, (long long)offset);
    strbuf_printf(tail,
                  " SELECT s.id AS id, s.script_path AS script, " STORE_SWEEP_STATUS_SQL
                  " AS status, s.started_at AS started_at, s.ended_at AS ended_at,"
                  " (julianday(coalesce(s.ended_at, 'now')) - julianday(s.started_at)) * 86400"
                  " AS duration_s, s.name AS name, s.note AS note,"
                  " (SELECT json_group_array(tag) FROM (SELECT tag FROM sweep_tag"
                  "   WHERE sweep_id = s.id ORDER BY tag)) AS tags,"
                  " (SELECT coalesce(sum(b.ok_count), 0) FROM section AS c"
                  "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id)"
                  " AS points_ok,"
                  " (SELECT coalesce(sum(b.point_count - b.ok_count), 0) FROM section AS c"
                  "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id)"
                  " AS points_failed,"
                  " (SELECT coalesce(sum(c.point_count), 0) FROM section AS c"
                  "   WHERE c.sweep_id = s.id) AS points_planned"
                  " FROM page JOIN sweep AS s ON s.id = page.id"
                  " ORDER BY page.sort_key%s, s.id%s",
                  dir, dir);
    return head->oom || tail->oom ? -1 : 0;
}

int store_sweep_page(store *s, const store_sweep_filter *f, store_sweep_sort sort, int descending,
                     int64_t limit, int64_t offset, table **rows, int64_t *total, char **err)
{
    *rows = NULL;
    *total = 0;
    if ((unsigned)sort >= sizeof sort_sql / sizeof *sort_sql)
        return util_fail(err, "cannot list sweeps: no such order");
    sqlite3_stmt *count =
        storei_prepare_filtered(s, "SELECT count(*)", f, "", "cannot count sweeps", err);
    if (!count)
        return -1;
    int step = sqlite3_step(count);
    if (step == SQLITE_ROW)
        *total = sqlite3_column_int64(count, 0);
    else
        storei_fail_sql(s, err, "cannot count sweeps");
    sqlite3_finalize(count);
    if (step != SQLITE_ROW)
        return -1;
    strbuf head = { 0 }, tail = { 0 };
    sqlite3_stmt *page = NULL;
    int rc = -1;
    if (page_sql(sort, descending, limit, offset, &head, &tail) != 0)
        util_fail(err, "%s: cannot list sweeps: out of memory", s->path);
    else if ((page =
                  storei_prepare_filtered(s, head.data, f, tail.data, "cannot list sweeps", err)))
        rc = storei_query_table(s, page, "cannot list sweeps", rows, err);
    sqlite3_finalize(page);
    strbuf_free(&head);
    strbuf_free(&tail);
    return rc;
}

int store_sweep_row(store *s, int64_t sweep_id, table **out, char **err)
{
    if (query_by_id(s, "SELECT * FROM sweep WHERE id = ?1", sweep_id, "cannot read the sweep", out,
                    err) != 0)
        return -1;
    /* Its status as readers show it (a dead process's 'running' is
     * 'interrupted'), in place of the stored one. */
    table *shown = NULL;
    long column = table_find_column(*out, "status");
    if ((*out)->row_count == 0 || column < 0)
        return 0;
    if (query_by_id(s, "SELECT " STORE_SWEEP_STATUS_SQL " FROM sweep AS s WHERE s.id = ?1",
                    sweep_id, "cannot read the sweep's status", &shown, err) != 0) {
        table_free(*out);
        *out = NULL;
        return -1;
    }
    value *stored = table_cell(*out, 0, (size_t)column), *judged = table_cell(shown, 0, 0);
    if (shown->row_count == 1 && judged->type == RUNNER_TEXT) {
        value_clear(stored);
        *stored = *judged;
        *judged = (value){ 0 };
    }
    table_free(shown);
    return 0;
}

int store_sweep_plugin_list(store *s, int64_t sweep_id, table **out, char **err)
{
    return query_by_id(s,
                       "SELECT plugin, plugin_version, so_path, so_sha256 FROM sweep_plugin"
                       " WHERE sweep_id = ?1 ORDER BY rowid",
                       sweep_id, "cannot read the sweep's plugins", out, err);
}

int store_sweep_tag_list(store *s, int64_t sweep_id, table **out, char **err)
{
    return query_by_id(s, "SELECT tag FROM sweep_tag WHERE sweep_id = ?1 ORDER BY tag", sweep_id,
                       "cannot read the sweep's tags", out, err);
}

int store_sweep_section_list(store *s, int64_t sweep_id, table **out, char **err)
{
    return query_by_id(s,
                       "SELECT c.id, c.ordinal, c.plugin, c.title, c.script_line, c.point_count,"
                       " coalesce(sum(b.point_count), 0) AS points_done,"
                       " coalesce(sum(b.point_count - b.ok_count), 0) AS points_failed,"
                       " coalesce(sum(b.ok_count), 0) AS points_ok"
                       " FROM section AS c LEFT JOIN point_block AS b ON b.section_id = c.id"
                       " WHERE c.sweep_id = ?1 GROUP BY c.id ORDER BY c.ordinal, c.id",
                       sweep_id, "cannot read the sweep's sections", out, err);
}

int store_sweep_progress(store *s, int64_t sweep_id, table **out, char **err)
{
    return query_by_id(s,
                       "SELECT " STORE_SWEEP_STATUS_SQL " AS status, s.started_at, s.ended_at,"
                       " (julianday(coalesce(s.ended_at, 'now')) - julianday(s.started_at)) * 86400"
                       " AS elapsed_s,"
                       " (SELECT coalesce(sum(point_count), 0) FROM section WHERE sweep_id = s.id)"
                       " AS points_planned,"
                       " (SELECT count(*) FROM section WHERE sweep_id = s.id) AS sections,"
                       " (SELECT coalesce(sum(b.point_count), 0) FROM section AS c"
                       "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id)"
                       " AS points_done,"
                       " (SELECT coalesce(sum(b.point_count - b.ok_count), 0) FROM section AS c"
                       "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id)"
                       " AS points_failed"
                       " FROM sweep AS s WHERE s.id = ?1",
                       sweep_id, "cannot read the sweep's progress", out, err);
}

/* --- a section ---------------------------------------------------------------- */

/* Up to this many failed points, they are found through point_index. */
#define FAILED_BY_INDEX 200

int store_failed_points(store *s, int64_t section_id, int64_t expected, size_t max, table **out,
                        char **err)
{
    /* A few failures: through point_index, one block each. Many: '+' keeps
     * SQLite off that index, so each of the section's blocks is read once. */
    const char *sql =
        expected <= FAILED_BY_INDEX
            ? "SELECT ordinal, status, params_json, coalesce(error, '') AS error FROM point"
              " WHERE section_id = ?1 AND status <> 'ok' ORDER BY ordinal LIMIT ?2"
            : "SELECT ordinal, status, params_json, coalesce(error, '') AS error FROM point"
              " WHERE section_id = ?1 AND +status <> 'ok' ORDER BY ordinal LIMIT ?2";
    const char *what = "cannot read the failed points";
    *out = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, section_id);
    sqlite3_bind_int64(st, 2, (int64_t)max);
    int rc = storei_query_table(s, st, what, out, err);
    sqlite3_finalize(st);
    return rc;
}

int store_column_docs(store *s, const char *plugin, table **out, char **err)
{
    const char *what = "cannot read the column docs";
    *out = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT name, doc FROM plugin_column WHERE plugin = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    storei_bind_text(st, 1, plugin);
    int rc = storei_query_table(s, st, what, out, err);
    sqlite3_finalize(st);
    return rc;
}

/* The section's plugin and sweep: 1 found, 0 no such section, -1. */
static int section_owner(store *s, int64_t section_id, char **plugin, int64_t *sweep_id,
                         const char *what, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT plugin, sweep_id FROM section WHERE id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, section_id);
    int rc = sqlite3_step(st), oom = 0;
    if (rc == SQLITE_ROW) {
        *plugin = storei_column_strdup(st, 0, &oom);
        *sweep_id = sqlite3_column_int64(st, 1);
    }
    int found = rc == SQLITE_ROW && *plugin ? 1 : rc == SQLITE_DONE ? 0 : -1;
    if (found < 0 && (oom || rc == SQLITE_ROW))
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (found < 0)
        storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return found;
}

int store_section_result_columns(store *s, int64_t section_id, table **out, char **plugin,
                                 int64_t *sweep_id, char **err)
{
    *out = NULL;
    *plugin = NULL;
    *sweep_id = 0;
    const char *what = "cannot read the section's columns";
    int found = section_owner(s, section_id, plugin, sweep_id, "cannot read the section", err);
    if (found <= 0)
        return found;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(
            s->db,
            "SELECT c.name, c.unit, c.type, c.role = 'param' FROM plugin_column AS c"
            " WHERE c.plugin = ?1 AND c.name IN (SELECT name FROM pragma_table_info(?1))"
            " ORDER BY c.role <> 'param', c.position, c.name",
            -1, &st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto fail;
    }
    storei_bind_text(st, 1, *plugin);
    table *t = table_new(NULL);
    int rc = SQLITE_DONE, oom = !t;
    while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW)
        oom = table_add_column(t, (const char *)sqlite3_column_text(st, 0),
                               (const char *)sqlite3_column_text(st, 1),
                               storei_type_from_name((const char *)sqlite3_column_text(st, 2)),
                               sqlite3_column_int(st, 3)) != 0;
    if (oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (rc != SQLITE_DONE)
        storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    if (oom || rc != SQLITE_DONE) {
        table_free(t);
        goto fail;
    }
    *out = t;
    return 0;
fail:
    free(*plugin);
    *plugin = NULL;
    return -1;
}
