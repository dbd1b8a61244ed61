/* serve_table: a section's rows for the dashboard: one page at a time,
 * sorted and filtered in SQL (never the whole table to the browser); a plot
 * of two of its columns cut down in SQL to what a chart can show; and two
 * sweeps' sections side by side, rows matched by their parameters. Column
 * names from the client are only looked up among the section's own columns
 * (serve_db.c); values are bound. */
#include "serve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define SERVE_TABLE_DEFAULT_PAGE 100

/* The comparisons a row filter may use, named by the client. */
static const struct {
    const char *name;
    const char *sql;
} filter_ops[] = {
    { "eq", " = ?" },  { "ne", " <> ?" }, { "lt", " < ?" },
    { "le", " <= ?" }, { "gt", " > ?" },  { "ge", " >= ?" },
};

/* Binds value as a number when it reads as one (columns compare as SQLite
 * does: 2 = 2.0), else as text ("NaN" matches the stored 'NaN'). */
static void bind_value(sqlite3_stmt *st, int index, const char *value)
{
    char *end = NULL;
    double x = strtod(value, &end);
    if (*value && !*end && isfinite(x))
        sqlite3_bind_double(st, index, x);
    else
        sqlite3_bind_text(st, index, value, -1, SQLITE_TRANSIENT);
}

/* Where a page in the default order starts: after this row's key. */
typedef struct row_cursor {
    int set;
    int64_t point_id, row_id;
} row_cursor;

/* A section's rows query under construction. */
typedef struct row_query {
    servei_columns columns;
    int filter_column;      /* -1: none */
    const char *filter_sql; /* " = ?" ... or NULL for contains */
    const char *filter_value;
    row_cursor after; /* keyset paging: ?4, ?5 */
    int scan_table;   /* the section is most of its table */
} row_query;

/* Reads col/op/value; 0, or -1 with a 400 in reply. */
static int read_filter(struct MHD_Connection *connection, row_query *q, servei_reply *reply)
{
    q->filter_column = -1;
    const char *column = servei_arg(connection, "col");
    const char *op = servei_arg(connection, "op");
    q->filter_value = servei_arg(connection, "value");
    if (!column)
        return 0;
    q->filter_column = servei_columns_find(&q->columns, column);
    if (q->filter_column < 0 || !q->filter_value) {
        servei_reply_error(reply, 400,
                           q->filter_column < 0 ? "col: no such column in this "
                                                  "section"
                                                : "value: missing");
        return -1;
    }
    if (!op || strcmp(op, "contains") == 0)
        return 0;
    for (size_t i = 0; i < sizeof filter_ops / sizeof filter_ops[0]; i++)
        if (strcmp(op, filter_ops[i].name) == 0) {
            q->filter_sql = filter_ops[i].sql;
            return 0;
        }
    servei_reply_error(reply, 400, "op: expected eq, ne, lt, le, gt, ge or contains");
    return -1;
}

/* " FROM "plugin" WHERE section_id = ?1 [AND filter ?2]"; scan: read the
 * table in order rather than each row through the index. */
static void append_from_where(strbuf *sql, const row_query *q, int scan)
{
    strbuf_str(sql, " FROM ");
    servei_db_ident(sql, q->columns.plugin);
    if (scan)
        strbuf_str(sql, " NOT INDEXED");
    strbuf_str(sql, " WHERE \"sweep_id\" = ?3 AND \"section_id\" = ?1");
    if (q->filter_column < 0)
        return;
    strbuf_str(sql, " AND ");
    if (!q->filter_sql) {
        strbuf_str(sql, "instr(CAST(");
        servei_db_ident(sql, q->columns.name[q->filter_column]);
        strbuf_str(sql, " AS TEXT), ?2) > 0");
        return;
    }
    servei_db_ident(sql, q->columns.name[q->filter_column]);
    strbuf_str(sql, q->filter_sql);
    strbuf_str(sql, "2");
}

static void bind_row_query(sqlite3_stmt *st, const row_query *q, int64_t section_id)
{
    sqlite3_bind_int64(st, 1, section_id);
    sqlite3_bind_int64(st, 3, q->columns.sweep_id);
    if (q->filter_column >= 0) {
        if (q->filter_sql)
            bind_value(st, 2, q->filter_value);
        else
            sqlite3_bind_text(st, 2, q->filter_value, -1, SQLITE_TRANSIENT);
    }
    if (q->after.set && sqlite3_bind_parameter_count(st) >= 5) {
        sqlite3_bind_int64(st, 4, q->after.point_id);
        sqlite3_bind_int64(st, 5, q->after.row_id);
    }
}

