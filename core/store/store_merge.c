/* store_merge.c: sharded sweeps (docs/slurm.md). Records which shard a
 * sweep runs, and merges the shards' databases into one sweep equal to a
 * single-process run: same sections, points in the same order with the
 * same values, result rows in point order. store_merge_check.c reads and
 * checks the inputs; then the sweep, its sections and its sources
 * (merge_source: each shard's host) are written in one transaction, the
 * points and rows by store_merge_write.c, and last the sweep's status. A
 * merge cut short leaves its sweep 'running'; the next merge of the same
 * shards deletes it and starts over, and a merge that finished is not done
 * twice. More inputs than the descriptors allow to read at once are merged
 * in parts: each part into a file beside OUT, then the parts into OUT. */
#include "store_merge_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "store.h"

#define MERGE_RESERVED_DESCRIPTORS 16 /* OUT and its -wal, -shm, temp files, stdio */

int store_sweep_shard(store *s, int64_t sweep_id, uint32_t index, uint32_t count, char **err)
{
    sqlite3_stmt *st = NULL;
    const char *what = "cannot record the sweep's shard";
    if (sqlite3_prepare_v2(
            s->db,
            "UPDATE sweep SET shard_index = ?2, shard_count = ?3, shard_by = 'ordinal'"
            " WHERE id = ?1",
            -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, index);
    sqlite3_bind_int64(st, 3, count);
    int rc = storei_step_done(s, st, what, err);
    sqlite3_finalize(st);
    return rc;
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
        bad =
            sql.oom || merge_run_sql(s, sql.data, args, 1, "cannot clear an unfinished merge", err);
        free(sql.data);
    }
    sqlite3_finalize(tables);
    if (bad)
        return -1;
    *id = 0;
    return merge_run_sql(s,
                         "DELETE FROM main.point_index WHERE block_id IN"
                         " (SELECT id FROM main.point_block WHERE sweep_id = ?1);",
                         args, 1, "cannot clear an unfinished merge", err) ||
                   merge_run_sql(s, "DELETE FROM main.point_block WHERE sweep_id = ?1", args, 1,
                                 "cannot clear an unfinished merge", err) ||
                   merge_run_sql(s, "DELETE FROM main.section WHERE sweep_id = ?1", args, 1,
                                 "cannot clear an unfinished merge", err) ||
                   merge_run_sql(s, "DELETE FROM main.sweep_plugin WHERE sweep_id = ?1", args, 1,
                                 "cannot clear an unfinished merge", err) ||
                   merge_run_sql(s, "DELETE FROM main.merge_source WHERE sweep_id = ?1", args, 1,
                                 "cannot clear an unfinished merge", err) ||
                   merge_run_sql(s, "DELETE FROM main.sweep WHERE id = ?1", args, 1,
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
    return merge_run_sql(s,
                         "INSERT OR IGNORE INTO main.plugin_column SELECT * FROM temp.merge_column",
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
                           " shard_count, shard_by) SELECT script_path, script_text,"
                           " script_sha256, options_json, overrides_json, runner_version,"
                           " git_commit, host, ?1, NULL, seed, ?2, 'running', NULL, shard_count,"
                           " shard_by FROM temp.merge_sweep",
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
    return merge_run_sql(s,
                         "INSERT INTO main.sweep_plugin (sweep_id, plugin, plugin_version, so_path,"
                         " so_sha256) SELECT ?1, plugin, plugin_version, so_path, so_sha256"
                         " FROM temp.merge_plugin ORDER BY rowid",
                         args, 1, what, err) ||
                   merge_run_sql(
                       s,
                       "INSERT INTO main.section (sweep_id, ordinal, plugin, title, script_line,"
                       " point_count) SELECT ?1, ordinal, plugin, title, script_line, point_count"
                       " FROM temp.merge_section ORDER BY ordinal",
                       args, 1, what, err) ||
                   merge_run_sql(
                       s,
                       "UPDATE temp.merge_section SET new_id = (SELECT c.id FROM main.section AS c"
                       " WHERE c.sweep_id = ?1 AND c.ordinal = merge_section.ordinal)",
                       args, 1, what, err) ||
                   merge_run_sql(
                       s,
                       "INSERT INTO main.merge_source (sweep_id, shard_index, shard_count, host,"
                       " pid, slurm_job_id, slurm_array_task_id, path, source_sweep_id, points,"
                       " rows, status, started_at, ended_at) SELECT ?1, shard_index, ?2, host,"
                       " pid, slurm_job_id, slurm_array_task_id, path, source_sweep_id, points,"
                       " rows, status, started_at, ended_at FROM temp.merge_src"
                       " ORDER BY shard_index",
                       (int64_t[]){ *sweep_id, m->shard_count }, 2, what, err)
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

/* Closes the merged sweep: 'failed' when a shard's points failed; each
 * shard read directly gets the rows copied from it. */
static int end_sweep(merge *m, int64_t sweep_id, char **err)
{
    sqlite3_stmt *st = NULL;
    const char *what = "cannot end the merged sweep";
    if (sqlite3_prepare_v2(m->s->db,
                           "UPDATE main.merge_source SET rows = ?3 WHERE sweep_id = ?1"
                           " AND shard_index = (SELECT shard_index FROM temp.merge_src"
                           " WHERE input = ?2) AND rows IS NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(m->s, err, "%s", what);
    int rc = 0;
    for (size_t k = 0; k < m->count && rc == 0; k++) {
        if (m->merged_input[k] || m->absent[k])
            continue;
        sqlite3_bind_int64(st, 1, sweep_id);
        sqlite3_bind_int64(st, 2, (int64_t)k);
        sqlite3_bind_int64(st, 3, m->rows_of[k]);
        rc = storei_step_done(m->s, st, what, err);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc != 0 || sqlite3_prepare_v2(m->s->db,
                                      "UPDATE main.sweep SET status = ?2, ended_at = ?3"
                                      " WHERE id = ?1",
                                      -1, &st, NULL) != SQLITE_OK)
        return rc ? rc : storei_fail_sql(m->s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_text(st, 2, m->any_failed ? "failed" : "ok", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->ended, -1, SQLITE_STATIC);
    rc = storei_step_done(m->s, st, what, err);
    sqlite3_finalize(st);
    return rc;
}

/* --- more inputs than descriptors ------------------------------------------------- */

/* How many inputs the writer may hold open at once: the descriptors this
 * process may open (its soft limit, which runner merge raised to the hard
 * one) less those OUT and a part's file need, and at most
 * STORE_MERGE_OPEN_MAX (*for_memory then). */
static size_t inputs_at_once(const merge *m, int *for_memory)
{
    struct rlimit limit;
    rlim_t open_max = getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 1024;
    if (open_max == RLIM_INFINITY || open_max > 1u << 20)
        open_max = 1u << 20;
    size_t free_fds =
        open_max > MERGE_RESERVED_DESCRIPTORS ? open_max - MERGE_RESERVED_DESCRIPTORS : 0;
    int per_input = 1;
    for (size_t k = 0; k < m->count; k++)
        if (merge_input_descriptors(m, k) > per_input)
            per_input = merge_input_descriptors(m, k);
    size_t by_descriptors = free_fds / (size_t)per_input;
    *for_memory = by_descriptors > STORE_MERGE_OPEN_MAX;
    return *for_memory ? STORE_MERGE_OPEN_MAX : by_descriptors;
}

static int merge_run(store *s, const char *const *paths, size_t count, int partial,
                     const char *command_line, store_merge_result *result, char **err);

/* Merges the inputs in parts of at most `at_once`, each into a file beside
 * OUT (partial merges, which the recursion may split again), then the parts
 * into s. The part files go, whatever happens. */
static int merge_in_parts(merge *m, size_t at_once, const char *command_line,
                          store_merge_result *result, char **err)
{
    size_t parts = (m->count + at_once - 1) / at_once;
    if (parts > at_once)
        parts = at_once; /* each part then larger: split again inside */
    size_t per_part = (m->count + parts - 1) / parts;
    char **part_paths = calloc(parts, sizeof *part_paths);
    int rc = part_paths ? 0 : util_fail(err, "out of memory");
    size_t made = 0;
    for (; rc == 0 && made < parts; made++) {
        size_t from = made * per_part;
        size_t n = from + per_part <= m->count ? per_part : m->count - from;
        part_paths[made] = util_format("%s.part-%ld-%zu.tmp", m->s->path, (long)getpid(), made + 1);
        store *part = NULL;
        store_merge_result ignored;
        if (!part_paths[made]) {
            rc = util_fail(err, "out of memory");
            break;
        }
        unlink(part_paths[made]);
        rc = store_open(part_paths[made], &part, err);
        if (rc == 0)
            rc = merge_run(part, m->paths + from, n, 1, command_line, &ignored, err);
        store_close(part);
        result->parts += 1 + ignored.parts;
    }
    if (rc == 0) {
        size_t earlier_parts = result->parts;
        rc = merge_run(m->s, (const char *const *)part_paths, parts, m->partial, command_line,
                       result, err);
        result->parts += earlier_parts;
    }
    for (size_t i = 0; i < made; i++) {
        if (!part_paths[i])
            continue;
        unlink(part_paths[i]);
        static const char *const suffixes[] = { "-wal", "-shm" }; /* left by a failure */
        for (size_t j = 0; j < 2; j++) {
            char *sibling = util_format("%s%s", part_paths[i], suffixes[j]);
            if (sibling)
                unlink(sibling);
            free(sibling);
        }
        free(part_paths[i]);
    }
    free(part_paths);
    return rc;
}

/* An earlier, finished merge of these inputs in OUT: *id, else 0. */
static int earlier_merge_done(merge *m, int64_t *id, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(m->s->db,
                           "SELECT s.id FROM main.sweep AS s, temp.merge_sweep AS t"
                           " WHERE s.shard_index IS NULL AND s.shard_count = t.shard_count"
                           " AND s.script_sha256 = t.script_sha256 AND s.seed = t.seed"
                           " AND s.overrides_json = t.overrides_json AND s.started_at = ?1"
                           " AND s.status <> 'running' ORDER BY s.id DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(m->s, err, "cannot look for an earlier merge");
    sqlite3_bind_text(st, 1, m->started, -1, SQLITE_STATIC);
    *id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return 0;
}

static int merge_run(store *s, const char *const *paths, size_t count, int partial,
                     const char *command_line, store_merge_result *result, char **err)
{
    memset(result, 0, sizeof *result);
    merge m = { .s = s, .paths = paths, .count = count, .partial = partial };
    size_t n = count ? count : 1;
    m.sweep_of = calloc(n, sizeof *m.sweep_of);
    m.uri_of = calloc(n, sizeof *m.uri_of);
    m.rows_of = calloc(n, sizeof *m.rows_of);
    m.merged_input = calloc(n, sizeof *m.merged_input);
    m.absent = calloc(n, sizeof *m.absent);
    int rc = -1;
    if (!m.sweep_of || !m.uri_of || !m.rows_of || !m.merged_input || !m.absent) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (storei_batch_commit(s, err) != 0 || merge_read_inputs(&m, err) != 0 ||
        merge_query_int(s, "SELECT sum(stored) FROM temp.merge_section", NULL, 0, &result->points,
                        "cannot count the points", err) != 0)
        goto done;
    int for_memory = 0;
    size_t at_once = inputs_at_once(&m, &for_memory);
    if (count > at_once) {
        if (at_once < 2) {
            util_fail(err,
                      "merge: too few file descriptors to read two shards at once (the "
                      "limit is %zu; raise 'ulimit -n')",
                      at_once + MERGE_RESERVED_DESCRIPTORS);
            goto done;
        }
        int64_t done_id = 0;
        if (earlier_merge_done(&m, &done_id, err) != 0)
            goto done;
        if (done_id) {
            result->sweep_id = done_id;
            result->already = 1;
            result->failed = m.any_failed;
            rc = 0;
            goto done;
        }
        merge_drop_temp(s);
        rc = merge_in_parts(&m, at_once, command_line, result, err);
        result->parts_for_memory = for_memory;
        goto done;
    }
    if (write_catalog(&m, command_line, result, err) != 0)
        goto done;
    result->failed = m.any_failed;
    if (!result->already &&
        (store_merge_write_points(&m, result->sweep_id, &result->rows, err) != 0 ||
         end_sweep(&m, result->sweep_id, err) != 0))
        goto done;
    rc = 0;
done:
    merge_drop_temp(s);
    for (size_t f = 0; f < MERGE_BELONGING_FIELDS; f++)
        free(m.reference[f]);
    for (size_t k = 0; m.uri_of && k < count; k++)
        free(m.uri_of[k]);
    strbuf_free(&m.problems);
    free(m.sweep_of);
    free(m.uri_of);
    free(m.rows_of);
    free(m.merged_input);
    free(m.absent);
    return rc;
}

int store_merge(store *s, const char *const *paths, size_t count, int partial,
                const char *command_line, store_merge_result *result, char **err)
{
    return merge_run(s, paths, count, partial, command_line, result, err);
}
