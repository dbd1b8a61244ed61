/* store_read.c: reading back. The sweeps list, a section's rows as a table,
 * a stored point's rows, and the digests a sweep's summary is made of
 * (resuming, which writes, is store_resume.c). */
#include "store_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- values ------------------------------------------------------------- */

runner_type storei_type_from_name(const char *name)
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
        runner_type type = storei_type_from_name((const char *)sqlite3_column_text(st, 2));
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
            if (storei_column_value(st, (int)i, t->columns[i].type, &row[i]) != 0)
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
            if (storei_column_value(st, (int)i, storei_column_type(plugin, i), &row[i]) != 0) {
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
        if (storei_column_value(st, i, type, &out->min[c]) != 0 ||
            storei_column_value(st, i + 1, type, &out->max[c]) != 0) {
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
