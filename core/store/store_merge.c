/* store_merge.c: sharded sweeps (docs/slurm.md). Records which shard a
 * sweep runs, and merges the shards' databases into one sweep equal to a
 * single-process run: same sections, points in the same order with the
 * same values, result rows in point order. The shards are ATTACHed one at
 * a time (SQLite attaches at most ten) to check that they belong together
 * and that no point is missing, and to gather their catalogs into
 * temporary tables; then the sweep and its sections are written in one
 * transaction, the points and rows by store_merge_write.c, and last the
 * sweep's status. A merge cut short leaves its sweep 'running'; the next
 * merge of the same shards deletes it and starts over, and a merge that
 * finished is not done twice. */
#include "store_merge_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define MERGE_SHOWN_MISSING 10 /* missing ordinals named per section */

int store_sweep_shard(store *s, int64_t sweep_id, uint32_t index, uint32_t count, char **err)
{
    sqlite3_stmt *st = NULL;
    const char *what = "cannot record the sweep's shard";
    if (sqlite3_prepare_v2(s->db,
                           "UPDATE sweep SET shard_index = ?2, shard_count = ?3 WHERE id = ?1", -1,
                           &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, index);
    sqlite3_bind_int64(st, 3, count);
    int rc = storei_step_done(s, st, what, err);
    sqlite3_finalize(st);
    return rc;
}

/* --- SQL helpers ---------------------------------------------------------- */

/* Runs sql with integer parameters ?1..?n, ignoring rows. */
static int run_sql(store *s, const char *sql, const int64_t *args, int n, const char *what,
                   char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 1, args[i]);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    if (rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

/* The first column of sql's first row as an integer (0 without a row). */
static int query_int(store *s, const char *sql, const int64_t *args, int n, int64_t *out,
                     const char *what, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 1, args[i]);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

static int attach(store *s, const char *path, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "ATTACH ?1 AS shard", -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot attach %s", path);
    storei_bind_text(st, 1, path);
    int rc = storei_step_done(s, st, "cannot attach a shard", err);
    sqlite3_finalize(st);
    if (rc != 0)
        return util_fail(err, "%s: cannot read it as a shard: %s", path, sqlite3_errmsg(s->db));
    return 0;
}

static void detach(store *s) { sqlite3_exec(s->db, "DETACH shard", NULL, NULL, NULL); }

/* --- the temporary catalog -------------------------------------------------- */

static const char temp_tables_sql[] =
    "DROP TABLE IF EXISTS temp.merge_sweep; DROP TABLE IF EXISTS temp.merge_section;"
    "DROP TABLE IF EXISTS temp.merge_plugin; DROP TABLE IF EXISTS temp.merge_point;"
    "DROP TABLE IF EXISTS temp.merge_table; DROP TABLE IF EXISTS temp.merge_column;"
    /* The first shard's sweep row, the provenance the merged sweep keeps. */
    "CREATE TEMP TABLE merge_sweep AS SELECT * FROM main.sweep WHERE 0;"
    "CREATE TEMP TABLE merge_section (ordinal INTEGER PRIMARY KEY, plugin TEXT, title TEXT,"
    " script_line INTEGER, point_count INTEGER, stored INTEGER DEFAULT 0, new_id INTEGER);"
    "CREATE TEMP TABLE merge_plugin (plugin TEXT PRIMARY KEY, plugin_version TEXT, so_path TEXT,"
    " so_sha256 TEXT);"
    /* The points shards hold, by section and ordinal: read only to name
     * the missing ones. */
    "CREATE TEMP TABLE merge_point (section_ordinal INTEGER, ordinal INTEGER);"
    "CREATE TEMP TABLE merge_table (plugin TEXT PRIMARY KEY, create_sql TEXT);"
    "CREATE TEMP TABLE merge_column AS SELECT * FROM main.plugin_column WHERE 0;";

static const char drop_temp_sql[] =
    "DROP TABLE IF EXISTS temp.merge_sweep; DROP TABLE IF EXISTS temp.merge_section;"
    "DROP TABLE IF EXISTS temp.merge_plugin; DROP TABLE IF EXISTS temp.merge_point;"
    "DROP TABLE IF EXISTS temp.merge_table; DROP TABLE IF EXISTS temp.merge_column;";

/* --- reading and checking the shards ------------------------------------------ */

/* What must be equal across the shards: the field's name for the message,
 * and the expression reading it from the shard's sweep row. */
static const struct {
    const char *field;
    const char *expr;
} belonging[] = {
    { "shard count", "CAST(shard_count AS TEXT)" }, { "script SHA-256", "script_sha256" },
    { "sweep seed", "CAST(seed AS TEXT)" },         { "overrides (--set)", "overrides_json" },
    { "runner version", "runner_version" },
};
#define BELONGING_COUNT (sizeof belonging / sizeof belonging[0])
_Static_assert(BELONGING_COUNT == MERGE_BELONGING_FIELDS, "merge.reference holds each field");

/* Reads the shard's newest sharded sweep: its id, index, status and the
 * fields that must match the first shard's. */
static int read_shard_sweep(merge *m, size_t k, char **err)
{
    store *s = m->s;
    const char *path = m->paths[k];
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT id, shard_index, status");
    for (size_t f = 0; f < BELONGING_COUNT; f++)
        strbuf_printf(&sql, ", %s", belonging[f].expr);
    strbuf_str(
        &sql,
        ", started_at, ended_at FROM shard.sweep WHERE shard_index IS NOT NULL ORDER BY id DESC LIMIT 1");
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sql.oom || sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK) {
        util_fail(err, "%s: cannot read its sweep: %s", path, sqlite3_errmsg(s->db));
        goto done;
    }
    if (sqlite3_step(st) != SQLITE_ROW) {
        util_fail(err, "%s holds no sharded sweep (run 'runner sweep SCRIPT --shard I/N --db %s')",
                  path, path);
        goto done;
    }
    m->sweep_of[k] = sqlite3_column_int64(st, 0);
    m->index_of[k] = (uint32_t)sqlite3_column_int64(st, 1);
    const char *status = (const char *)sqlite3_column_text(st, 2);
    const char *started = (const char *)sqlite3_column_text(st, 3 + (int)BELONGING_COUNT);
    const char *ended = (const char *)sqlite3_column_text(st, 4 + (int)BELONGING_COUNT);
    if (started && (k == 0 || strcmp(started, m->started) < 0))
        snprintf(m->started, sizeof m->started, "%s", started);
    if (ended && strcmp(ended, m->ended) > 0)
        snprintf(m->ended, sizeof m->ended, "%s", ended);
    for (size_t f = 0; f < BELONGING_COUNT; f++) {
        const char *v = (const char *)sqlite3_column_text(st, 3 + (int)f);
        if (k == 0) {
            m->reference[f] = util_strdup(v ? v : "");
            continue;
        }
        if (strcmp(v ? v : "", m->reference[f]) != 0) {
            util_fail(err, "merge: %s does not belong with %s: the %s differs (%s, not %s)", path,
                      m->paths[0], belonging[f].field, v ? v : "", m->reference[f]);
            goto done;
        }
    }
    if (k == 0)
        m->shard_count = (uint32_t)strtoul(m->reference[0], NULL, 10);
    for (size_t j = 0; j < k; j++)
        if (m->index_of[j] == m->index_of[k]) {
            util_fail(err, "merge: %s and %s both hold shard %u/%u", m->paths[j], path,
                      m->index_of[k], m->shard_count);
            goto done;
        }
    if (strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0) {
        m->incomplete = 1;
        strbuf_printf(&m->problems, "%sshard %u/%u (%s) is incomplete (sweep %" PRId64 " %s)",
                      m->problems.len ? "; " : "", m->index_of[k], m->shard_count, path,
                      m->sweep_of[k], status);
    }
    m->any_failed |= strcmp(status, "failed") == 0;
    rc = 0;
done:
    sqlite3_finalize(st);
    free(sql.data);
    return rc;
}

/* Plugins and sections the shard shares with those read before must be the
 * same (.so SHA-256; plugin and point count). */
static int check_shard_parts(merge *m, size_t k, char **err)
{
    store *s = m->s;
    int64_t sweep = m->sweep_of[k];
    sqlite3_stmt *st = NULL;
    const char *diff =
        "SELECT p.plugin, p.so_sha256, t.so_sha256 FROM shard.sweep_plugin AS p"
        " JOIN temp.merge_plugin AS t ON t.plugin = p.plugin"
        " WHERE p.sweep_id = ?1 AND p.so_sha256 <> t.so_sha256"
        " UNION ALL SELECT 'section ' || c.ordinal, c.plugin || ' with ' || c.point_count ||"
        " ' points', t.plugin || ' with ' || t.point_count || ' points' FROM shard.section AS c"
        " JOIN temp.merge_section AS t ON t.ordinal = c.ordinal"
        " WHERE c.sweep_id = ?1 AND (c.plugin <> t.plugin OR c.point_count <> t.point_count)"
        " LIMIT 1";
    if (sqlite3_prepare_v2(s->db, diff, -1, &st, NULL) != SQLITE_OK)
        return util_fail(err, "%s: cannot read its plugins: %s", m->paths[k],
                         sqlite3_errmsg(s->db));
    sqlite3_bind_int64(st, 1, sweep);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *what = (const char *)sqlite3_column_text(st, 0);
        int section = strncmp(what, "section ", 8) == 0;
        util_fail(err,
                  "merge: %s does not belong with the shards before it: %s%s%s differs (%s, "
                  "not %s)",
                  m->paths[k], section ? "" : "plugin ", what, section ? "" : "'s .so SHA-256",
                  sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

/* What the merge takes from each shard's catalog (?1: its sweep): plugins,
 * sections, result tables' definitions and column metadata. */
static const struct {
    const char *sql, *what;
} shard_catalog[] = {
    { "INSERT OR IGNORE INTO temp.merge_plugin SELECT plugin, plugin_version, so_path, so_sha256"
      " FROM shard.sweep_plugin WHERE sweep_id = ?1",
      "cannot read the shard's plugins" },
    { "INSERT OR IGNORE INTO temp.merge_section (ordinal, plugin, title, script_line, point_count)"
      " SELECT ordinal, plugin, title, script_line, point_count FROM shard.section"
      " WHERE sweep_id = ?1",
      "cannot read the shard's sections" },
    { "INSERT OR IGNORE INTO temp.merge_table SELECT t.name, t.sql FROM shard.sqlite_master AS t"
      " WHERE t.type = 'table' AND t.name IN (SELECT plugin FROM shard.section"
      " WHERE sweep_id = ?1)",
      "cannot read the shard's result tables" },
    { "INSERT INTO temp.merge_column SELECT * FROM shard.plugin_column AS c WHERE c.plugin IN"
      " (SELECT plugin FROM shard.section WHERE sweep_id = ?1) AND NOT EXISTS (SELECT 1 FROM"
      " temp.merge_column AS t WHERE t.plugin = c.plugin AND t.name = c.name)",
      "cannot read the shard's columns" },
};

static int read_shard_catalog(merge *m, size_t k, char **err)
{
    int64_t args[] = { m->sweep_of[k] };
    for (size_t i = 0; i < sizeof shard_catalog / sizeof shard_catalog[0]; i++)
        if (run_sql(m->s, shard_catalog[i].sql, args, 1, shard_catalog[i].what, err) != 0)
            return -1;
    return 0;
}

/* The ordinals of every point the shard holds (to name the missing ones). */
static int read_shard_ordinals(merge *m, size_t k, char **err)
{
    if (attach(m->s, m->paths[k], err) != 0)
        return -1;
    int64_t args[] = { m->sweep_of[k] };
    int rc = run_sql(m->s,
                     "INSERT INTO temp.merge_point SELECT c.ordinal, json_extract(p.value, '$[1]')"
                     " FROM shard.section AS c JOIN shard.point_block AS b ON b.section_id = c.id,"
                     " json_each(b.points) AS p WHERE c.sweep_id = ?1",
                     args, 1, "cannot read the shard's points", err);
    detach(m->s);
    return rc;
}

static int read_shard(merge *m, size_t k, char **err)
{
    store *s = m->s;
    if (attach(s, m->paths[k], err) != 0)
        return -1;
    int64_t version = 0;
    int rc = query_int(s, "PRAGMA shard.user_version", NULL, 0, &version, "cannot read it", err);
    if (rc == 0 && version != store_schema_version())
        rc = util_fail(err,
                       "merge: %s: its schema version is %" PRId64 ", not %d as this "
                       "runner's (shards and merge need the same runner; 'runner migrate --db "
                       "%s' upgrades an older one)",
                       m->paths[k], version, store_schema_version(), m->paths[k]);
    if (rc == 0)
        rc = read_shard_sweep(m, k, err);
    if (rc == 0 && k == 0) {
        int64_t args[] = { m->sweep_of[0] };
        rc = run_sql(s, "INSERT INTO temp.merge_sweep SELECT * FROM shard.sweep WHERE id = ?1",
                     args, 1, "cannot read the sweep", err);
    }
    if (rc == 0)
        rc = check_shard_parts(m, k, err);
    if (rc == 0)
        rc = read_shard_catalog(m, k, err);
    if (rc == 0) {
        int64_t args[] = { m->sweep_of[k] };
        rc = run_sql(s,
                     "UPDATE temp.merge_section SET stored = stored + (SELECT"
                     " coalesce(sum(b.point_count), 0) FROM shard.point_block AS b"
                     " JOIN shard.section AS c ON c.id = b.section_id WHERE c.sweep_id = ?1"
                     " AND c.ordinal = merge_section.ordinal)",
                     args, 1, "cannot count the shard's points", err);
    }
    detach(s);
    return rc;
}

/* Names the shards no database was given for, and the points nobody has.
 * Returns 0 when every point is there. */
static int find_missing(merge *m, char **err)
{
    for (uint32_t i = 1; i <= m->shard_count; i++) {
        size_t k = 0;
        while (k < m->count && m->index_of[k] != i)
            k++;
        if (k == m->count)
            strbuf_printf(&m->problems, "%sshard %u/%u is missing", m->problems.len ? "; " : "", i,
                          m->shard_count);
    }
    int64_t short_sections = 0;
    if (query_int(m->s, "SELECT count(*) FROM temp.merge_section WHERE stored <> point_count", NULL,
                  0, &short_sections, "cannot count the points", err) != 0)
        return -1;
    if (!short_sections && !m->problems.len && !m->incomplete)
        return 0;
    for (size_t k = 0; k < m->count; k++)
        if (read_shard_ordinals(m, k, err) != 0)
            return -1;
    if (run_sql(m->s,
                "CREATE INDEX temp.merge_point_by_ordinal ON merge_point"
                " (section_ordinal, ordinal)",
                NULL, 0, "cannot index the points", err) != 0)
        return -1;
    sqlite3_stmt *st = NULL;
    const char *sql =
        "WITH RECURSIVE n(section, ordinal) AS (SELECT ordinal, 0 FROM temp.merge_section"
        "  WHERE point_count > 0"
        " UNION ALL SELECT n.section, n.ordinal + 1 FROM n JOIN temp.merge_section AS c"
        "  ON c.ordinal = n.section WHERE n.ordinal + 1 < c.point_count)"
        " SELECT section, ordinal FROM n WHERE NOT EXISTS (SELECT 1 FROM temp.merge_point AS p"
        "  WHERE p.section_ordinal = n.section AND p.ordinal = n.ordinal)"
        " ORDER BY section, ordinal";
    if (sqlite3_prepare_v2(m->s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(m->s, err, "cannot look for missing points");
    int64_t missing = 0, section = -1, in_section = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t sec = sqlite3_column_int64(st, 0), ordinal = sqlite3_column_int64(st, 1);
        if (sec != section) {
            if (in_section > MERGE_SHOWN_MISSING)
                strbuf_printf(&m->problems, " and %" PRId64 " more",
                              in_section - MERGE_SHOWN_MISSING);
            strbuf_printf(&m->problems, "%ssection %" PRId64 " lacks points",
                          m->problems.len ? "; " : "", sec);
            section = sec;
            in_section = 0;
        }
        if (++in_section <= MERGE_SHOWN_MISSING)
            strbuf_printf(&m->problems, "%s %" PRId64, in_section > 1 ? "," : "", ordinal);
        missing++;
    }
    if (in_section > MERGE_SHOWN_MISSING)
        strbuf_printf(&m->problems, " and %" PRId64 " more", in_section - MERGE_SHOWN_MISSING);
    sqlite3_finalize(st);
    return util_fail(err,
                     "merge: cannot merge yet: %s (%" PRId64 " points missing; nothing "
                     "was written)",
                     m->problems.oom ? "out of memory" : m->problems.data, missing);
}

/* --- writing ----------------------------------------------------------------------- */

/* The merged sweep of these shards in OUT: *id 0 when there is none. One
 * left 'running' by a merge cut short is deleted (*id 0 again). */
static int find_earlier_merge(merge *m, int64_t *id, char **err)
{
    store *s = m->s;
    const char *key =
        "SELECT s.id, s.status = 'running' FROM main.sweep AS s, temp.merge_sweep AS t"
        " WHERE s.shard_index IS NULL AND s.shard_count = t.shard_count"
        " AND s.script_sha256 = t.script_sha256 AND s.seed = t.seed"
        " AND s.overrides_json = t.overrides_json AND s.started_at = ?1"
        " ORDER BY s.id DESC LIMIT 1";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, key, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot look for an earlier merge");
    sqlite3_bind_text(st, 1, m->started, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    int leftover = rc == SQLITE_ROW && sqlite3_column_int(st, 1);
    sqlite3_finalize(st);
    if (!leftover)
        return 0;
    /* Its rows first, table by table, then its catalog rows. */
    sqlite3_stmt *tables = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT DISTINCT plugin FROM main.section WHERE sweep_id = ?1",
                           -1, &tables, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot clear an unfinished merge");
    sqlite3_bind_int64(tables, 1, *id);
    int64_t args[] = { *id };
    int bad = 0;
    while (!bad && sqlite3_step(tables) == SQLITE_ROW) {
        strbuf sql = { 0 };
        strbuf_str(&sql, "DELETE FROM main.");
        storei_append_ident(&sql, (const char *)sqlite3_column_text(tables, 0));
        strbuf_str(&sql, " WHERE sweep_id = ?1");
        bad = sql.oom || run_sql(s, sql.data, args, 1, "cannot clear an unfinished merge", err);
        free(sql.data);
    }
    sqlite3_finalize(tables);
    if (bad)
        return -1;
    *id = 0;
    return run_sql(s,
                   "DELETE FROM main.point_index WHERE block_id IN"
                   " (SELECT id FROM main.point_block WHERE sweep_id = ?1);",
                   args, 1, "cannot clear an unfinished merge", err) ||
                   run_sql(s, "DELETE FROM main.point_block WHERE sweep_id = ?1", args, 1,
                           "cannot clear an unfinished merge", err) ||
                   run_sql(s, "DELETE FROM main.section WHERE sweep_id = ?1", args, 1,
                           "cannot clear an unfinished merge", err) ||
                   run_sql(s, "DELETE FROM main.sweep_plugin WHERE sweep_id = ?1", args, 1,
                           "cannot clear an unfinished merge", err) ||
                   run_sql(s, "DELETE FROM main.sweep WHERE id = ?1", args, 1,
                           "cannot clear an unfinished merge", err)
               ? -1
               : 0;
}

/* Adds to OUT's result table the columns a shard's has and it lacks (a
 * newer plugin version), typed as store_prepare_plugin types them. */
static int widen_table(store *s, const char *plugin, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT c.name, CASE c.type WHEN 'real' THEN 'REAL' WHEN 'text' THEN"
                           " 'TEXT' ELSE 'INTEGER' END FROM temp.merge_column AS c WHERE"
                           " c.plugin = ?1 AND c.name NOT IN (SELECT name FROM"
                           " pragma_table_info(?1, 'main'))",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot widen result table \"%s\"", plugin);
    storei_bind_text(st, 1, plugin);
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        strbuf sql = { 0 };
        strbuf_str(&sql, "ALTER TABLE main.");
        storei_append_ident(&sql, plugin);
        strbuf_str(&sql, " ADD COLUMN ");
        storei_append_ident(&sql, (const char *)sqlite3_column_text(st, 0));
        strbuf_printf(&sql, " %s", (const char *)sqlite3_column_text(st, 1));
        if (sql.oom || sqlite3_exec(s->db, sql.data, NULL, NULL, NULL) != SQLITE_OK)
            rc = storei_fail_sql(s, err, "cannot widen result table \"%s\"", plugin);
        free(sql.data);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The result tables OUT lacks (as the shards made them, with their index),
 * the columns it lacks, and their metadata. */
static int prepare_tables(merge *m, char **err)
{
    store *s = m->s;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT t.plugin, t.create_sql, o.name IS NULL FROM temp.merge_table"
                           " AS t LEFT JOIN main.sqlite_master AS o ON o.type = 'table' AND"
                           " o.name = t.plugin",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot prepare the result tables");
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *plugin = (const char *)sqlite3_column_text(st, 0);
        if (!sqlite3_column_int(st, 2)) {
            rc = widen_table(s, plugin, err);
            continue;
        }
        strbuf sql = { 0 };
        char index_name[256];
        snprintf(index_name, sizeof index_name, "%s_by_sweep_section_point", plugin);
        strbuf_printf(&sql, "%s;\nCREATE INDEX IF NOT EXISTS ",
                      (const char *)sqlite3_column_text(st, 1));
        storei_append_ident(&sql, index_name);
        strbuf_str(&sql, " ON ");
        storei_append_ident(&sql, plugin);
        strbuf_str(&sql, " (\"sweep_id\", \"section_id\", \"point_id\")");
        if (sql.oom || sqlite3_exec(s->db, sql.data, NULL, NULL, NULL) != SQLITE_OK)
            rc = storei_fail_sql(s, err, "cannot create result table \"%s\"", plugin);
        free(sql.data);
    }
    sqlite3_finalize(st);
    if (rc != 0)
        return -1;
    return run_sql(s, "INSERT OR IGNORE INTO main.plugin_column SELECT * FROM temp.merge_column",
                   NULL, 0, "cannot record the result columns", err);
}

/* The sweep row (status 'running' until every row is in), its plugins and
 * sections; *sweep_id is the new sweep. */
static int write_sweep(merge *m, const char *command_line, int64_t *sweep_id, char **err)
{
    store *s = m->s;
    sqlite3_stmt *st = NULL;
    const char *what = "cannot record the merged sweep";
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO main.sweep (script_path, script_text, script_sha256,"
                           " options_json, overrides_json, runner_version, git_commit, host,"
                           " command_line, pid, seed, started_at, status, shard_index,"
                           " shard_count) SELECT script_path, script_text, script_sha256,"
                           " options_json, overrides_json, runner_version, git_commit, host, ?1,"
                           " NULL, seed, ?2, 'running', NULL, shard_count FROM temp.merge_sweep",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    storei_bind_text(st, 1, command_line);
    storei_bind_text(st, 2, m->started);
    int rc = storei_step_done(s, st, what, err);
    sqlite3_finalize(st);
    if (rc != 0)
        return -1;
    *sweep_id = sqlite3_last_insert_rowid(s->db);
    int64_t args[] = { *sweep_id };
    return run_sql(s,
                   "INSERT INTO main.sweep_plugin (sweep_id, plugin, plugin_version, so_path,"
                   " so_sha256) SELECT ?1, plugin, plugin_version, so_path, so_sha256"
                   " FROM temp.merge_plugin ORDER BY rowid",
                   args, 1, what, err) ||
                   run_sql(
                       s,
                       "INSERT INTO main.section (sweep_id, ordinal, plugin, title, script_line,"
                       " point_count) SELECT ?1, ordinal, plugin, title, script_line, point_count"
                       " FROM temp.merge_section ORDER BY ordinal",
                       args, 1, what, err) ||
                   run_sql(
                       s,
                       "UPDATE temp.merge_section SET new_id = (SELECT c.id FROM main.section AS c"
                       " WHERE c.sweep_id = ?1 AND c.ordinal = merge_section.ordinal)",
                       args, 1, what, err)
               ? -1
               : 0;
}

/* The sweep, its plugins and sections in one transaction; *already when
 * OUT holds this merge from an earlier run (nothing is written then). */
static int write_catalog(merge *m, const char *command_line, store_merge_result *result, char **err)
{
    store *s = m->s;
    if (storei_exec(s, "BEGIN IMMEDIATE", "cannot begin the merge", err) != 0)
        return -1;
    int rc = find_earlier_merge(m, &result->sweep_id, err);
    if (rc == 0 && result->sweep_id) {
        result->already = 1;
        return storei_exec(s, "COMMIT", "cannot end the merge", err);
    }
    if (rc == 0)
        rc = prepare_tables(m, err);
    if (rc == 0)
        rc = write_sweep(m, command_line, &result->sweep_id, err);
    if (rc == 0)
        rc = storei_exec(s, "COMMIT", "cannot commit the merged sweep", err);
    if (rc != 0)
        storei_rollback(s);
    return rc;
}

/* Closes the merged sweep: 'failed' when a shard's points failed. */
static int end_sweep(merge *m, int64_t sweep_id, char **err)
{
    sqlite3_stmt *st = NULL;
    const char *what = "cannot end the merged sweep";
    if (sqlite3_prepare_v2(m->s->db,
                           "UPDATE main.sweep SET status = ?2, ended_at = ?3"
                           " WHERE id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(m->s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_text(st, 2, m->any_failed ? "failed" : "ok", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->ended, -1, SQLITE_STATIC);
    int rc = storei_step_done(m->s, st, what, err);
    sqlite3_finalize(st);
    return rc;
}

int store_merge(store *s, const char *const *paths, size_t count, const char *command_line,
                store_merge_result *result, char **err)
{
    memset(result, 0, sizeof *result);
    merge m = { .s = s, .paths = paths, .count = count };
    m.index_of = calloc(count ? count : 1, sizeof *m.index_of);
    m.sweep_of = calloc(count ? count : 1, sizeof *m.sweep_of);
    int rc = -1;
    if (!m.index_of || !m.sweep_of) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (storei_batch_commit(s, err) != 0 ||
        storei_exec(s, temp_tables_sql, "cannot prepare the merge", err) != 0)
        goto done;
    for (size_t k = 0; k < count; k++)
        if (read_shard(&m, k, err) != 0)
            goto done;
    if (find_missing(&m, err) != 0 ||
        query_int(s, "SELECT sum(stored) FROM temp.merge_section", NULL, 0, &result->points,
                  "cannot count the points", err) != 0 ||
        write_catalog(&m, command_line, result, err) != 0)
        goto done;
    result->failed = m.any_failed;
    if (!result->already &&
        (store_merge_write_points(&m, result->sweep_id, &result->rows, err) != 0 ||
         end_sweep(&m, result->sweep_id, err) != 0))
        goto done;
    rc = 0;
done:
    sqlite3_exec(s->db, drop_temp_sql, NULL, NULL, NULL);
    for (size_t f = 0; f < BELONGING_COUNT; f++)
        free(m.reference[f]);
    strbuf_free(&m.problems);
    free(m.index_of);
    free(m.sweep_of);
    return rc;
}
