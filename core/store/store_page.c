/* store_page.c: a page of a section's rows for the dashboard, sorted and
 * filtered in SQL (never the whole section), with its total. In the
 * default order (point_id, row_id), the result table's index order, a page
 * after a key seeks to it in the index (keyset paging) instead of walking
 * OFFSET rows. Column names come from the catalog (store_query.h's
 * columns), quoted by storei_append_ident; values are bound. */
#include "store_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* SQL of each store_row_op but CONTAINS. */
static const char *const op_sql[] = {
    [STORE_ROW_EQ] = " = ?",  [STORE_ROW_NE] = " <> ?", [STORE_ROW_LT] = " < ?",
    [STORE_ROW_LE] = " <= ?", [STORE_ROW_GT] = " > ?",  [STORE_ROW_GE] = " >= ?",
};

static const char *column_name(const store_row_query *q, long column)
{
    return q->columns->columns[column].name;
}

/* How a filter's value meets its column. On an integer or real column
 * the value must be a number, and compares as one: "inf", "-inf" too
 * (stored as reals), while NaN, stored as the text 'NaN', is a value of
 * its own that only eq and ne see (it is unordered, as in IEEE 754). On
 * other columns the value binds as a number when it reads as one, else as
 * text. */
typedef enum filter_kind {
    FILTER_CONTAINS, /* the value is part of the cell's text */
    FILTER_LOOSE,    /* text or boolean column: the old comparison */
    FILTER_NUMBER,   /* numeric column, a number (finite or infinite) */
    FILTER_NAN,      /* numeric column, the value NaN */
    FILTER_BAD,      /* numeric column, not a number */
} filter_kind;

static filter_kind classify_filter(const store_row_query *q, double *number)
{
    runner_type type = q->columns->columns[q->filter_column].type;
    if (q->op == STORE_ROW_CONTAINS)
        return FILTER_CONTAINS;
    if (type != RUNNER_INTEGER && type != RUNNER_REAL)
        return FILTER_LOOSE;
    const char *text = q->filter_value;
    char *end = NULL;
    *number = strtod(text, &end);
    /* strtod skips leading blanks and reads "nan(...)" and hex; the value
     * must be the number alone. */
    if (!*text || *end || isspace((unsigned char)*text))
        return FILTER_BAD;
    return isnan(*number) ? FILTER_NAN : FILTER_NUMBER;
}

int store_row_filter_check(const store_row_query *q, char **err)
{
    double number;
    if (q->filter_column < 0)
        return 0;
    if ((unsigned)q->op > STORE_ROW_CONTAINS || !q->filter_value)
        return util_fail(err, "cannot read the rows: no such filter");
    if (classify_filter(q, &number) == FILTER_BAD)
        return util_fail(err,
                         "value: %s is a numeric column; expected a number (inf, -inf and NaN "
                         "too)",
                         column_name(q, q->filter_column));
    return 0;
}

/* Binds value as a number when it reads as one (columns compare as SQLite
 * does: 2 = 2.0), else as text ("NaN" matches the stored 'NaN'). */
static void bind_loose(sqlite3_stmt *st, int index, const char *value)
{
    char *end = NULL;
    double x = strtod(value, &end);
    if (*value && !*end && isfinite(x))
        sqlite3_bind_double(st, index, x);
    else
        sqlite3_bind_text(st, index, value, -1, SQLITE_TRANSIENT);
}

/* A number filter's value: an integer exactly when it is one (a double
 * would round beyond 2^53), else the double. */
static void bind_number(sqlite3_stmt *st, int index, const char *value, double number)
{
    char *end = NULL;
    errno = 0;
    long long integer = strtoll(value, &end, 10);
    if (!*end && errno == 0)
        sqlite3_bind_int64(st, index, integer);
    else
        sqlite3_bind_double(st, index, number);
}

