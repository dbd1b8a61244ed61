/* store_run: every run of a command point (command_run): written inside
 * the batch that stores the point, so a point and its runs are committed,
 * or lost to kill -9, together; copied by --reuse; read back as samples for
 * diff --stat and as rows for show --runs and export --runs. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/point_run.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "store_int.h"

/* --- writing ---------------------------------------------------------------- */

void storei_undo_runs(store *s, int64_t sweep_id, int64_t point_id)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "DELETE FROM command_run WHERE sweep_id = ?1 AND point_id = ?2",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, sweep_id);
        sqlite3_bind_int64(st, 2, point_id);
        sqlite3_step(st);
    }
    sqlite3_finalize(st);
}

int storei_write_runs(store *s, int64_t sweep_id, int64_t point_id, const point_runs *runs,
                      char **err)
{
    sqlite3_stmt *st = storei_stmt(s, STMT_INSERT_RUN, "cannot store the runs of a point", err);
    if (!st)
        return -1;
    for (size_t i = 0; i < runs->count; i++) {
        const point_run *r = &runs->runs[i];
        sqlite3_bind_int64(st, 1, sweep_id);
        sqlite3_bind_int64(st, 2, point_id);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)i + 1);
        sqlite3_bind_int(st, 4, r->warmup != 0);
        sqlite3_bind_double(st, 5, r->wall_s);
        sqlite3_bind_double(st, 6, r->user_s);
        sqlite3_bind_double(st, 7, r->sys_s);
        sqlite3_bind_int64(st, 8, r->max_rss_kib);
        sqlite3_bind_int64(st, 9, r->voluntary_switches);
        sqlite3_bind_int64(st, 10, r->involuntary_switches);
        sqlite3_bind_int(st, 11, r->exit_status);
        if (r->values_json)
            sqlite3_bind_text(st, 12, r->values_json, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 12);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc != SQLITE_DONE) {
            storei_fail_sql(s, err, "cannot store run %zu of point %" PRId64, i + 1, point_id);
            storei_undo_runs(s, sweep_id, point_id);
            return -1;
        }
    }
    return 0;
}

int storei_copy_runs(store *s, const store_point *point, int64_t point_id, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO command_run SELECT ?1, ?2, run, warmup, wall_s, user_s,"
                           " sys_s, max_rss_kib, voluntary_switches, involuntary_switches,"
                           " exit_status, run_values FROM command_run"
                           " WHERE sweep_id = ?3 AND point_id = ?4",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot copy the runs of point %" PRId64,
                               point->reused_from);
    sqlite3_bind_int64(st, 1, point->sweep_id);
    sqlite3_bind_int64(st, 2, point_id);
    sqlite3_bind_int64(st, 3, point->reused_sweep_id);
    sqlite3_bind_int64(st, 4, point->reused_from);
    int rc = sqlite3_step(st) == SQLITE_DONE
                 ? 0
                 : storei_fail_sql(s, err,
                                   "cannot copy the runs of point %" PRId64 " into point %" PRId64,
                                   point->reused_from, point_id);
    sqlite3_finalize(st);
    return rc;
}

/* --- reading ---------------------------------------------------------------- */

/* 1 when the file has command_run (a version 15 file read as it is has
 * not), 0 when not, -1 with *err. */
static int has_runs_table(store *s, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                           " AND name = 'command_run'",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return storei_fail_sql(s, err, "cannot read the catalog");
    }
    int has = sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    return has;
}

/* A run value read as a number: the run's own field for wall_s, user_s,
 * sys_s, max_rss_kib, else the declared column from run_values (a JSON
 * string such as "NaN" reads as NaN). */
static void select_field(strbuf *sql, const char *column)
{
    static const char *const own[] = { "wall_s", "user_s", "sys_s", "max_rss_kib" };
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strcmp(column, own[i]) == 0) {
            strbuf_printf(sql, ", %s", own[i]);
            return;
        }
    strbuf_str(sql, ", json_extract(run_values, '$.\"");
    for (const char *p = column; *p; p++) /* a column name is [A-Za-z0-9_] */
        strbuf_add(sql, p, 1);
    strbuf_str(sql, "\"')");
}

