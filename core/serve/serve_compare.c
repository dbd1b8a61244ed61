/* serve_compare: two sweeps' sections (the same ordinal, the same plugin)
 * side by side. A row of one is matched with the row of the other that has
 * the same parameters (every parameter column: the point's canonical
 * parameters) and the same place among its point's rows; outputs that
 * differ (IS NOT: NaN equals NaN) are flagged, rows only one side has too.
 * Paged in SQL like the row tables (docs/serve.md). */
#include "serve_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define SERVE_COMPARE_DEFAULT_PAGE 100

/* "a.x IS NOT b.x OR ..." over the outputs, and the unmatched rows. */
static void append_differs(strbuf *sql, const servei_columns *c)
{
    strbuf_str(sql, "(a.row_id IS NULL OR b.row_id IS NULL");
    for (size_t k = 0; k < c->count; k++) {
        if (c->is_param[k])
            continue;
        strbuf_str(sql, " OR a.");
        servei_db_ident(sql, c->name[k]);
        strbuf_str(sql, " IS NOT b.");
        servei_db_ident(sql, c->name[k]);
    }
    strbuf_str(sql, ")");
}

/* The join both statements share (?1/?2: sweep and section of a, ?3/?4:
 * of b): a.row_id, a's columns, b.row_id, b's columns, differs. */
static void append_join(strbuf *sql, const servei_columns *c, int only_differing)
{
    /* Each side's match key is one value, the parameters and the place in
     * the point as a JSON array, so the join is one equality SQLite can
     * index (a join on many IS terms was a nested loop: 10^12 steps at
     * 10^6 rows). */
    for (int side = 0; side < 2; side++) {
        strbuf_str(sql, side ? ", b AS MATERIALIZED (" : "WITH a AS MATERIALIZED (");
        strbuf_str(sql, "SELECT *, json_array(");
        for (size_t k = 0; k < c->count; k++) {
            if (!c->is_param[k])
                continue;
            servei_db_ident(sql, c->name[k]);
            strbuf_str(sql, ", ");
        }
        strbuf_str(sql, "runner_rn) AS runner_key FROM (SELECT *, row_number() OVER"
                        " (PARTITION BY point_id ORDER BY row_id) AS runner_rn FROM ");
        servei_db_ident(sql, c->plugin);
        strbuf_str(sql, side ? " WHERE sweep_id = ?3 AND section_id = ?4))"
                             : " WHERE sweep_id = ?1 AND section_id = ?2))");
    }
    strbuf_str(sql, " SELECT * FROM (SELECT ");
    for (int side = 0; side < 2; side++) {
        const char *prefix = side ? "b." : "a.";
        strbuf_printf(sql, "%srow_id, ", prefix);
        for (size_t k = 0; k < c->count; k++) {
            strbuf_str(sql, prefix);
            servei_db_ident(sql, c->name[k]);
            strbuf_str(sql, ", ");
        }
    }
    append_differs(sql, c);
    strbuf_str(sql, " AS runner_differs, a.point_id AS a_point, a.runner_rn AS a_rn,"
                    " b.point_id AS b_point, b.runner_rn AS b_rn"
                    " FROM a FULL JOIN b ON a.runner_key = b.runner_key");
    strbuf_str(sql, ")");
    if (only_differing)
        strbuf_str(sql, " WHERE runner_differs");
}

/* The section with this ordinal in the sweep: 0 when none. */
static int64_t find_section(sqlite3 *db, int64_t sweep_id, int64_t ordinal)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id FROM section WHERE sweep_id = ?1 AND ordinal = ?2", -1,
                           &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, ordinal);
    int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return id;
}

typedef struct compare_sides {
    int64_t sweep[2], section[2];
    servei_columns columns; /* the plugin's (both sections share its table) */
} compare_sides;

static void bind_sides(sqlite3_stmt *st, const compare_sides *s)
{
    for (int side = 0; side < 2; side++) {
        sqlite3_bind_int64(st, 1 + 2 * side, s->sweep[side]);
        sqlite3_bind_int64(st, 2 + 2 * side, s->section[side]);
    }
}

/* One output row: the parameters (from whichever side has the row), then
 * each output as [a, b], then whether the row differs. */
static json_t *compare_row(sqlite3_stmt *st, const compare_sides *s)
{
    int width = 1 + (int)s->columns.count; /* row_id and the columns, per side */
    int a_has = sqlite3_column_type(st, 0) != SQLITE_NULL;
    int b_has = sqlite3_column_type(st, width) != SQLITE_NULL;
    json_t *params = json_array(), *outputs = json_array();
    for (int k = 0; k < (int)s->columns.count; k++) {
        int a = 1 + k, b = width + 1 + k;
        if (s->columns.is_param[k])
            json_array_append_new(params, servei_db_cell(st, a_has ? a : b));
        else
            json_array_append_new(outputs,
                                  json_pack("[o,o]", servei_db_cell(st, a), servei_db_cell(st, b)));
    }
    return json_pack("{s:o,s:o,s:b,s:b,s:b}", "params", params, "outputs", outputs, "in_a", a_has,
                     "in_b", b_has, "differs", sqlite3_column_int(st, 2 * width));
}