void storei_row_filter_sql(strbuf *sql, const store_row_query *q, const char *column)
{
    const char *c = column ? column : column_name(q, q->filter_column);
    double number;
    switch (classify_filter(q, &number)) {
    case FILTER_CONTAINS:
        strbuf_str(sql, "instr(CAST(");
        storei_append_ident(sql, c);
        strbuf_str(sql, " AS TEXT), ?2) > 0");
        return;
    case FILTER_NAN: /* c = 'NaN', c <> 'NaN'; no order holds */
        if (q->op != STORE_ROW_EQ && q->op != STORE_ROW_NE) {
            strbuf_str(sql, "0");
            return;
        }
        break;
    case FILTER_NUMBER: /* NaN ('NaN', text) is unequal to every number */
        if (q->op != STORE_ROW_NE) {
            strbuf_str(sql, "typeof(");
            storei_append_ident(sql, c);
            strbuf_str(sql, ") IN ('integer', 'real') AND ");
        }
        break;
    case FILTER_LOOSE:
    case FILTER_BAD: /* refused before (store_row_filter_check) */ break;
    }
    storei_append_ident(sql, c);
    strbuf_str(sql, op_sql[q->op]);
    strbuf_str(sql, "2");
}

/* " FROM "plugin" WHERE section_id = ?1 [AND filter ?2]"; scan: read the
 * table in order rather than each row through the index. */
static void append_from_where(strbuf *sql, const store_row_query *q, int scan)
{
    strbuf_str(sql, " FROM ");
    storei_append_ident(sql, q->plugin);
    if (scan)
        strbuf_str(sql, " NOT INDEXED");
    strbuf_str(sql, " WHERE \"sweep_id\" = ?3 AND \"section_id\" = ?1");
    if (q->filter_column < 0)
        return;
    strbuf_str(sql, " AND ");
    storei_row_filter_sql(sql, q, NULL);
}

void storei_row_filter_bind(sqlite3_stmt *st, const store_row_query *q)
{
    double number;
    switch (classify_filter(q, &number)) {
    case FILTER_CONTAINS: sqlite3_bind_text(st, 2, q->filter_value, -1, SQLITE_TRANSIENT); break;
    case FILTER_NAN: /* how it is stored, whatever the spelling ("nan") */
        sqlite3_bind_text(st, 2, "NaN", 3, SQLITE_STATIC);
        break;
    case FILTER_NUMBER: bind_number(st, 2, q->filter_value, number); break;
    case FILTER_LOOSE:
    case FILTER_BAD: bind_loose(st, 2, q->filter_value); break;
    }
}

static void bind_row_query(sqlite3_stmt *st, const store_row_query *q)
{
    sqlite3_bind_int64(st, 1, q->section_id);
    sqlite3_bind_int64(st, 3, q->sweep_id);
    if (q->filter_column >= 0)
        storei_row_filter_bind(st, q);
    if (q->after && sqlite3_bind_parameter_count(st) >= 5) {
        sqlite3_bind_int64(st, 4, q->after->point_id);
        sqlite3_bind_int64(st, 5, q->after->row_id);
    }
}

/* The page's statement: point_id, the columns, row_id; sorted, then by
 * (point_id, row_id). It reads through the index: only the count scans. */
static void append_page(strbuf *page, const store_row_query *q)
{
    strbuf_str(page, "SELECT \"point_id\"");
    for (size_t k = 0; k < q->columns->column_count; k++) {
        strbuf_str(page, ", ");
        storei_append_ident(page, q->columns->columns[k].name);
    }
    strbuf_str(page, ", \"row_id\"");
    append_from_where(page, q, 0);
    const char *dir = q->descending && q->sort_column < 0 ? " DESC" : "";
    if (q->after)
        strbuf_printf(page, " AND (\"point_id\", \"row_id\") %s (?4, ?5)", *dir ? "<" : ">");
    strbuf_str(page, " ORDER BY ");
    if (q->sort_column >= 0) {
        storei_append_ident(page, column_name(q, q->sort_column));
        strbuf_str(page, q->descending ? " DESC, " : ", ");
    }
    strbuf_printf(page, "\"point_id\"%s, \"row_id\"%s LIMIT %lld", dir, dir, (long long)q->limit);
    if (!q->after)
        strbuf_printf(page, " OFFSET %lld", (long long)q->offset);
}