struct store_run_samples {
    store *s;
    sqlite3_stmt *st; /* NULL: the file has no runs */
    size_t columns;
    double *values;
    size_t capacity;
};

int store_run_samples_open(store *s, const char *const *columns, size_t count,
                           store_run_samples **out, char **err)
{
    *out = NULL;
    store_run_samples *r = calloc(1, sizeof *r);
    if (!r)
        return util_fail(err, "out of memory");
    r->s = s;
    r->columns = count;
    int has = has_runs_table(s, err);
    if (has < 0) {
        free(r);
        return -1;
    }
    if (has) {
        strbuf sql = { 0 };
        strbuf_str(&sql, "SELECT run");
        for (size_t c = 0; c < count; c++)
            select_field(&sql, columns[c]);
        strbuf_str(&sql, " FROM command_run WHERE sweep_id = ?1 AND point_id = ?2"
                         " AND warmup = 0 ORDER BY run");
        int rc = sql.oom ? SQLITE_NOMEM : sqlite3_prepare_v2(s->db, sql.data, -1, &r->st, NULL);
        strbuf_free(&sql);
        if (rc != SQLITE_OK) {
            free(r);
            return rc == SQLITE_NOMEM ? util_fail(err, "out of memory")
                                      : storei_fail_sql(s, err, "cannot read the runs of points");
        }
    }
    *out = r;
    return 0;
}

int store_run_samples_read(store_run_samples *r, int64_t sweep_id, int64_t point_id,
                           const double **values, size_t *runs, char **err)
{
    *values = NULL;
    *runs = 0;
    if (!r->st)
        return 0;
    sqlite3_bind_int64(r->st, 1, sweep_id);
    sqlite3_bind_int64(r->st, 2, point_id);
    size_t n = 0;
    int step;
    while ((step = sqlite3_step(r->st)) == SQLITE_ROW) {
        if ((n + 1) * r->columns > r->capacity) {
            size_t capacity = r->capacity ? 2 * r->capacity : 64 * (r->columns ? r->columns : 1);
            while (capacity < (n + 1) * r->columns)
                capacity *= 2;
            double *grown = realloc(r->values, capacity * sizeof *grown);
            if (!grown) {
                sqlite3_reset(r->st);
                return util_fail(err, "out of memory");
            }
            r->values = grown;
            r->capacity = capacity;
        }
        for (size_t c = 0; c < r->columns; c++) {
            /* text ("NaN", "inf", a text column) and NULL are no measurement */
            int type = sqlite3_column_type(r->st, 1 + (int)c);
            r->values[n * r->columns + c] = type == SQLITE_INTEGER || type == SQLITE_FLOAT
                                                ? sqlite3_column_double(r->st, 1 + (int)c)
                                                : NAN;
        }
        n++;
    }
    sqlite3_reset(r->st);
    if (step != SQLITE_DONE)
        return storei_fail_sql(r->s, err, "cannot read the runs of point %" PRId64, point_id);
    *values = r->values;
    *runs = n;
    return 0;
}

void store_run_samples_close(store_run_samples *r)
{
    if (!r)
        return;
    sqlite3_finalize(r->st);
    free(r->values);
    free(r);
}

/* --- rows: show --runs, export --runs ----------------------------------- */

/* The run's own fields, as command_run names them. */
static const char *const run_fields[] = {
    "point_id",
    "run",
    "warmup",
    "wall_s",
    "user_s",
    "sys_s",
    "max_rss_kib",
    "voluntary_switches",
    "involuntary_switches",
    "exit_status",
};

static int is_run_field(const char *name)
{
    for (size_t i = 0; i < sizeof run_fields / sizeof *run_fields; i++)
        if (strcmp(name, run_fields[i]) == 0)
            return 1;
    return 0;
}

/* Appends json_extract(source, '$."name"') (a column or parameter name is
 * [A-Za-z0-9_]: nothing to quote). */
static void extract(strbuf *sql, const char *source, const char *name)
{
    strbuf_printf(sql, ", json_extract(%s, '$.\"%s\"')", source, name);
}

/* The runs and the points of a section, read side by side in point id
 * order (a merge, not a join: the point view expands a whole block to find
 * one point), so memory stays one row whatever the number of runs. */