/* Matched, differing, only in a, only in b. */
static json_t *compare_counts(sqlite3 *db, const compare_sides *s, char **err)
{
    strbuf sql = { 0 };
    append_join(&sql, &s->columns, 0);
    strbuf_str(&sql, " ");
    /* Wrap: the counts over the joined rows. */
    strbuf head = { 0 };
    strbuf_str(&head, "SELECT count(*), coalesce(sum(runner_differs), 0),"
                      " coalesce(sum(b_point IS NULL), 0), coalesce(sum(a_point IS NULL), 0)"
                      " FROM (");
    strbuf_add(&head, sql.data ? sql.data : "", sql.len);
    strbuf_str(&head, ")");
    free(sql.data);
    sqlite3_stmt *st =
        head.oom ? NULL : servei_db_prepare(db, head.data, "cannot compare the sweeps", err);
    free(head.data);
    if (!st)
        return NULL;
    bind_sides(st, s);
    json_t *out = NULL;
    if (sqlite3_step(st) == SQLITE_ROW)
        out = json_pack("{s:I,s:I,s:I,s:I}", "rows", (json_int_t)sqlite3_column_int64(st, 0),
                        "differing", (json_int_t)sqlite3_column_int64(st, 1), "only_a",
                        (json_int_t)sqlite3_column_int64(st, 2), "only_b",
                        (json_int_t)sqlite3_column_int64(st, 3));
    else
        util_fail(err, "cannot compare the sweeps: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return out;
}

static json_t *compare_page(sqlite3 *db, const compare_sides *s, int only_differing, int64_t limit,
                            int64_t offset, char **err)
{
    strbuf sql = { 0 };
    append_join(&sql, &s->columns, only_differing);
    strbuf_printf(&sql,
                  " ORDER BY a_point IS NULL, a_point, a_rn, b_point, b_rn"
                  " LIMIT %lld OFFSET %lld",
                  (long long)limit, (long long)offset);
    sqlite3_stmt *st =
        sql.oom ? NULL : servei_db_prepare(db, sql.data, "cannot compare the sweeps", err);
    free(sql.data);
    if (!st)
        return NULL;
    bind_sides(st, s);
    json_t *rows = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        json_array_append_new(rows, compare_row(st, s));
    if (rc != SQLITE_DONE) {
        util_fail(err, "cannot compare the sweeps: %s", sqlite3_errmsg(db));
        json_decref(rows);
        rows = NULL;
    }
    sqlite3_finalize(st);
    return rows;
}

/* Both sections found, of one plugin; 0, or -1 with reply set. */
static int find_sides(sqlite3 *db, struct MHD_Connection *connection, compare_sides *s,
                      servei_reply *reply)
{
    int64_t ordinal = servei_arg_int(connection, "section", 1, INT32_MAX, 1);
    s->sweep[0] = servei_arg_int(connection, "a", 1, INT64_MAX, 0);
    s->sweep[1] = servei_arg_int(connection, "b", 1, INT64_MAX, 0);
    if (!s->sweep[0] || !s->sweep[1]) {
        servei_reply_error(reply, 400, "a and b: expected two sweep ids");
        return -1;
    }
    char *plugin = NULL;
    for (int side = 0; side < 2; side++) {
        s->section[side] = find_section(db, s->sweep[side], ordinal);
        if (!s->section[side]) {
            servei_reply_error(reply, 404, "no such section in one of the sweeps");
            break;
        }
        servei_columns_clear(&s->columns);
        if (servei_section_columns(db, s->section[side], &s->columns, reply) != 0)
            break;
        if (side == 0) {
            plugin = util_strdup(s->columns.plugin);
            continue;
        }
        if (plugin && strcmp(plugin, s->columns.plugin) == 0) {
            free(plugin);
            return 0;
        }
        servei_reply_error(reply, 400, "the two sections ran different plugins");
    }
    free(plugin);
    servei_columns_clear(&s->columns);
    return -1;
}

void servei_compare(sqlite3 *db, struct MHD_Connection *connection, servei_reply *reply)
{
    compare_sides s = { 0 };
    if (find_sides(db, connection, &s, reply) != 0)
        return;
    const char *only = servei_arg(connection, "only");
    int only_differing = only && strcmp(only, "diff") == 0;
    int64_t limit =
        servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS, SERVE_COMPARE_DEFAULT_PAGE);
    int64_t offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0);
    char *err = NULL;
    json_t *counts = compare_counts(db, &s, &err);
    json_t *rows = counts ? compare_page(db, &s, only_differing, limit, offset, &err) : NULL;
    if (!rows) {
        json_decref(counts);
        servei_reply_fail(reply, err);
    } else {
        json_t *params = json_array(), *outputs = json_array();
        for (size_t k = 0; k < s.columns.count; k++)
            json_array_append_new(s.columns.is_param[k] ? params : outputs,
                                  json_pack("{s:o,s:o}", "name", value_json_text(s.columns.name[k]),
                                            "unit", value_json_text(s.columns.unit[k])));
        servei_reply_json(reply, json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:I,s:I}", "a",
                                           (json_int_t)s.sweep[0], "b", (json_int_t)s.sweep[1],
                                           "section_a", (json_int_t)s.section[0], "section_b",
                                           (json_int_t)s.section[1], "params", params, "outputs",
                                           outputs, "counts", counts, "rows", rows, "offset",
                                           (json_int_t)offset, "limit", (json_int_t)limit));
    }
    servei_columns_clear(&s.columns);
}
