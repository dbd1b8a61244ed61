/* store_points: a sweep's points of one plugin with their rows, streamed
 * from one statement (point first, each point's rows through the result
 * table's index), for `runner diff` (ordered by canonical parameters, so
 * two sweeps merge like sorted lists) and `runner verify` (in stored
 * order). Memory does not grow with the sweep: SQLite sorts, on disk when
 * it must. */
#include "store_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct store_point_stream {
    store *s;
    sqlite3_stmt *st;
    const table *columns;        /* borrowed */
    value *cells;                /* columns->column_count, cleared before each row */
};

/* Columns 0..8 are the point's; the result columns follow. */
enum { COL_PARAMS, COL_POINT, COL_SECTION, COL_ORDINAL, COL_SEED, COL_STATUS, COL_ERROR,
       COL_IDENTITY, COL_ROW, COL_FIRST_CELL };

static void append_stream_sql(strbuf *sql, const char *plugin, const table *columns,
                              store_point_order order)
{
    strbuf_str(sql, "SELECT p.params_json, p.id, p.section_id, s.ordinal, p.seed, p.status,"
                    " p.error, p.identity, r.\"row_id\"");
    for (size_t i = 0; i < columns->column_count; i++) {
        strbuf_str(sql, ", r.");
        storei_append_ident(sql, columns->columns[i].name);
    }
    /* point first: each block expanded once, each point's rows found by
     * the (sweep_id, section_id, point_id) index; LEFT keeps failed points. */
    strbuf_str(sql, " FROM section AS s CROSS JOIN point AS p ON p.section_id = s.id"
                    " LEFT JOIN ");
    storei_append_ident(sql, plugin);
    strbuf_str(sql, " AS r ON r.\"sweep_id\" = p.sweep_id AND r.\"section_id\" = p.section_id"
                    " AND r.\"point_id\" = p.id"
                    " WHERE s.sweep_id = ?1 AND s.plugin = ?2 AND p.sweep_id = ?1 ORDER BY ");
    if (order == STORE_ORDER_PARAMS)
        strbuf_str(sql, "p.params_json, ");
    strbuf_str(sql, "s.ordinal, p.ordinal, r.\"row_id\"");
}

int store_point_stream_open(store *s, int64_t sweep_id, const char *plugin,
                            const table *columns, store_point_order order,
                            store_point_stream **out, char **err)
{
    *out = NULL;
    store_point_stream *ps = calloc(1, sizeof *ps);
    strbuf sql = { 0 };
    if (!ps || !(ps->cells = calloc(columns->column_count + 1, sizeof *ps->cells))) {
        free(ps);
        return util_fail(err, "out of memory");
    }
    ps->s = s;
    ps->columns = columns;
    append_stream_sql(&sql, plugin, columns, order);
    int rc = 0;
    if (sql.oom)
        rc = util_fail(err, "out of memory");
    else if (sqlite3_prepare_v2(s->db, sql.data, -1, &ps->st, NULL) != SQLITE_OK)
        rc = storei_fail_sql(s, err, "cannot read the points of \"%s\" in sweep %" PRId64,
                             plugin, sweep_id);
    free(sql.data);
    if (rc != 0) {
        store_point_stream_close(ps);
        return -1;
    }
    sqlite3_bind_int64(ps->st, 1, sweep_id);
    storei_bind_text(ps->st, 2, plugin);
    *out = ps;
    return 0;
}

int store_point_stream_next(store_point_stream *ps, store_stream_row *row, char **err)
{
    for (size_t i = 0; i < ps->columns->column_count; i++)
        value_clear(&ps->cells[i]);
    int step = sqlite3_step(ps->st);
    if (step == SQLITE_DONE)
        return 0;
    if (step != SQLITE_ROW)
        return storei_fail_sql(ps->s, err, "cannot read the points of a sweep");
    sqlite3_stmt *st = ps->st;
    int64_t seed = sqlite3_column_int64(st, COL_SEED);
    *row = (store_stream_row){
        .params_json = (const char *)sqlite3_column_text(st, COL_PARAMS),
        .point_id = sqlite3_column_int64(st, COL_POINT),
        .section_id = sqlite3_column_int64(st, COL_SECTION),
        .section_ordinal = sqlite3_column_int(st, COL_ORDINAL),
        .status = (const char *)sqlite3_column_text(st, COL_STATUS),
        .error = (const char *)sqlite3_column_text(st, COL_ERROR),
        .identity = (const char *)sqlite3_column_text(st, COL_IDENTITY),
        .has_row = sqlite3_column_type(st, COL_ROW) != SQLITE_NULL,
        .cells = ps->cells,
    };
    memcpy(&row->seed, &seed, sizeof seed);  /* stored as signed 64-bit */
    if (!row->params_json || !row->status)
        return util_fail(err, "out of memory");
    for (size_t i = 0; row->has_row && i < ps->columns->column_count; i++)
        if (storei_column_value(st, COL_FIRST_CELL + (int)i, ps->columns->columns[i].type,
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
    sqlite3_finalize(ps->st);
    free(ps);
}

int store_sweep_plugin_file(store *s, int64_t sweep_id, const char *plugin, char **version,
                            char **so_sha256, char **err)
{
    *version = *so_sha256 = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT plugin_version, so_sha256 FROM sweep_plugin"
                           " WHERE sweep_id = ?1 AND plugin = ?2", -1, &st, NULL) != SQLITE_OK)
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
