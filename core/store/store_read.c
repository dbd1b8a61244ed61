/* store_read.c: reading back. The sweeps list, a section's rows as a table,
 * what resuming needs (the sweep, a section's finished points, a point's
 * rows), and the digests a sweep's summary is made of. */
#include "store_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- values ------------------------------------------------------------- */

static runner_type type_from_name(const char *name)
{
    if (!name)
        return 0;
    if (strcmp(name, "integer") == 0)
        return RUNNER_INTEGER;
    if (strcmp(name, "real") == 0)
        return RUNNER_REAL;
    if (strcmp(name, "text") == 0)
        return RUNNER_TEXT;
    if (strcmp(name, "boolean") == 0)
        return RUNNER_BOOLEAN;
    return 0;
}

/* Reads column i of the current row as the declared type. The REAL text
 * 'NaN' becomes NaN; anything SQLite holds in another storage class is
 * returned as what it is. Returns 0, or -1 when out of memory. */
static int column_value(sqlite3_stmt *st, int i, runner_type declared, value *out)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: *out = VALUE_NULL; return 0;
    case SQLITE_INTEGER:
        if (declared == RUNNER_BOOLEAN)
            *out = value_boolean(sqlite3_column_int64(st, i) != 0);
        else if (declared == RUNNER_REAL)
            *out = value_real(sqlite3_column_double(st, i));
        else if (declared == RUNNER_TEXT)
            break;
        else
            *out = value_integer(sqlite3_column_int64(st, i));
        return 0;
    case SQLITE_FLOAT:
        if (declared == RUNNER_TEXT)
            break;
        *out = value_real(sqlite3_column_double(st, i));
        return 0;
    default: {
        const char *text = (const char *)sqlite3_column_text(st, i);
        if (declared == RUNNER_REAL && text && strcmp(text, "NaN") == 0) {
            *out = value_real(NAN);
            return 0;
        }
        break;
    }
    }
    const char *text = (const char *)sqlite3_column_text(st, i);
    if (!text)
        return -1; /* only a conversion that ran out of memory leaves NULL here */
    *out = value_text(text);
    return out->type == RUNNER_TEXT ? 0 : -1;
}

int storei_column_value(sqlite3_stmt *st, int i, runner_type declared, value *out)
{
    return column_value(st, i, declared, out);
}

/* --- reading back --------------------------------------------------------- */

int store_list_sweeps(store *s, table **out, char **err)
{
    return store_list_sweeps_matching(s, NULL, out, err);
}

/* --- a section's rows ------------------------------------------------------ */

/* Adds the plugin's recorded columns (parameters first, with their units)
 * to t. None when nothing is recorded for the plugin. */
static int add_section_columns(store *s, const char *plugin, const char *what, table *t, char **err)
{
    sqlite3_stmt *st = storei_stmt(s, STMT_SECTION_COLUMNS, what, err);
    if (!st)
        return -1;
    storei_bind_text(st, 1, plugin);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *role = (const char *)sqlite3_column_text(st, 1);
        runner_type type = type_from_name((const char *)sqlite3_column_text(st, 2));
        const char *unit = (const char *)sqlite3_column_text(st, 3);
        if (!name || !role ||
            table_add_column(t, name, unit ? unit : "", type, strcmp(role, "param") == 0) != 0) {
            sqlite3_reset(st);
            return util_fail(err, "%s: %s: out of memory", s->path, what);
        }
    }
    if (rc != SQLITE_DONE)
        storei_fail_sql(s, err, "%s", what);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Appends " FROM <plugin> WHERE <the rows of section ?1>". sweep_id comes
 * first: the result table's one index starts with it. */
static void append_section_from(strbuf *sql, const char *plugin)
{
    strbuf_str(sql, " FROM ");
    storei_append_ident(sql, plugin);
    strbuf_str(sql, " WHERE \"sweep_id\" = (SELECT sweep_id FROM section WHERE id = ?1)"
                    " AND \"section_id\" = ?1");
}