struct store_run_cursor {
    store *s;
    const table *columns;
    sqlite3_stmt *points; /* id, then each parameter column's value */
    sqlite3_stmt *runs;   /* point_id, then each other column's value */
    int64_t point_id;     /* the point the points statement stands on; 0: none yet */
    int points_done;
};

int store_run_cursor_open(store *s, int64_t section_id, const table *columns,
                          store_run_cursor **out, char **err)
{
    *out = NULL;
    store_run_cursor *c = calloc(1, sizeof *c);
    if (!c)
        return util_fail(err, "out of memory");
    c->s = s;
    c->columns = columns;
    int has = has_runs_table(s, err);
    if (has <= 0) {
        *out = has < 0 ? NULL : c;
        if (has < 0)
            free(c);
        return has < 0 ? -1 : 0; /* an older file: no runs */
    }
    strbuf points = { 0 }, runs = { 0 };
    strbuf_str(&points, "SELECT pid");
    strbuf_str(&runs, "SELECT point_id");
    for (size_t i = 0; i < columns->column_count; i++) {
        const table_column *col = &columns->columns[i];
        if (col->is_param)
            extract(&points, "params", col->name);
        else if (is_run_field(col->name))
            strbuf_printf(&runs, ", %s", col->name);
        else
            extract(&runs, "run_values", col->name);
    }
    strbuf_str(&points, " FROM (SELECT json_extract(p.value, '$[0]') AS pid,"
                        " json_patch(b.params_base, json_extract(p.value, '$[2]')) AS params"
                        " FROM point_block AS b, json_each(b.points) AS p"
                        " WHERE b.section_id = ?1 ORDER BY b.first_point_id)");
    strbuf_str(&runs, " FROM command_run WHERE sweep_id = (SELECT sweep_id FROM section"
                      " WHERE id = ?1) ORDER BY point_id, run");
    int rc = points.oom || runs.oom ? SQLITE_NOMEM
                                    : sqlite3_prepare_v2(s->db, points.data, -1, &c->points, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db, runs.data, -1, &c->runs, NULL);
    strbuf_free(&points);
    strbuf_free(&runs);
    if (rc != SQLITE_OK) {
        rc = rc == SQLITE_NOMEM
                 ? util_fail(err, "out of memory")
                 : storei_fail_sql(s, err, "cannot read the runs of section %" PRId64, section_id);
        store_run_cursor_close(c);
        return rc;
    }
    sqlite3_bind_int64(c->points, 1, section_id);
    sqlite3_bind_int64(c->runs, 1, section_id);
    *out = c;
    return 0;
}

int store_run_cursor_next(store_run_cursor *c, value *row, char **err)
{
    if (!c->runs)
        return 0;
    for (;;) {
        int step = sqlite3_step(c->runs);
        if (step == SQLITE_DONE)
            return 0;
        if (step != SQLITE_ROW)
            return storei_fail_sql(c->s, err, "cannot read the runs");
        int64_t point_id = sqlite3_column_int64(c->runs, 0);
        /* the section's points in id order: move up to this run's point */
        while (!c->points_done && c->point_id < point_id) {
            step = sqlite3_step(c->points);
            if (step == SQLITE_ROW)
                c->point_id = sqlite3_column_int64(c->points, 0);
            else if (step == SQLITE_DONE)
                c->points_done = 1;
            else
                return storei_fail_sql(c->s, err, "cannot read the points of the runs");
        }
        if (c->points_done && c->point_id < point_id)
            return 0; /* past the section's last point */
        if (c->point_id != point_id)
            continue; /* another section's point (or one --resume removed) */
        int param = 1, field = 1;
        for (size_t i = 0; i < c->columns->column_count; i++) {
            const table_column *col = &c->columns->columns[i];
            sqlite3_stmt *st = col->is_param ? c->points : c->runs;
            int at = col->is_param ? param++ : field++;
            if (storei_column_value(st, at, col->type, &row[i]) != 0) {
                for (size_t k = 0; k < i; k++)
                    value_clear(&row[k]);
                return util_fail(err, "out of memory");
            }
        }
        return 1;
    }
}

void store_run_cursor_close(store_run_cursor *c)
{
    if (!c)
        return;
    sqlite3_finalize(c->points);
    sqlite3_finalize(c->runs);
    free(c);
}
