/* store_points: a sweep's points of one plugin with their rows, streamed
 * from two statements (the points in order, each point's rows through the
 * result table's index), for `runner diff` (ordered by canonical parameters, so
 * two sweeps merge like sorted lists) and `runner verify` (in stored
 * order). Memory does not grow with the sweep: SQLite sorts, on disk when
 * it must. */
#include "store_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct store_point_stream {
    store *s;
    sqlite3_stmt *points;   /* the points, in the stream's order */
    sqlite3_stmt *rows;     /* one point's rows, by the result table's index */
    const table *columns;   /* borrowed */
    value *cells;           /* columns->column_count, cleared before each row */
    int in_point;           /* points is on a point whose rows are being read */
    int point_rows;         /* rows of that point returned so far */
    store_stream_row point; /* that point's fields, read once (its text
                             * is SQLite's until points steps again) */
};

/* The points statement's columns. */
enum {
    COL_PARAMS,
    COL_POINT,
    COL_SECTION,
    COL_ORDINAL,
    COL_SEED,
    COL_STATUS,
    COL_ERROR,
    COL_IDENTITY,
    COL_SWEEP
};

/* Points first, sorted on their own (small rows), then each point's rows
 * through the index: sorting whole rows by parameters cost twice as much. */
static void append_points_sql(strbuf *sql, store_point_order order, int one_section)
{
    strbuf_str(sql, "SELECT p.params_json, p.id, p.section_id, s.ordinal, p.seed, p.status,"
                    " p.error, p.identity, p.sweep_id"
                    " FROM section AS s CROSS JOIN point AS p ON p.section_id = s.id"
                    " WHERE s.sweep_id = ?1 AND s.plugin = ?2");
    if (one_section)
        strbuf_str(sql, " AND s.id = ?3");
    strbuf_str(sql, " ORDER BY ");
    if (order == STORE_ORDER_PARAMS)
        strbuf_str(sql, "p.params_json, ");
    strbuf_str(sql, "s.ordinal, p.ordinal");
}

static void append_rows_sql(strbuf *sql, const char *plugin, const table *columns)
{
    strbuf_str(sql, "SELECT \"row_id\"");
    for (size_t i = 0; i < columns->column_count; i++) {
        strbuf_str(sql, ", ");
        storei_append_ident(sql, columns->columns[i].name);
    }
    strbuf_str(sql, " FROM ");
    storei_append_ident(sql, plugin);
    strbuf_str(sql, " WHERE \"sweep_id\" = ?1 AND \"section_id\" = ?2 AND \"point_id\" = ?3"
                    " ORDER BY \"row_id\"");
}

int store_point_stream_open(store *s, int64_t sweep_id, const char *plugin, const table *columns,
                            store_point_order order, store_point_stream **out, char **err)
{
    return store_point_stream_open_section(s, sweep_id, 0, plugin, columns, order, out, err);
}

int store_point_stream_open_section(store *s, int64_t sweep_id, int64_t section_id,
                                    const char *plugin, const table *columns,
                                    store_point_order order, store_point_stream **out, char **err)
{
    *out = NULL;
    store_point_stream *ps = calloc(1, sizeof *ps);
    strbuf points = { 0 }, rows = { 0 };
    if (!ps || !(ps->cells = calloc(columns->column_count + 1, sizeof *ps->cells))) {
        free(ps);
        return util_fail(err, "out of memory");
    }
    ps->s = s;
    ps->columns = columns;
    append_points_sql(&points, order, section_id > 0);
    append_rows_sql(&rows, plugin, columns);
    int rc = 0;
    if (points.oom || rows.oom)
        rc = util_fail(err, "out of memory");
    else if (sqlite3_prepare_v2(s->db, points.data, -1, &ps->points, NULL) != SQLITE_OK ||
             sqlite3_prepare_v2(s->db, rows.data, -1, &ps->rows, NULL) != SQLITE_OK)
        rc = storei_fail_sql(s, err, "cannot read the points of \"%s\" in sweep %" PRId64, plugin,
                             sweep_id);
    free(points.data);
    free(rows.data);
    if (rc != 0) {
        store_point_stream_close(ps);
        return -1;
    }
    sqlite3_bind_int64(ps->points, 1, sweep_id);
    storei_bind_text(ps->points, 2, plugin);
    if (section_id > 0)
        sqlite3_bind_int64(ps->points, 3, section_id);
    *out = ps;
    return 0;
}

/* Moves to the next point and starts reading its rows: 1, 0 at the end,
 * -1 with *err. */