static json_t *columns_json(const servei_columns *c)
{
    json_t *out = json_array();
    for (size_t k = 0; k < c->count; k++)
        json_array_append_new(out,
                              json_pack("{s:o,s:o,s:s,s:b}", "name", value_json_text(c->name[k]),
                                        "unit", value_json_text(c->unit[k]), "type", c->type[k],
                                        "param", c->is_param[k]));
    return out;
}

/* The key of a page's last row, "POINT:ROW", for the next page's after=. */
static json_t *cursor_json(const row_cursor *last)
{
    char text[48];
    snprintf(text, sizeof text, "%lld:%lld", (long long)last->point_id, (long long)last->row_id);
    return json_string(text);
}

/* Runs the count and page statements of q in one read transaction (the
 * total and the rows agree); rows go into *rows, the last row's key into
 * *last. The page's last column is row_id, kept out of the row. */
static int run_rows(sqlite3 *db, const row_query *q, int64_t section_id, const char *page_sql,
                    const char *count_sql, const char *count_key, int64_t *total, json_t *rows,
                    row_cursor *last, char **err)
{
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return util_fail(err, "cannot read the rows: %s", sqlite3_errmsg(db));
    sqlite3_stmt *count = servei_db_prepare(db, count_sql, "cannot count the rows", err);
    sqlite3_stmt *page =
        count ? servei_db_prepare(db, page_sql, "cannot read the rows", err) : NULL;
    int rc = -1;
    if (!page)
        goto done;
    bind_row_query(count, q, section_id);
    bind_row_query(page, q, section_id);
    if (servei_count_rows(db, section_id, count_key, count, total, err) != 0)
        goto done;
    int step, width = sqlite3_column_count(page) - 1;
    while ((step = sqlite3_step(page)) == SQLITE_ROW) {
        json_t *row = json_array();
        for (int i = 0; i < width; i++)
            json_array_append_new(row, servei_db_cell(page, i));
        json_array_append_new(rows, row);
        *last = (row_cursor){ 1, sqlite3_column_int64(page, 0), sqlite3_column_int64(page, width) };
    }
    if (step != SQLITE_DONE)
        util_fail(err, "cannot read the rows: %s", sqlite3_errmsg(db));
    else
        rc = 0;
done:
    sqlite3_finalize(count);
    sqlite3_finalize(page);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

/* Reads after=POINT:ROW; 0 (absent or read), or -1 with a 400 in reply. */
static int read_cursor(struct MHD_Connection *connection, int sort_column, row_cursor *after,
                       servei_reply *reply)
{
    const char *text = servei_arg(connection, "after");
    if (!text)
        return 0;
    char *end = NULL;
    long long point_id = strtoll(text, &end, 10), row_id = 0;
    int ok = end != text && *end == ':';
    if (ok) {
        const char *row = end + 1;
        row_id = strtoll(row, &end, 10);
        ok = end != row && !*end;
    }
    if (!ok || sort_column >= 0) {
        servei_reply_error(reply, 400,
                           ok ? "after: only in the default order (no sort)"
                              : "after: expected POINT:ROW, a page's next");
        return -1;
    }
    *after = (row_cursor){ 1, point_id, row_id };
    return 0;
}

/* The page's statement: point_id, the columns, row_id; sorted, then by
 * (point_id, row_id), the result table's index order. In that default
 * order a page after a cursor seeks to it in the index (keyset paging)
 * instead of walking OFFSET rows. */
static void page_sql(strbuf *page, const row_query *q, int sort_column, int descending,
                     int64_t limit, int64_t offset)
{
    strbuf_str(page, "SELECT \"point_id\"");
    for (size_t k = 0; k < q->columns.count; k++) {
        strbuf_str(page, ", ");
        servei_db_ident(page, q->columns.name[k]);
    }
    strbuf_str(page, ", \"row_id\"");
    append_from_where(page, q, q->scan_table && sort_column >= 0);
    const char *dir = descending && sort_column < 0 ? " DESC" : "";
    if (q->after.set)
        strbuf_printf(page, " AND (\"point_id\", \"row_id\") %s (?4, ?5)", *dir ? "<" : ">");
    strbuf_str(page, " ORDER BY ");
    if (sort_column >= 0) {
        servei_db_ident(page, q->columns.name[sort_column]);
        strbuf_str(page, descending ? " DESC, " : ", ");
    }
    strbuf_printf(page, "\"point_id\"%s, \"row_id\"%s LIMIT %lld", dir, dir, (long long)limit);
    if (!q->after.set)
        strbuf_printf(page, " OFFSET %lld", (long long)offset);
}

/* What the total depends on: the section and the filter. */
static char *count_key(const row_query *q, int64_t section_id)
{
    if (q->filter_column < 0)
        return util_format("%lld", (long long)section_id);
    return util_format("%lld\x1f%s\x1f%s\x1f%s", (long long)section_id,
                       q->columns.name[q->filter_column], q->filter_sql ? q->filter_sql : "~",
                       q->filter_value);
}

/* 1 when the section holds at least a quarter of its result table's rows
 * (its count, kept like any total, against the highest row_id). A sort or
 * filter on an unindexed column reads the whole section; then a scan of
 * the table in row order beats looking each row up through the index (at
 * 10^6 rows, 144 against 212 ms of CPU for a sort). A small section of a
 * big table keeps the index. */
static int mostly_section(sqlite3 *db, const row_query *q, int64_t section_id)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT count(*)");
    row_query whole = { .columns = q->columns, .filter_column = -1 };
    append_from_where(&sql, &whole, 0);
    strbuf_str(&sql, "; SELECT max(\"row_id\") FROM ");
    servei_db_ident(&sql, q->columns.plugin);
    char *key = count_key(&whole, section_id), *err = NULL;
    const char *second = NULL;
    sqlite3_stmt *count = NULL, *highest = NULL;
    int64_t section_rows = 0, table_rows = 0;
    if (!sql.oom && key && sqlite3_prepare_v2(db, sql.data, -1, &count, &second) == SQLITE_OK &&
        sqlite3_prepare_v2(db, second, -1, &highest, NULL) == SQLITE_OK) {
        bind_row_query(count, &whole, section_id);
        if (servei_count_rows(db, section_id, key, count, &section_rows, &err) == 0 &&
            sqlite3_step(highest) == SQLITE_ROW)
            table_rows = sqlite3_column_int64(highest, 0);
    }
    sqlite3_finalize(count);
    sqlite3_finalize(highest);
    free(err);
    free(key);
    free(sql.data);
    return table_rows > 0 && section_rows * 4 >= table_rows;
}

