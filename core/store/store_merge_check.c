/* store_merge_check.c: reading and checking a merge's inputs (runner
 * merge, docs/slurm.md). Each input — a shard's database, or a merged file
 * of some shards — is ATTACHed in turn (SQLite attaches at most ten) to
 * check that the inputs belong together, gather their catalogs and the
 * shards they hold (temp.merge_src) into temporary tables, and name what is
 * missing: shards not given or not finished, one per line with their host
 * and state, and the points nobody has. */
#include "store_merge_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"

#define MERGE_SHOWN_MISSING 10 /* missing ordinals named per section */

/* --- SQL helpers ---------------------------------------------------------- */

int merge_run_sql(store *s, const char *sql, const int64_t *args, int n, const char *what,
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

int merge_query_int(store *s, const char *sql, const int64_t *args, int n, int64_t *out,
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

/* --- an input's -wal and -shm ----------------------------------------------- */

static int sibling_exists(const char *path, const char *suffix)
{
    char *name = util_format("%s%s", path, suffix);
    struct stat st;
    int exists = name && lstat(name, &st) == 0;
    free(name);
    return exists;
}

/* Leaves input k without -wal and -shm where it can: a connection that may
 * write checkpoints what a killed shard left in its WAL and, the last one
 * out, removes both files on close. Then (no -wal left) the input is read
 * through an immutable URI: one descriptor, no files made beside it. */
static int settle_input(merge *m, size_t k)
{
    const char *path = m->paths[k];
    if (sibling_exists(path, "-wal") || sibling_exists(path, "-shm")) {
        sqlite3 *db = NULL;
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
                SQLITE_OK &&
            !sqlite3_db_readonly(db, "main")) {
            sqlite3_busy_timeout(db, 5000);
            sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
        }
        sqlite3_close(db);
    }
    if (sibling_exists(path, "-wal"))
        return 0; /* another process has it open: read it as it is */
    m->uri_of[k] = storei_immutable_uri(path);
    return m->uri_of[k] ? 0 : -1;
}

int merge_input_descriptors(const merge *m, size_t k)
{
    return m->uri_of[k] ? 1 : 3; /* else the file, its -wal and -shm */
}

/* --- the temporary catalog -------------------------------------------------- */

static const char drop_temp_sql[] =
    "DROP TABLE IF EXISTS temp.merge_sweep; DROP TABLE IF EXISTS temp.merge_section;"
    "DROP TABLE IF EXISTS temp.merge_plugin; DROP TABLE IF EXISTS temp.merge_point;"
    "DROP TABLE IF EXISTS temp.merge_table; DROP TABLE IF EXISTS temp.merge_column;"
    "DROP TABLE IF EXISTS temp.merge_src; DROP TABLE IF EXISTS temp.merge_new;";

static const char temp_tables_sql[] =
    /* The first input's sweep row, the provenance the merged sweep keeps. */
    "CREATE TEMP TABLE merge_sweep AS SELECT * FROM main.sweep WHERE 0;"
    "CREATE TEMP TABLE merge_section (ordinal INTEGER PRIMARY KEY, plugin TEXT, title TEXT,"
    " script_line INTEGER, point_count INTEGER, stored INTEGER DEFAULT 0, new_id INTEGER);"
    "CREATE TEMP TABLE merge_plugin (plugin TEXT PRIMARY KEY, plugin_version TEXT, so_path TEXT,"
    " so_sha256 TEXT);"
    /* The points inputs hold, by section and ordinal: read only to name
     * the missing ones. */
    "CREATE TEMP TABLE merge_point (section_ordinal INTEGER, ordinal INTEGER);"
    "CREATE TEMP TABLE merge_table (plugin TEXT PRIMARY KEY, create_sql TEXT);"
    "CREATE TEMP TABLE merge_column AS SELECT * FROM main.plugin_column WHERE 0;"
    /* The shards the inputs hold (merge_source's columns, and which input
     * holds each and the state a reader shows); merge_new: one input's. */
    "CREATE TEMP TABLE merge_src (shard_index INTEGER PRIMARY KEY, input INTEGER, host TEXT,"
    " pid INTEGER, slurm_job_id TEXT, slurm_array_task_id TEXT, path TEXT,"
    " source_sweep_id INTEGER, points INTEGER, rows INTEGER, status TEXT, state TEXT,"
    " started_at TEXT, ended_at TEXT);"
    "CREATE TEMP TABLE merge_new AS SELECT * FROM merge_src WHERE 0;";

void merge_drop_temp(store *s) { sqlite3_exec(s->db, drop_temp_sql, NULL, NULL, NULL); }

/* --- reading and checking the inputs ------------------------------------------ */

/* What must be equal across the inputs: the field's name for the message,
 * and the expression reading it from the input's sweep row. */
static const struct {
    const char *field;
    const char *expr;
} belonging[] = {
    { "shard count", "CAST(shard_count AS TEXT)" },
    { "script SHA-256", "script_sha256" },
    { "sweep seed", "CAST(seed AS TEXT)" },
    { "overrides (--set)", "overrides_json" },
    { "runner version", "runner_version" },
    /* Last: an older runner's shards chose points by identity (before schema 23). */
    { "shard rule", "coalesce(shard_by, 'identity')" },
};
#define BELONGING_COUNT (sizeof belonging / sizeof belonging[0])
_Static_assert(BELONGING_COUNT == MERGE_BELONGING_FIELDS, "merge.reference holds each field");

/* Reads the input's newest sharded sweep (or merged one: a sweep with
 * merge_source rows): its id, status and the fields that must match the
 * first input's. */
static int read_shard_sweep(merge *m, size_t k, size_t first, char **err)
{
    store *s = m->s;
    const char *path = m->paths[k];
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT id, shard_index IS NULL, status");
    for (size_t f = 0; f < BELONGING_COUNT; f++)
        strbuf_printf(&sql, ", %s", belonging[f].expr);
    strbuf_str(&sql,
               ", started_at, ended_at FROM shard.sweep WHERE shard_index IS NOT NULL"
               " OR id IN (SELECT sweep_id FROM shard.merge_source) ORDER BY id DESC LIMIT 1");
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
    m->merged_input[k] = sqlite3_column_int(st, 1);
    const char *status = (const char *)sqlite3_column_text(st, 2);
    const char *started = (const char *)sqlite3_column_text(st, 3 + (int)BELONGING_COUNT);
    const char *ended = (const char *)sqlite3_column_text(st, 4 + (int)BELONGING_COUNT);
    if (started && (k == first || strcmp(started, m->started) < 0))
        snprintf(m->started, sizeof m->started, "%s", started);
    if (ended && strcmp(ended, m->ended) > 0)
        snprintf(m->ended, sizeof m->ended, "%s", ended);
    for (size_t f = 0; f < BELONGING_COUNT; f++) {
        const char *v = (const char *)sqlite3_column_text(st, 3 + (int)f);
        if (k == first) {
            m->reference[f] = util_strdup(v ? v : "");
            continue;
        }
        if (strcmp(v ? v : "", m->reference[f]) != 0 && f == BELONGING_COUNT - 1) {
            const char *older = strcmp(v ? v : "", "identity") == 0 ? path : m->paths[first];
            util_fail(err,
                      "merge: %s does not belong with %s: %s was made by an older runner, "
                      "which chose a shard's points by identity, not by ordinal; rerun that "
                      "shard with this runner (runner sweep SCRIPT --shard I/N) and merge again",
                      path, m->paths[first], older);
            goto done;
        }
        if (strcmp(v ? v : "", m->reference[f]) != 0) {
            util_fail(err, "merge: %s does not belong with %s: the %s differs (%s, not %s)", path,
                      m->paths[first], belonging[f].field, v ? v : "", m->reference[f]);
            goto done;
        }
    }
    if (k == first)
        m->shard_count = (uint32_t)strtoul(m->reference[0], NULL, 10);
    m->incomplete |= strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0;
    m->any_failed |= strcmp(status, "failed") == 0;
    rc = 0;
done:
    sqlite3_finalize(st);
    free(sql.data);
    return rc;
}

/* The expression for column name of the input's sweep row when it has one
 * (a scheduler's ids, recorded by newer runners), else NULL. */
static const char *sweep_column_or_null(store *s, const char *name)
{
    sqlite3_stmt *st = NULL;
    int has = sqlite3_prepare_v2(
                  s->db, "SELECT 1 FROM pragma_table_info('sweep', 'shard') WHERE name = ?1", -1,
                  &st, NULL) == SQLITE_OK &&
              storei_bind_text(st, 1, name) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return has ? name : "NULL";
}

/* The shards input k holds into temp.merge_src: itself, from its sweep row
 * (the host that last ran it, and the state a reader shows), or a merged
 * file's merge_source rows. Each shard once over all inputs. */
static int record_sources(merge *m, size_t k, char **err)
{
    store *s = m->s;
    strbuf sql = { 0 };
    if (m->merged_input[k]) {
        strbuf_str(&sql,
                   "INSERT INTO temp.merge_new SELECT shard_index, ?2, host, pid, slurm_job_id,"
                   " slurm_array_task_id, path, source_sweep_id, points, rows, status,"
                   " status, started_at, ended_at FROM shard.merge_source"
                   " WHERE sweep_id = ?1");
    } else {
        strbuf_printf(&sql,
                      "INSERT INTO temp.merge_new SELECT s.shard_index, ?2,"
                      " coalesce(s.pid_host, s.host), s.pid, %s, %s, ?3, s.id, (SELECT"
                      " coalesce(sum(point_count), 0) FROM shard.point_block WHERE sweep_id ="
                      " s.id), NULL, s.status, " STORE_SWEEP_STATUS_SQL ", s.started_at,"
                      " s.ended_at FROM shard.sweep AS s WHERE s.id = ?1",
                      sweep_column_or_null(s, "slurm_job_id"),
                      sweep_column_or_null(s, "slurm_array_task_id"));
    }
    sqlite3_stmt *st = NULL;
    const char *what = "cannot read the shard's sources";
    int rc = -1;
    if (sql.oom || storei_exec(s, "DELETE FROM temp.merge_new", what, err) != 0)
        goto done;
    if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_bind_int64(st, 1, m->sweep_of[k]);
    sqlite3_bind_int64(st, 2, (int64_t)k);
    storei_bind_text(st, 3, m->paths[k]);
    if (storei_step_done(s, st, what, err) != 0)
        goto done;
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(s->db,
                           "SELECT n.shard_index, t.input FROM temp.merge_new AS n"
                           " JOIN temp.merge_src AS t ON t.shard_index = n.shard_index LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        util_fail(err, "merge: %s and %s both hold shard %lld/%u",
                  m->paths[sqlite3_column_int64(st, 1)], m->paths[k],
                  (long long)sqlite3_column_int64(st, 0), m->shard_count);
        goto done;
    }
    rc = storei_exec(s, "INSERT INTO temp.merge_src SELECT * FROM temp.merge_new", what, err);
done:
    sqlite3_finalize(st);
    free(sql.data);
    return rc;
}

