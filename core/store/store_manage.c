/* store_manage.c: managing stored sweeps — finding them by name, script,
 * tag, plugin, status and time; listing them; names, notes and tags;
 * removing a sweep with everything of it; giving the space back. */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The catalog tables that hold rows of a sweep, children before parents
 * (foreign keys are on), each deleted by its sweep_id column after the
 * plugins' result tables and point_index (which has none). A new table
 * that refers to sweep(id), such as a sweep's artifacts, is added here and
 * `runner rm` removes its rows too; docs/schema.md lists the same. */
static const char *const sweep_tables[] = {
    "command_run",  "artifact",      "sweep_command", "point_block", "series",
    "point_system", "section",       "sweep_plugin",  "outbox",      "sweep_tag",
    "merge_source", "sweep_machine", "sweep_printed", "sweep",
};

/* --- which sweeps --------------------------------------------------------- */

/* Appends the WHERE clause of f (over sweep AS s) to sql and its values,
 * in order, to binds (at most STORE_FILTER_BINDS); pattern is f->text as a
 * LIKE pattern. */
#define STORE_FILTER_BINDS 16
static size_t filter_where(const store_sweep_filter *f, strbuf *sql, const char **binds,
                           const char *pattern)
{
    size_t n = 0;
    strbuf_str(sql, " WHERE 1");
    if (!f)
        return 0;
    if (f->id > 0) {
        /* an integer: written into the SQL (every bound value is text) */
        strbuf_printf(sql, " AND s.id = %lld", (long long)f->id);
    }
    if (f->name) {
        strbuf_str(sql, " AND s.name = ?");
        binds[n++] = f->name;
    }
    if (f->script && strchr(f->script, '/')) {
        /* A path: as recorded, or with a leading ./ either side. */
        const char *path = strncmp(f->script, "./", 2) == 0 ? f->script + 2 : f->script;
        strbuf_str(sql, " AND (s.script_path = ? OR s.script_path = './' || ?)");
        binds[n++] = path;
        binds[n++] = path;
    } else if (f->script) {
        /* A file name: the recorded path's last part. */
        strbuf_str(sql, " AND (s.script_path = ? OR substr(s.script_path, -length(?) - 1) ="
                        " '/' || ?)");
        binds[n++] = f->script;
        binds[n++] = f->script;
        binds[n++] = f->script;
    }
    if (f->tag) {
        /* IN, not EXISTS: SQLite then reads the tag's sweeps by id through
         * sweep_tag_by_tag instead of scanning every sweep row. */
        strbuf_str(sql, " AND s.id IN (SELECT sweep_id FROM sweep_tag WHERE tag = ?)");
        binds[n++] = f->tag;
    }
    if (f->plugin) {
        strbuf_str(sql, " AND s.id IN (SELECT sweep_id FROM section WHERE plugin = ?)");
        binds[n++] = f->plugin;
    }
    if (f->status) {
        strbuf_str(sql, " AND " STORE_SWEEP_STATUS_SQL " = ?");
        binds[n++] = f->status;
    }
    if (f->since) {
        strbuf_str(sql, " AND s.started_at >= ?");
        binds[n++] = f->since;
    }
    if (f->until) {
        strbuf_str(sql, " AND s.started_at < ?");
        binds[n++] = f->until;
    }
    if (f->text) {
        strbuf_str(sql, " AND (s.script_path LIKE ? ESCAPE '\\' OR CAST(s.id AS TEXT) = ?"
                        " OR s.name LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM sweep_tag AS t"
                        " WHERE t.sweep_id = s.id AND t.tag LIKE ? ESCAPE '\\'))");
        binds[n++] = pattern;
        binds[n++] = f->text;
        binds[n++] = pattern;
        binds[n++] = pattern;
    }
    return n;
}

/* "%text%" with LIKE's wildcards in text escaped; malloc'd (NULL: no
 * memory). */
static char *like_pattern(const char *text)
{
    strbuf b = { 0 };
    strbuf_str(&b, "%");
    for (const char *p = text; *p; p++) {
        if (*p == '%' || *p == '_' || *p == '\\')
            strbuf_str(&b, "\\");
        strbuf_add(&b, p, 1);
    }
    strbuf_str(&b, "%");
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data;
}