/* Appends the query of t's columns over the rows of section ?1, in order. */
static void append_section_select(strbuf *sql, const table *t, const char *plugin)
{
    strbuf_str(sql, "SELECT ");
    for (size_t c = 0; c < t->column_count; c++) {
        if (c)
            strbuf_str(sql, ", ");
        storei_append_ident(sql, t->columns[c].name);
    }
    append_section_from(sql, plugin);
    strbuf_str(sql, " ORDER BY \"row_id\"");
}

/* Steps st, a query of t's columns, and appends each row to t. */
static int append_result_rows(store *s, sqlite3_stmt *st, table *t, const char *what, char **err)
{
    value *row = calloc(t->column_count ? t->column_count : 1, sizeof *row);
    int rc;
    if (!row)
        return util_fail(err, "%s: %s: out of memory", s->path, what);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (size_t i = 0; i < t->column_count; i++)
            if (column_value(st, (int)i, t->columns[i].type, &row[i]) != 0)
                goto oom;
        if (table_append_row(t, row) != 0)
            goto oom;
    }
    free(row);
    if (rc != SQLITE_DONE)
        return storei_fail_sql(s, err, "%s", what);
    return 0;
oom:
    for (size_t i = 0; i < t->column_count; i++)
        value_clear(&row[i]);
    free(row);
    return util_fail(err, "%s: %s: out of memory", s->path, what);
}

/* A new table named after the section (its title, else its plugin), with
 * no columns yet; *plugin is the section's plugin (malloc'd). */
static int section_table_new(store *s, int64_t section_id, const char *what, table **out,
                             char **plugin, char **err)
{
    sqlite3_stmt *st = storei_stmt(s, STMT_SECTION, what, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, section_id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            util_fail(err, "%s: %s: no such section", s->path, what);
        else
            storei_fail_sql(s, err, "%s", what);
        sqlite3_reset(st);
        return -1;
    }
    const char *title = (const char *)sqlite3_column_text(st, 1);
    *plugin = util_strdup((const char *)sqlite3_column_text(st, 0));
    *out = *plugin ? table_new(title ? title : *plugin) : NULL;
    sqlite3_reset(st);
    if (!*out)
        return util_fail(err, "%s: %s: out of memory", s->path, what);
    return 0;
}