static int next_point(store_point_stream *ps, char **err)
{
    int step = sqlite3_step(ps->points);
    if (step == SQLITE_DONE)
        return 0;
    if (step != SQLITE_ROW)
        return storei_fail_sql(ps->s, err, "cannot read the points of a sweep");
    sqlite3_reset(ps->rows);
    sqlite3_bind_int64(ps->rows, 1, sqlite3_column_int64(ps->points, COL_SWEEP));
    sqlite3_bind_int64(ps->rows, 2, sqlite3_column_int64(ps->points, COL_SECTION));
    sqlite3_bind_int64(ps->rows, 3, sqlite3_column_int64(ps->points, COL_POINT));
    ps->in_point = 1;
    ps->point_rows = 0;
    /* Read once per point, not once per row: a point has many rows. */
    sqlite3_stmt *st = ps->points;
    int64_t seed = sqlite3_column_int64(st, COL_SEED);
    ps->point = (store_stream_row){
        .params_json = (const char *)sqlite3_column_text(st, COL_PARAMS),
        .point_id = sqlite3_column_int64(st, COL_POINT),
        .section_id = sqlite3_column_int64(st, COL_SECTION),
        .section_ordinal = sqlite3_column_int(st, COL_ORDINAL),
        .status = (const char *)sqlite3_column_text(st, COL_STATUS),
        .error = (const char *)sqlite3_column_text(st, COL_ERROR),
        .identity = (const char *)sqlite3_column_text(st, COL_IDENTITY),
        .cells = ps->cells,
    };
    memcpy(&ps->point.seed, &seed, sizeof seed); /* stored as signed 64-bit */
    return 1;
}

int store_point_stream_next(store_point_stream *ps, store_stream_row *row, char **err)
{
    for (size_t i = 0; i < ps->columns->column_count; i++)
        value_clear(&ps->cells[i]);
    int step = SQLITE_DONE;
    for (;;) {
        if (!ps->in_point) {
            int got = next_point(ps, err);
            if (got <= 0)
                return got;
        }
        step = sqlite3_step(ps->rows);
        if (step == SQLITE_ROW || ps->point_rows == 0)
            break; /* a row, or a point without rows (shown once) */
        ps->in_point = 0;
        if (step != SQLITE_DONE)
            break;
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return storei_fail_sql(ps->s, err, "cannot read the rows of a point");
    *row = ps->point;
    row->has_row = step == SQLITE_ROW;
    ps->point_rows++;
    if (step == SQLITE_DONE)
        ps->in_point = 0; /* the point without rows is done */
    if (!row->params_json || !row->status)
        return util_fail(err, "out of memory");
    for (size_t i = 0; row->has_row && i < ps->columns->column_count; i++)
        if (storei_column_value(ps->rows, 1 + (int)i, ps->columns->columns[i].type,
                                &ps->cells[i]) != 0)
            return util_fail(err, "out of memory");
    return 1;
}

void store_point_stream_close(store_point_stream *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; ps->cells && i < ps->columns->column_count; i++)
        value_clear(&ps->cells[i]);
    free(ps->cells);
    sqlite3_finalize(ps->points);
    sqlite3_finalize(ps->rows);
    free(ps);
}

int store_sweep_plugin_file(store *s, int64_t sweep_id, const char *plugin, char **version,
                            char **so_sha256, char **err)
{
    *version = *so_sha256 = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT plugin_version, so_sha256 FROM sweep_plugin"
                           " WHERE sweep_id = ?1 AND plugin = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read which plugin files sweep %" PRId64 " used",
                               sweep_id);
    sqlite3_bind_int64(st, 1, sweep_id);
    storei_bind_text(st, 2, plugin);
    int oom = 0, rc = 0;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        *version = storei_column_strdup(st, 0, &oom);
        *so_sha256 = storei_column_strdup(st, 1, &oom);
    } else if (step != SQLITE_DONE) {
        rc = storei_fail_sql(s, err, "cannot read which plugin files sweep %" PRId64 " used",
                             sweep_id);
    }
    sqlite3_finalize(st);
    if (oom)
        rc = util_fail(err, "out of memory");
    return rc;
}

int store_sweep_plugin_path(store *s, int64_t sweep_id, const char *plugin, char **so_path,
                            char **err)
{
    *so_path = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT so_path FROM sweep_plugin WHERE sweep_id = ?1 AND plugin = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read which plugin files sweep %" PRId64 " used",
                               sweep_id);
    sqlite3_bind_int64(st, 1, sweep_id);
    storei_bind_text(st, 2, plugin);
    int oom = 0, rc = 0, step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *so_path = storei_column_strdup(st, 0, &oom);
    else if (step != SQLITE_DONE)
        rc = storei_fail_sql(s, err, "cannot read which plugin files sweep %" PRId64 " used",
                             sweep_id);
    sqlite3_finalize(st);
    return oom ? util_fail(err, "out of memory") : rc;
}