sqlite3_stmt *storei_prepare_filtered(store *s, const char *head, const store_sweep_filter *f,
                                      const char *tail, const char *what, char **err)
{
    strbuf sql = { 0 };
    const char *binds[STORE_FILTER_BINDS];
    char *pattern = f && f->text ? like_pattern(f->text) : NULL;
    strbuf_str(&sql, head);
    strbuf_str(&sql, " FROM sweep AS s");
    size_t n = filter_where(f, &sql, binds, pattern);
    strbuf_str(&sql, tail);
    sqlite3_stmt *st = NULL;
    if (sql.oom || (f && f->text && !pattern))
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "%s", what);
    /* Copied: the pattern is freed here. */
    for (size_t i = 0; st && i < n; i++)
        sqlite3_bind_text(st, (int)i + 1, binds[i], -1, SQLITE_TRANSIENT);
    free(pattern);
    strbuf_free(&sql);
    return st;
}

int store_sweeps_matching(store *s, const store_sweep_filter *f, int64_t **ids, size_t *count,
                          char **err)
{
    const char *what = "cannot find sweeps";
    *ids = NULL;
    *count = 0;
    sqlite3_stmt *st =
        storei_prepare_filtered(s, "SELECT s.id", f, " ORDER BY s.id DESC", what, err);
    if (!st)
        return -1;
    int rc = storei_collect_ids(s, st, what, ids, count, err);
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_scripts_matching(store *s, const store_sweep_filter *f, char ***paths,
                                 int64_t **newest, size_t *count, char **err)
{
    const char *what = "cannot find sweeps";
    *paths = NULL;
    *newest = NULL;
    *count = 0;
    sqlite3_stmt *st =
        storei_prepare_filtered(s, "SELECT max(s.id), s.script_path", f,
                                " GROUP BY s.script_path ORDER BY 1 DESC", what, err);
    if (!st)
        return -1;
    int rc = storei_collect_ids(s, st, what, newest, count, err);
    if (rc == 0 && *count > 0) {
        *paths = calloc(*count, sizeof **paths);
        int oom = !*paths;
        sqlite3_reset(st);
        for (size_t i = 0; !oom && i < *count && sqlite3_step(st) == SQLITE_ROW; i++)
            (*paths)[i] = storei_column_strdup(st, 1, &oom);
        if (oom) {
            store_free_strings(*paths, *count);
            free(*newest);
            *paths = NULL;
            *newest = NULL;
            rc = util_fail(err, "%s: %s: out of memory", s->path, what);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

void store_free_strings(char **list, size_t count)
{
    for (size_t i = 0; list && i < count; i++)
        free(list[i]);
    free(list);
}

/* --- listing -------------------------------------------------------------- */

/* Every count is an index lookup (section_by_sweep, point_block_by_sweep,
 * sweep_tag's key), so the list costs the same per sweep however many
 * points a sweep has. */
static const char list_head[] =
    "SELECT s.id, s.name, s.script_path,"
    " (SELECT group_concat(tag, ',') FROM (SELECT tag FROM sweep_tag WHERE sweep_id = s.id"
    "   ORDER BY tag)),"
    " " STORE_SWEEP_STATUS_SQL ","
    " (SELECT count(*) FROM section WHERE sweep_id = s.id),"
    " (SELECT coalesce(sum(ok_count), 0) FROM point_block WHERE sweep_id = s.id),"
    " (SELECT coalesce(sum(point_count - ok_count), 0) FROM point_block WHERE sweep_id = s.id),"
    " s.started_at,"
    " round((julianday(s.ended_at) - julianday(s.started_at)) * 86400.0, 3),"
    " CASE WHEN s.overrides_json <> '{}' THEN"
    "  (SELECT group_concat(key || '=' || value, ' ') FROM json_each(s.overrides_json)) END";

int store_list_sweeps_matching(store *s, const store_sweep_filter *f, table **out, char **err)
{
    *out = NULL;
    const char *what = "cannot list sweeps";
    static const struct {
        const char *name, *unit;
        runner_type type;
    } columns[] = {
        { "id", "", RUNNER_INTEGER },        { "name", "", RUNNER_TEXT },
        { "script", "", RUNNER_TEXT },       { "tags", "", RUNNER_TEXT },
        { "status", "", RUNNER_TEXT },       { "sections", "", RUNNER_INTEGER },
        { "points_ok", "", RUNNER_INTEGER }, { "points_failed", "", RUNNER_INTEGER },
        { "started_at", "", RUNNER_TEXT },   { "duration", "s", RUNNER_REAL },
        { "overrides", "", RUNNER_TEXT },
    };
    enum {
        NCOLS = sizeof columns / sizeof columns[0]
    };
    value row[NCOLS] = { 0 };
    table *t = table_new("sweeps");
    sqlite3_stmt *st = NULL;
    if (!t)
        goto oom;
    for (int i = 0; i < NCOLS; i++)
        if (table_add_column(t, columns[i].name, columns[i].unit, columns[i].type, 0) != 0)
            goto oom;
    if (!(st = storei_prepare_filtered(s, list_head, f, " ORDER BY s.id", what, err)))
        goto fail;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < NCOLS; i++)
            if (storei_column_value(st, i, columns[i].type, &row[i]) != 0)
                goto oom;
        if (table_append_row(t, row) != 0)
            goto oom;
    }
    if (rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        goto fail;
    }
    sqlite3_finalize(st);
    *out = t;
    return 0;
oom:
    util_fail(err, "%s: %s: out of memory", s->path, what);
fail:
    sqlite3_finalize(st);
    for (int i = 0; i < NCOLS; i++)
        value_clear(&row[i]);
    table_free(t);
    return -1;
}

/* --- names, notes, tags --------------------------------------------------- */

/* Runs sql (one statement, ?1 the sweep id, ?2 text) once. */
static int run_on_sweep(store *s, const char *sql, int64_t sweep_id, const char *text,
                        const char *what, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    storei_bind_text(st, 2, text);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc;
}

int store_sweep_set_name(store *s, int64_t sweep_id, const char *name, char **err)
{
    return run_on_sweep(s, "UPDATE sweep SET name = ?2 WHERE id = ?1", sweep_id, name,
                        "cannot rename the sweep", err);
}

int store_sweep_set_note(store *s, int64_t sweep_id, const char *note, char **err)
{
    return run_on_sweep(s, "UPDATE sweep SET note = ?2 WHERE id = ?1", sweep_id, note,
                        "cannot set the sweep's note", err);
}

int store_sweep_retag(store *s, int64_t sweep_id, const char *const *add, size_t add_count,
                      const char *const *drop, size_t drop_count, char **err)
{
    const char *what = "cannot change the sweep's tags";
    if (storei_batch_commit(s, err) != 0 || storei_exec(s, "BEGIN IMMEDIATE", what, err) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < drop_count; i++)
        rc = run_on_sweep(s, "DELETE FROM sweep_tag WHERE sweep_id = ?1 AND tag = ?2", sweep_id,
                          drop[i], what, err);
    for (size_t i = 0; rc == 0 && i < add_count; i++)
        rc = run_on_sweep(s, "INSERT OR IGNORE INTO sweep_tag (sweep_id, tag) VALUES (?1, ?2)",
                          sweep_id, add[i], what, err);
    if (rc == 0 && storei_exec(s, "COMMIT", what, err) == 0)
        return 0;
    storei_rollback(s);
    return -1;
}

/* --- removing --------------------------------------------------------------- */

/* Deletes every row of one sweep: its result rows in each plugin's table,
 * then point_index through its blocks, its fits, then the catalog tables. */
static int remove_one(store *s, int64_t sweep_id, char **plugins, size_t plugin_count, char **err)
{
    char what[96];
    snprintf(what, sizeof what, "cannot remove sweep %" PRId64, sweep_id);
    for (size_t i = 0; i < plugin_count; i++) {
        strbuf sql = { 0 };
        strbuf_str(&sql, "DELETE FROM ");
        storei_append_ident(&sql, plugins[i]);
        strbuf_str(&sql, " WHERE sweep_id = ?1");
        int rc = sql.data ? run_on_sweep(s, sql.data, sweep_id, NULL, what, err)
                          : util_fail(err, "%s: %s: out of memory", s->path, what);
        strbuf_free(&sql);
        if (rc != 0)
            return -1;
    }
    if (run_on_sweep(s,
                     "DELETE FROM point_index WHERE block_id IN"
                     " (SELECT id FROM point_block WHERE sweep_id = ?1)",
                     sweep_id, NULL, what, err) != 0)
        return -1;
    /* Its fits (runner fit), before the sections they refer to. */
    if (run_on_sweep(s,
                     "DELETE FROM fit_curve WHERE fit_id IN"
                     " (SELECT id FROM fit WHERE sweep_id = ?1)",
                     sweep_id, NULL, what, err) != 0 ||
        run_on_sweep(s,
                     "DELETE FROM fit_residual WHERE fit_id IN"
                     " (SELECT id FROM fit WHERE sweep_id = ?1)",
                     sweep_id, NULL, what, err) != 0 ||
        run_on_sweep(s,
                     "DELETE FROM fit_param WHERE fit_id IN"
                     " (SELECT id FROM fit WHERE sweep_id = ?1)",
                     sweep_id, NULL, what, err) != 0 ||
        run_on_sweep(s, "DELETE FROM fit WHERE sweep_id = ?1", sweep_id, NULL, what, err) != 0)
        return -1;
    /* Its answers (sensitivity, pareto, diff --stat: a comparison goes
     * with either of its sweeps). */
    static const char *const answer_deletes[] = {
        "DELETE FROM sensitivity_index WHERE sensitivity_id IN"
        " (SELECT id FROM sensitivity WHERE sweep_id = ?1)",
        "DELETE FROM sensitivity WHERE sweep_id = ?1",
        "DELETE FROM pareto_objective WHERE pareto_id IN (SELECT id FROM pareto WHERE sweep_id = ?1)",
        "DELETE FROM pareto_member WHERE pareto_id IN (SELECT id FROM pareto WHERE sweep_id = ?1)",
        "DELETE FROM pareto WHERE sweep_id = ?1",
        "DELETE FROM stat_diff_row WHERE stat_diff_id IN"
        " (SELECT id FROM stat_diff WHERE sweep_a = ?1 OR sweep_b = ?1)",
        "DELETE FROM stat_diff WHERE sweep_a = ?1 OR sweep_b = ?1",
    };
    for (size_t i = 0; i < sizeof answer_deletes / sizeof *answer_deletes; i++)
        if (run_on_sweep(s, answer_deletes[i], sweep_id, NULL, what, err) != 0)
            return -1;
    for (size_t i = 0; i < sizeof sweep_tables / sizeof sweep_tables[0]; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s = ?1", sweep_tables[i],
                 strcmp(sweep_tables[i], "sweep") == 0 ? "id" : "sweep_id");
        if (run_on_sweep(s, sql, sweep_id, NULL, what, err) != 0)
            return -1;
    }
    return 0;
}

int store_sweeps_remove(store *s, const int64_t *ids, size_t count, char **err)
{
    const char *what = "cannot remove sweeps";
    char **plugins = NULL;
    size_t plugin_count = 0;
    if (storei_batch_commit(s, err) != 0 || storei_exec(s, "BEGIN IMMEDIATE", what, err) != 0)
        return -1;
    /* The result tables: every plugin that has one (a plugin table is named
     * after the plugin and listed in plugin_column). */
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT DISTINCT c.plugin FROM plugin_column AS c"
                                " JOIN sqlite_master AS m ON m.type = 'table'"
                                " AND m.name = c.plugin ORDER BY 1",
                                -1, &st, NULL) == SQLITE_OK
                 ? 0
                 : storei_fail_sql(s, err, "%s", what);
    size_t cap = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        if (plugin_count == cap) {
            cap = cap ? 2 * cap : 8;
            char **grown = realloc(plugins, cap * sizeof *grown);
            if (!grown) {
                rc = util_fail(err, "%s: %s: out of memory", s->path, what);
                break;
            }
            plugins = grown;
        }
        int oom = 0;
        plugins[plugin_count++] = storei_column_strdup(st, 0, &oom);
        if (oom)
            rc = util_fail(err, "%s: %s: out of memory", s->path, what);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; rc == 0 && i < count; i++)
        rc = remove_one(s, ids[i], plugins, plugin_count, err);
    /* Artifact contents are shared between sweeps (by SHA-256): only those
     * no artifact refers to any more go. */
    if (rc == 0)
        rc = storei_exec(s,
                         "DELETE FROM artifact_blob WHERE NOT EXISTS (SELECT 1 FROM artifact"
                         " AS a WHERE a.sha256 = artifact_blob.sha256)",
                         what, err);
    store_free_strings(plugins, plugin_count);
    if (rc == 0 && storei_exec(s, "COMMIT", what, err) == 0)
        return 0;
    storei_rollback(s);
    return -1;
}

static int64_t file_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

int store_vacuum(store *s, int64_t *bytes_before, int64_t *bytes_after, char **err)
{
    const char *what = "cannot vacuum";
    char *wal = util_format("%s-wal", s->path);
    if (!wal)
        return util_fail(err, "%s: %s: out of memory", s->path, what);
    int rc = storei_batch_commit(s, err);
    /* Sizes after a full checkpoint, so the WAL does not count. */
    if (rc == 0)
        rc = storei_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)", what, err);
    *bytes_before = file_bytes(s->path) + file_bytes(wal);
    if (rc == 0)
        rc = storei_exec(s, "VACUUM", what, err);
    if (rc == 0)
        rc = storei_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)", what, err);
    *bytes_after = file_bytes(s->path) + file_bytes(wal);
    free(wal);
    return rc;
}