/* *out is a new table the caller frees with table_free. */
int store_section_table(store *s, int64_t section_id, table **out, char **err)
{
    *out = NULL;
    char what[96];
    snprintf(what, sizeof what, "cannot read section %" PRId64, section_id);
    char *plugin = NULL;
    table *t = NULL;
    sqlite3_stmt *rows = NULL;
    strbuf sql = { 0 };
    int rc = -1;
    if (section_table_new(s, section_id, what, &t, &plugin, err) != 0 ||
        add_section_columns(s, plugin, what, t, err) != 0)
        goto done;
    if (t->column_count == 0) { /* nothing recorded for the plugin: no rows to show */
        rc = 0;
        goto done;
    }
    append_section_select(&sql, t, plugin);
    if (sql.oom) {
        util_fail(err, "%s: %s: out of memory", s->path, what);
        goto done;
    }
    if (sqlite3_prepare_v2(s->db, sql.data, -1, &rows, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_bind_int64(rows, 1, section_id);
    rc = append_result_rows(s, rows, t, what, err);
done:
    sqlite3_finalize(rows);
    free(plugin);
    free(sql.data);
    if (rc == 0)
        *out = t;
    else
        table_free(t);
    return rc;
}

int store_section_columns(store *s, int64_t section_id, table **out, char **plugin, char **err)
{
    *out = NULL;
    *plugin = NULL;
    char what[96];
    snprintf(what, sizeof what, "cannot read section %" PRId64, section_id);
    if (section_table_new(s, section_id, what, out, plugin, err) == 0 &&
        add_section_columns(s, *plugin, what, *out, err) == 0)
        return 0;
    table_free(*out);
    free(*plugin);
    *out = NULL;
    *plugin = NULL;
    return -1;
}

/* *ids is malloc'd (NULL when the sweep has no sections); the caller frees. */
int store_sweep_sections(store *s, int64_t sweep_id, int64_t **ids, size_t *count, char **err)
{
    *ids = NULL;
    *count = 0;
    char what[96];
    snprintf(what, sizeof what, "cannot list the sections of sweep %" PRId64, sweep_id);
    sqlite3_stmt *st = storei_stmt(s, STMT_SWEEP_SECTIONS, what, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc = storei_collect_ids(s, st, what, ids, count, err);
    sqlite3_reset(st);
    return rc;
}

/* --- resuming ------------------------------------------------------------ */

int store_find_sweep(store *s, int64_t sweep_id, const char *script_path, store_sweep_record *out,
                     char **err)
{
    memset(out, 0, sizeof *out);
    const char *sql =
        "SELECT id, script_path, script_text, overrides_json, seed, status, pid, host,"
        " script_sha256, shard_index, shard_count,"
        " (julianday(ended_at) - 2440587.5) * 86400.0 FROM sweep WHERE (?1 > 0 AND id = ?1) OR (?1 = 0 AND script_path = ?2)"
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
    if (exec_with_id(s,
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

int store_point_rows(store *s, const runner_plugin *plugin, int64_t section_id, int64_t point_id,
                     table *out, char **err)
{
    char what[160];
    snprintf(what, sizeof what, "cannot read back a stored point of section %" PRId64, section_id);
    size_t width = plugin->param_count + plugin->column_count;
    strbuf sql = { 0 };
    sqlite3_stmt *st = NULL;
    value *row = calloc(width ? width : 1, sizeof *row);
    int rc = -1;
    strbuf_str(&sql, "SELECT ");
    for (size_t i = 0; i < width; i++) {
        if (i)
            strbuf_str(&sql, ", ");
        storei_append_ident(&sql, storei_column_name(plugin, i));
    }
    strbuf_str(&sql, " FROM ");
    storei_append_ident(&sql, plugin->name);
    strbuf_str(&sql, " WHERE \"sweep_id\" = (SELECT sweep_id FROM section WHERE id = ?1)"
                     " AND \"section_id\" = ?1 AND \"point_id\" = ?2 ORDER BY \"row_id\"");
    if (sql.oom || !row) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_bind_int64(st, 1, section_id);
    sqlite3_bind_int64(st, 2, point_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        for (size_t i = 0; i < width; i++) {
            if (column_value(st, (int)i, storei_column_type(plugin, i), &row[i]) != 0) {
                util_fail(err, "out of memory");
                goto done;
            }
        }
        if (table_append_row(out, row) != 0) {
            util_fail(err, "out of memory");
            goto done;
        }
    }
    if (step != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    rc = 0;
done:
    if (row)
        for (size_t i = 0; i < width; i++)
            value_clear(&row[i]);
    free(row);
    sqlite3_finalize(st);
    free(sql.data);
    return rc;
}

/* --- digests ------------------------------------------------------------ */

int store_sweep_digest_read(store *s, int64_t sweep_id, store_sweep_digest *out, char **err)
{
    memset(out, 0, sizeof *out);
    char what[96];
    snprintf(what, sizeof what, "cannot read sweep %" PRId64 " for its summary", sweep_id);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(
            s->db,
            "SELECT id, script_path, " STORE_SWEEP_STATUS_SQL ", started_at, ended_at,"
            " round((julianday(ended_at) - julianday(started_at)) * 86400.0, 3),"
            " host, runner_version,"
            /* by section: blocks are indexed on section_id */
            " (SELECT coalesce(sum(ok_count), 0) FROM point_block WHERE section_id IN"
            "  (SELECT id FROM section WHERE sweep_id = ?1)),"
            " (SELECT coalesce(sum(point_count - ok_count), 0) FROM point_block"
            "  WHERE section_id IN (SELECT id FROM section WHERE sweep_id = ?1))"
            " FROM sweep AS s WHERE id = ?1",
            -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc = sqlite3_step(st), oom = 0;
    if (rc == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        out->script_path = storei_column_strdup(st, 1, &oom);
        out->status = storei_column_strdup(st, 2, &oom);
        out->started_at = storei_column_strdup(st, 3, &oom);
        out->ended_at = storei_column_strdup(st, 4, &oom);
        out->duration_s =
            sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
        out->host = storei_column_strdup(st, 6, &oom);
        out->runner_version = storei_column_strdup(st, 7, &oom);
        out->points_ok = sqlite3_column_int64(st, 8);
        out->points_failed = sqlite3_column_int64(st, 9);
    } else if (rc == SQLITE_DONE) {
        util_fail(err, "%s: %s: no such sweep", s->path, what);
    } else {
        storei_fail_sql(s, err, "%s", what);
    }
    sqlite3_finalize(st);
    if (oom) {
        store_sweep_digest_clear(out);
        return util_fail(err, "%s: %s: out of memory", s->path, what);
    }
    return rc == SQLITE_ROW ? 0 : -1;
}

void store_sweep_digest_clear(store_sweep_digest *d)
{
    if (!d)
        return;
    free(d->script_path);
    free(d->status);
    free(d->started_at);
    free(d->ended_at);
    free(d->host);
    free(d->runner_version);
    memset(d, 0, sizeof *d);
}

/* The section's row and point counts into out, and out->head, a table
 * named after it with no columns yet. */
static int read_section_row(store *s, int64_t section_id, const char *what,
                            store_section_digest *out, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT s.ordinal, s.plugin, s.title,"
                           " (SELECT coalesce(sum(ok_count), 0) FROM point_block"
                           "  WHERE section_id = s.id),"
                           " (SELECT coalesce(sum(point_count - ok_count), 0) FROM point_block"
                           "  WHERE section_id = s.id)"
                           " FROM section AS s WHERE s.id = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, section_id);
    int rc = sqlite3_step(st), oom = 0;
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            util_fail(err, "%s: %s: no such section", s->path, what);
        else
            storei_fail_sql(s, err, "%s", what);
        sqlite3_finalize(st);
        return -1;
    }
    out->id = section_id;
    out->ordinal = sqlite3_column_int(st, 0);
    out->plugin = storei_column_strdup(st, 1, &oom);
    out->title = storei_column_strdup(st, 2, &oom);
    out->points_ok = sqlite3_column_int64(st, 3);
    out->points_failed = sqlite3_column_int64(st, 4);
    sqlite3_finalize(st);
    if (oom || !out->plugin || !(out->head = table_new(out->title ? out->title : out->plugin)))
        return util_fail(err, "%s: %s: out of memory", s->path, what);
    return 0;
}

/* Appends the query of the section's row count and, per numeric column of
 * head, its min, max and NaN count. */
static void append_figures_select(strbuf *sql, const table *head, const char *plugin)
{
    strbuf_str(sql, "SELECT count(*)");
    for (size_t c = 0; c < head->column_count; c++) {
        const char *name = head->columns[c].name;
        if (!value_type_is_numeric(head->columns[c].type))
            continue;
        /* min/max over numbers only: 'NaN' is text and would sort above them. */
        const char *agg[] = { ", min(CASE WHEN typeof(", ", max(CASE WHEN typeof(" };
        for (int k = 0; k < 2; k++) {
            strbuf_str(sql, agg[k]);
            storei_append_ident(sql, name);
            strbuf_str(sql, ") IN ('integer', 'real') THEN ");
            storei_append_ident(sql, name);
            strbuf_str(sql, " END)");
        }
        strbuf_str(sql, ", sum(typeof(");
        storei_append_ident(sql, name);
        strbuf_str(sql, ") = 'text' AND ");
        storei_append_ident(sql, name);
        strbuf_str(sql, " = 'NaN')");
    }
    append_section_from(sql, plugin);
}

/* The section's first max_rows rows into out->head. */
static int read_head_rows(store *s, int64_t section_id, size_t max_rows, const char *what,
                          store_section_digest *out, char **err)
{
    strbuf sql = { 0 };
    sqlite3_stmt *st = NULL;
    int rc = -1;
    append_section_select(&sql, out->head, out->plugin);
    strbuf_str(&sql, " LIMIT ?2");
    if (sql.oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "%s", what);
    else {
        sqlite3_bind_int64(st, 1, section_id);
        sqlite3_bind_int64(st, 2, max_rows > INT64_MAX ? INT64_MAX : (int64_t)max_rows);
        rc = append_result_rows(s, st, out->head, what, err);
    }
    sqlite3_finalize(st);
    free(sql.data);
    return rc;
}

/* One scan of the section for out->row_count, ->min, ->max, ->nan_count. */
static int read_figures(store *s, int64_t section_id, const char *what, store_section_digest *out,
                        char **err)
{
    strbuf sql = { 0 };
    sqlite3_stmt *st = NULL;
    int rc = -1;
    append_figures_select(&sql, out->head, out->plugin);
    if (sql.oom) {
        util_fail(err, "%s: %s: out of memory", s->path, what);
        goto done;
    }
    if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    sqlite3_bind_int64(st, 1, section_id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    out->row_count = sqlite3_column_int64(st, 0);
    int i = 1;
    for (size_t c = 0; c < out->head->column_count; c++) {
        runner_type type = out->head->columns[c].type;
        if (!value_type_is_numeric(type))
            continue;
        if (column_value(st, i, type, &out->min[c]) != 0 ||
            column_value(st, i + 1, type, &out->max[c]) != 0) {
            util_fail(err, "%s: %s: out of memory", s->path, what);
            goto done;
        }
        out->nan_count[c] = sqlite3_column_int64(st, i + 2);
        i += 3;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    free(sql.data);
    return rc;
}

/* The section row, point counts and column metadata; the result table's
 * first max_rows rows; then one scan for count, min, max and NaNs. */
int store_section_digest_read(store *s, int64_t section_id, size_t max_rows,
                              store_section_digest *out, char **err)
{
    memset(out, 0, sizeof *out);
    char what[96];
    snprintf(what, sizeof what, "cannot read section %" PRId64 " for its summary", section_id);
    if (read_section_row(s, section_id, what, out, err) != 0 ||
        add_section_columns(s, out->plugin, what, out->head, err) != 0)
        goto fail;
    size_t n = out->head->column_count;
    out->min = calloc(n ? n : 1, sizeof *out->min);
    out->max = calloc(n ? n : 1, sizeof *out->max);
    out->nan_count = calloc(n ? n : 1, sizeof *out->nan_count);
    if (!out->min || !out->max || !out->nan_count) {
        util_fail(err, "%s: %s: out of memory", s->path, what);
        goto fail;
    }
    if (n == 0) /* nothing recorded for the plugin: no rows */
        return 0;
    if (read_head_rows(s, section_id, max_rows, what, out, err) != 0 ||
        read_figures(s, section_id, what, out, err) != 0)
        goto fail;
    return 0;
fail:
    store_section_digest_clear(out);
    return -1;
}

void store_section_digest_clear(store_section_digest *d)
{
    if (!d)
        return;
    if (d->head) {
        for (size_t c = 0; c < d->head->column_count; c++) {
            if (d->min)
                value_clear(&d->min[c]);
            if (d->max)
                value_clear(&d->max[c]);
        }
    }
    free(d->min);
    free(d->max);
    free(d->nan_count);
    table_free(d->head);
    free(d->plugin);
    free(d->title);
    memset(d, 0, sizeof *d);
}