char *storei_row_count_key(const store_row_query *q)
{
    if (q->filter_column < 0)
        return util_format("%lld", (long long)q->section_id);
    return util_format("%lld\x1f%s\x1f%s\x1f%s", (long long)q->section_id,
                       column_name(q, q->filter_column),
                       q->op == STORE_ROW_CONTAINS ? "~" : op_sql[q->op], q->filter_value);
}

/* 1 when the section holds at least a quarter of its result table's rows
 * (its count, kept like any total, against the highest row_id). A sort or
 * filter on an unindexed column reads the whole section; then a scan of
 * the table in row order beats looking each row up through the index (at
 * 10^6 rows, 144 against 212 ms of CPU for a sort). A small section of a
 * big table keeps the index. */
static int mostly_section(store *s, const store_row_query *q)
{
    store_row_query whole = *q;
    whole.filter_column = -1;
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT count(*)");
    append_from_where(&sql, &whole, 0);
    strbuf_str(&sql, "; SELECT max(\"row_id\") FROM ");
    storei_append_ident(&sql, q->plugin);
    char *key = storei_row_count_key(&whole), *err = NULL;
    const char *second = NULL;
    sqlite3_stmt *count = NULL, *highest = NULL;
    int64_t section_rows = 0, table_rows = 0;
    if (!sql.oom && key && sqlite3_prepare_v2(s->db, sql.data, -1, &count, &second) == SQLITE_OK &&
        sqlite3_prepare_v2(s->db, second, -1, &highest, NULL) == SQLITE_OK) {
        bind_row_query(count, &whole);
        if (storei_count_rows(s, q->section_id, key, count, &section_rows, &err) == 0 &&
            sqlite3_step(highest) == SQLITE_ROW)
            table_rows = sqlite3_column_int64(highest, 0);
    }
    sqlite3_finalize(count);
    sqlite3_finalize(highest);
    free(err);
    free(key);
    strbuf_free(&sql);
    return table_rows > 0 && section_rows * 4 >= table_rows;
}

/* Runs the count and page statements in one read transaction (the total
 * and the rows agree). */
static int run_page(store *s, const store_row_query *q, const char *page_sql, const char *count_sql,
                    const char *key, table **rows, int64_t *total, char **err)
{
    if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the rows");
    sqlite3_stmt *count = NULL, *page = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(s->db, count_sql, -1, &count, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "cannot count the rows");
        goto done;
    }
    if (sqlite3_prepare_v2(s->db, page_sql, -1, &page, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "cannot read the rows");
        goto done;
    }
    bind_row_query(count, q);
    bind_row_query(page, q);
    if (storei_count_rows(s, q->section_id, key, count, total, err) != 0)
        goto done;
    rc = storei_query_table(s, page, "cannot read the rows", rows, err);
done:
    sqlite3_finalize(count);
    sqlite3_finalize(page);
    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

int store_row_page(store *s, const store_row_query *q, table **rows, int64_t *total, char **err)
{
    *rows = NULL;
    *total = 0;
    if (store_row_filter_check(q, err) != 0)
        return -1;
    int scan = (q->sort_column >= 0 || q->filter_column >= 0) && mostly_section(s, q);
    strbuf page = { 0 }, count = { 0 };
    append_page(&page, q);
    strbuf_str(&count, "SELECT count(*)");
    append_from_where(&count, q, scan && q->filter_column >= 0);
    char *key = storei_row_count_key(q);
    int rc = -1;
    if (page.oom || count.oom || !key)
        util_fail(err, "%s: cannot read the rows: out of memory", s->path);
    else
        rc = run_page(s, q, page.data, count.data, key, rows, total, err);
    free(key);
    strbuf_free(&page);
    strbuf_free(&count);
    return rc;
}