void servei_rows(sqlite3 *db, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply)
{
    row_query q = { 0 };
    if (servei_section_columns(db, section_id, &q.columns, reply) != 0)
        return;
    const char *sort = servei_arg(connection, "sort");
    int sort_column = servei_columns_find(&q.columns, sort);
    const char *order = servei_arg(connection, "order");
    int descending = order && strcmp(order, "desc") == 0;
    int64_t limit =
        servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS, SERVE_TABLE_DEFAULT_PAGE);
    int64_t offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0);
    row_cursor last = { 0 };
    if (sort && sort_column < 0) {
        servei_reply_error(reply, 400, "sort: no such column in this section");
        servei_columns_clear(&q.columns);
        return;
    }
    if (read_filter(connection, &q, reply) != 0 ||
        read_cursor(connection, sort_column, &q.after, reply) != 0) {
        servei_columns_clear(&q.columns);
        return;
    }
    strbuf page = { 0 }, count = { 0 };
    page_sql(&page, &q, sort_column, descending, limit, offset);
    q.scan_table = (sort_column >= 0 || q.filter_column >= 0) && mostly_section(db, &q, section_id);
    strbuf_str(&count, "SELECT count(*)");
    append_from_where(&count, &q, q.scan_table && q.filter_column >= 0);
    char *key = count_key(&q, section_id);
    json_t *rows = json_array();
    int64_t total = 0;
    char *err = NULL;
    if (page.oom || count.oom || !key)
        util_fail(&err, "out of memory");
    else if (run_rows(db, &q, section_id, page.data, count.data, key, &total, rows, &last, &err) ==
             0)
        /* next: where the following page starts, in the default order. */
        servei_reply_json(
            reply, json_pack("{s:I,s:I,s:I,s:o,s:o,s:o}", "total", (json_int_t)total, "offset",
                             (json_int_t)offset, "limit", (json_int_t)limit, "columns",
                             columns_json(&q.columns), "rows", rows, "next",
                             sort_column < 0 && last.set ? cursor_json(&last) : json_null()));
    if (err) {
        json_decref(rows);
        servei_reply_fail(reply, err);
    }
    free(key);
    free(page.data);
    free(count.data);
    servei_columns_clear(&q.columns);
}
