/* serve_table: a section's rows for the dashboard, one page at a time,
 * sorted and filtered by the store (store_row_page: never the whole table
 * to the browser). Here: the request's arguments checked against the
 * section's own columns, and the page as JSON. */
#include "serve_int.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"

#define SERVE_TABLE_DEFAULT_PAGE 100
/* Sections with fewer rows are scanned (a few tens of ms): no copy. */
#define SERVE_SORT_CACHE_MIN_ROWS 100000

/* The sort cache (store_sort_cache.c): FILE.runner-cache, set once at
 * start (malloc'd; NULL: off), and whether it failed (said once). */
static char *sort_cache_path;
static int64_t sort_cache_min_rows = SERVE_SORT_CACHE_MIN_ROWS;
static atomic_int sort_cache_failed;

int servei_sort_cache_init(const char *db_path, char **err)
{
    /* For tests: a smaller threshold, or "off". */
    const char *rows = getenv("RUNNER_SERVE_CACHE_MIN_ROWS");
    if (rows && strcmp(rows, "off") == 0)
        return 0;
    if (rows) {
        char *end = NULL;
        long long n = strtoll(rows, &end, 10);
        if (!*rows || *end || n < 1)
            return util_fail(err,
                             "RUNNER_SERVE_CACHE_MIN_ROWS=%s: expected a positive number of "
                             "rows or off",
                             rows);
        sort_cache_min_rows = n;
    }
    sort_cache_path = util_format("%s.runner-cache", db_path);
    atomic_store(&sort_cache_failed, 0);
    return sort_cache_path ? 0 : util_fail(err, "out of memory");
}

void servei_sort_cache_free(void)
{
    free(sort_cache_path);
    sort_cache_path = NULL;
}

/* A sorted or filtered page through the cache: 1 answered, 0 not (the
 * caller scans). The first failure to write the cache is logged, and the
 * cache is not tried again. */
static int cached_page(store *s, const store_row_query *q, table **page, int64_t *total)
{
    if (!sort_cache_path || atomic_load(&sort_cache_failed) ||
        (q->sort_column < 0 && q->filter_column < 0))
        return 0;
    char *err = NULL;
    int rc = store_row_page_cached(s, q, sort_cache_path, sort_cache_min_rows, page, total, &err);
    if (rc < 0 && !atomic_exchange(&sort_cache_failed, 1)) {
        log_print(LOG_LEVEL_INFO,
                  "runner: serve: no sort cache (%s); sorts and filters scan the section\n",
                  err ? err : "out of memory");
        fflush(stderr);
    }
    free(err);
    return rc > 0;
}

/* The comparisons a row filter may use, named by the client. */
static const struct {
    const char *name;
    store_row_op op;
} filter_ops[] = {
    { "eq", STORE_ROW_EQ }, { "ne", STORE_ROW_NE }, { "lt", STORE_ROW_LT },
    { "le", STORE_ROW_LE }, { "gt", STORE_ROW_GT }, { "ge", STORE_ROW_GE },
};

/* Reads col/op/value; 0, or -1 with a 400 in reply. */
static int read_filter(struct MHD_Connection *connection, const servei_section *section,
                       store_row_query *q, servei_reply *reply)
{
    q->filter_column = -1;
    const char *column = servei_arg(connection, "col");
    const char *op = servei_arg(connection, "op");
    q->filter_value = servei_arg(connection, "value");
    if (!column)
        return 0;
    q->filter_column = servei_section_find(section, column);
    if (q->filter_column < 0 || !q->filter_value) {
        servei_reply_error(reply, 400,
                           q->filter_column < 0 ? "col: no such column in this "
                                                  "section"
                                                : "value: missing");
        return -1;
    }
    q->op = STORE_ROW_CONTAINS;
    size_t i = 0, count = sizeof filter_ops / sizeof filter_ops[0];
    if (op && strcmp(op, "contains") != 0) {
        while (i < count && strcmp(op, filter_ops[i].name) != 0)
            i++;
        if (i == count) {
            servei_reply_error(reply, 400, "op: expected eq, ne, lt, le, gt, ge or contains");
            return -1;
        }
        q->op = filter_ops[i].op;
    }
    char *err = NULL;
    if (store_row_filter_check(q, &err) != 0) { /* a value that is not a number */
        servei_reply_error(reply, 400, err ? err : "out of memory");
        free(err);
        return -1;
    }
    return 0;
}

/* Reads after=POINT:ROW into *after; 0 (absent: *set 0, or read), or -1
 * with a 400 in reply. */
static int read_cursor(struct MHD_Connection *connection, long sort_column, store_row_key *after,
                       int *set, servei_reply *reply)
{
    *set = 0;
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
    *after = (store_row_key){ point_id, row_id };
    *set = 1;
    return 0;
}

/* The key of a page's last row, "POINT:ROW", for the next page's after=. */
static json_t *cursor_json(const table *page)
{
    const value *point = table_cell(page, page->row_count - 1, 0);
    const value *row = table_cell(page, page->row_count - 1, page->column_count - 1);
    char text[48];
    snprintf(text, sizeof text, "%lld:%lld", (long long)point->as.integer,
             (long long)row->as.integer);
    return json_string(text);
}

/* The page's rows as [point_id, values...]; row_id, the last column, is
 * kept out. */
static json_t *rows_json(const table *page)
{
    json_t *rows = json_array();
    for (size_t r = 0; r < page->row_count; r++) {
        json_t *row = json_array();
        for (size_t c = 0; c + 1 < page->column_count; c++)
            json_array_append_new(row, servei_cell(table_cell(page, r, c)));
        json_array_append_new(rows, row);
    }
    return rows;
}

void servei_rows(store *s, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply)
{
    servei_section section;
    if (servei_section_open(s, section_id, &section, reply) != 0)
        return;
    const char *sort = servei_arg(connection, "sort");
    const char *order = servei_arg(connection, "order");
    if (servei_check_order(order, reply) != 0) {
        servei_section_clear(&section);
        return;
    }
    store_row_query q = {
        .section_id = section_id,
        .sweep_id = section.sweep_id,
        .plugin = section.plugin,
        .columns = section.columns,
        .sort_column = servei_section_find(&section, sort),
        .descending = order && strcmp(order, "desc") == 0,
        .limit =
            servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS, SERVE_TABLE_DEFAULT_PAGE),
        .offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0),
    };
    store_row_key after;
    int has_after = 0;
    if (sort && q.sort_column < 0) {
        servei_reply_error(reply, 400, "sort: no such column in this section");
        servei_section_clear(&section);
        return;
    }
    if (read_filter(connection, &section, &q, reply) != 0 ||
        read_cursor(connection, q.sort_column, &after, &has_after, reply) != 0) {
        servei_section_clear(&section);
        return;
    }
    q.after = has_after ? &after : NULL;
    table *page = NULL;
    int64_t total = 0;
    char *err = NULL;
    if (!cached_page(s, &q, &page, &total) && store_row_page(s, &q, &page, &total, &err) != 0)
        servei_reply_fail(reply, err);
    else
        /* next: where the following page starts, in the default order. */
        servei_reply_json(
            reply,
            json_pack("{s:I,s:I,s:I,s:o,s:o,s:o}", "total", (json_int_t)total, "offset",
                      (json_int_t)q.offset, "limit", (json_int_t)q.limit, "columns",
                      servei_columns_json(section.columns), "rows", rows_json(page), "next",
                      q.sort_column < 0 && page->row_count ? cursor_json(page) : json_null()));
    table_free(page);
    servei_section_clear(&section);
}