/* Plugins and sections the input shares with those read before must be the
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

/* What the merge takes from each input's catalog (?1: its sweep): plugins,
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
        if (merge_run_sql(m->s, shard_catalog[i].sql, args, 1, shard_catalog[i].what, err) != 0)
            return -1;
    return 0;
}

/* The ordinals of every point the input holds (to name the missing ones). */
static int read_shard_ordinals(merge *m, size_t k, char **err)
{
    if (attach(m->s, m->paths[k], err) != 0)
        return -1;
    int64_t args[] = { m->sweep_of[k] };
    int rc =
        merge_run_sql(m->s,
                      "INSERT INTO temp.merge_point SELECT c.ordinal, json_extract(p.value, '$[1]')"
                      " FROM shard.section AS c JOIN shard.point_block AS b ON b.section_id = c.id,"
                      " json_each(b.points) AS p WHERE c.sweep_id = ?1",
                      args, 1, "cannot read the shard's points", err);
    detach(m->s);
    return rc;
}

static int read_shard(merge *m, size_t k, size_t first, char **err)
{
    store *s = m->s;
    if (attach(s, m->paths[k], err) != 0)
        return -1;
    int64_t version = 0;
    int rc =
        merge_query_int(s, "PRAGMA shard.user_version", NULL, 0, &version, "cannot read it", err);
    if (rc == 0 && version != store_schema_version())
        rc = util_fail(err,
                       "merge: %s: its schema version is %" PRId64 ", not %d as this "
                       "runner's (shards and merge need the same runner; 'runner migrate --db "
                       "%s' upgrades an older one)",
                       m->paths[k], version, store_schema_version(), m->paths[k]);
    if (rc == 0)
        rc = read_shard_sweep(m, k, first, err);
    if (rc == 0)
        rc = record_sources(m, k, err);
    if (rc == 0 && k == first) {
        int64_t args[] = { m->sweep_of[k] };
        rc =
            merge_run_sql(s, "INSERT INTO temp.merge_sweep SELECT * FROM shard.sweep WHERE id = ?1",
                          args, 1, "cannot read the sweep", err);
    }
    if (rc == 0)
        rc = check_shard_parts(m, k, err);
    if (rc == 0)
        rc = read_shard_catalog(m, k, err);
    if (rc == 0) {
        int64_t args[] = { m->sweep_of[k] };
        rc = merge_run_sql(s,
                           "UPDATE temp.merge_section SET stored = stored + (SELECT"
                           " coalesce(sum(b.point_count), 0) FROM shard.point_block AS b"
                           " JOIN shard.section AS c ON c.id = b.section_id WHERE c.sweep_id = ?1"
                           " AND c.ordinal = merge_section.ordinal)",
                           args, 1, "cannot count the shard's points", err);
    }
    detach(s);
    return rc;
}

/* --- what is missing ----------------------------------------------------------- */

/* One line per shard no input holds, and per shard not finished, with its
 * host and the state a reader shows (a dead shard is not 'running' where
 * its host can tell). */
static int list_shards(merge *m, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(m->s->db,
                           "SELECT shard_index, path, source_sweep_id, state, host, pid,"
                           " status IN ('ok', 'failed') FROM temp.merge_src ORDER BY shard_index",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(m->s, err, "cannot list the shards");
    uint32_t next = 1;
    int more = 1;
    while (more) {
        int row = sqlite3_step(st) == SQLITE_ROW;
        uint32_t index = row ? (uint32_t)sqlite3_column_int64(st, 0) : m->shard_count + 1;
        for (; !m->partial && next < index && next <= m->shard_count; next++)
            strbuf_printf(&m->problems, "\n  shard %u/%u: missing (no database given holds it)",
                          next, m->shard_count);
        next = index + 1;
        more = row;
        if (!row || sqlite3_column_int(st, 6))
            continue;
        const char *host = (const char *)sqlite3_column_text(st, 4);
        strbuf_printf(&m->problems, "\n  shard %u/%u: %s (sweep %lld in %s, host %s", index,
                      m->shard_count, (const char *)sqlite3_column_text(st, 3),
                      (long long)sqlite3_column_int64(st, 2),
                      (const char *)sqlite3_column_text(st, 1), host ? host : "unknown");
        if (sqlite3_column_type(st, 5) != SQLITE_NULL)
            strbuf_printf(&m->problems, ", pid %lld", (long long)sqlite3_column_int64(st, 5));
        strbuf_str(&m->problems, ")");
    }
    sqlite3_finalize(st);
    return 0;
}

/* Sections holding more points than their grid: an input ran another grid
 * in the same sweep (a resume with other --set values, by an older runner). */
static int list_overfull(merge *m, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(m->s->db,
                           "SELECT ordinal, stored, point_count FROM temp.merge_section"
                           " WHERE stored > point_count ORDER BY ordinal",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(m->s, err, "cannot count the points");
    while (sqlite3_step(st) == SQLITE_ROW)
        strbuf_printf(&m->problems,
                      "\n  section %lld: the shards hold %lld points, its grid %lld (a shard "
                      "holds points of another grid: rerun it into a new database)",
                      (long long)sqlite3_column_int64(st, 0),
                      (long long)sqlite3_column_int64(st, 1),
                      (long long)sqlite3_column_int64(st, 2));
    sqlite3_finalize(st);
    return 0;
}

/* Names the points no input has, per section. *missing: how many. */
static int list_missing_points(merge *m, int64_t *missing, char **err)
{
    for (size_t k = 0; k < m->count; k++)
        if (!m->absent[k] && read_shard_ordinals(m, k, err) != 0)
            return -1;
    if (merge_run_sql(m->s,
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
    int64_t section = -1, in_section = 0;
    *missing = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t sec = sqlite3_column_int64(st, 0), ordinal = sqlite3_column_int64(st, 1);
        if (sec != section) {
            if (in_section > MERGE_SHOWN_MISSING)
                strbuf_printf(&m->problems, " and %" PRId64 " more",
                              in_section - MERGE_SHOWN_MISSING);
            strbuf_printf(&m->problems, "\n  section %" PRId64 " lacks points", sec);
            section = sec;
            in_section = 0;
        }
        if (++in_section <= MERGE_SHOWN_MISSING)
            strbuf_printf(&m->problems, "%s %" PRId64, in_section > 1 ? "," : "", ordinal);
        (*missing)++;
    }
    if (in_section > MERGE_SHOWN_MISSING)
        strbuf_printf(&m->problems, " and %" PRId64 " more", in_section - MERGE_SHOWN_MISSING);
    sqlite3_finalize(st);
    return 0;
}

/* Names the shards not given or not finished, and the points nobody has.
 * Returns 0 when every point is there (every given shard finished, with
 * m->partial). */
static int find_missing(merge *m, char **err)
{
    int64_t unlike = 0;
    if (m->inputs_read &&
        merge_query_int(m->s, "SELECT count(*) FROM temp.merge_section WHERE stored <> point_count",
                        NULL, 0, &unlike, "cannot count the points", err) != 0)
        return -1;
    int64_t shards_held = 0;
    if (m->inputs_read && merge_query_int(m->s, "SELECT count(*) FROM temp.merge_src", NULL, 0,
                                          &shards_held, "cannot count the shards", err) != 0)
        return -1;
    int whole = shards_held == m->shard_count && !unlike;
    if (!m->problems.len && !m->incomplete && (m->partial || whole))
        return 0;
    if (m->inputs_read && (list_shards(m, err) != 0 || list_overfull(m, err) != 0))
        return -1;
    int64_t missing = 0;
    if (m->inputs_read && !m->partial && unlike && list_missing_points(m, &missing, err) != 0)
        return -1;
    if (missing)
        return util_fail(err,
                         "merge: cannot merge yet (%" PRId64 " points missing; nothing was "
                         "written):%s",
                         missing, m->problems.oom ? " out of memory" : m->problems.data);
    return util_fail(err, "merge: cannot merge yet (nothing was written):%s",
                     m->problems.oom ? " out of memory" : m->problems.data);
}

int merge_read_inputs(merge *m, char **err)
{
    if (storei_exec(m->s, drop_temp_sql, "cannot prepare the merge", err) != 0 ||
        storei_exec(m->s, temp_tables_sql, "cannot prepare the merge", err) != 0)
        return -1;
    size_t first = m->count;
    for (size_t k = 0; k < m->count; k++) {
        struct stat st;
        if (stat(m->paths[k], &st) != 0) {
            /* A task that never ran: named with the rest, not alone. */
            m->absent[k] = 1;
            m->incomplete = 1;
            strbuf_printf(&m->problems, "\n  %s: no such database", m->paths[k]);
            continue;
        }
        if (first == m->count)
            first = k;
        if (settle_input(m, k) != 0)
            return util_fail(err, "out of memory");
        if (read_shard(m, k, first, err) != 0)
            return -1;
        m->inputs_read++;
    }
    return find_missing(m, err);
}
