/* store_sort_cache.c: sorted and filtered pages of a big section without
 * scanning it at each request. The first sort or filter on a column of a
 * section of at least min_rows rows copies (row_id, that column) in key
 * order (point_id, row_id) into a cache database of runner's own next to
 * the user's file (FILE.runner-cache), indexed both ways; a page then reads
 * its row ids from the copy and its rows from the user's file by row_id.
 * The user's file is only read. An entry keeps the section's fingerprint
 * (store_count.c) of the read that made it and is used only while the
 * section's point blocks are the same; a stale entry is dropped and made
 * again, a file that is not a readable cache is deleted and made again. */
#include "store_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "RNSC": a file runner made, whatever its name. */
#define CACHE_APPLICATION_ID 0x524e5343
/* Sorted copies kept at most (about 50 MB each for 10^6 rows); the
 * oldest goes first. */
#define CACHE_MAX_ENTRIES 8
/* How long a build waits for another server's (then scans instead). */
#define CACHE_BUSY_MS 3000

/* What went wrong, and with which file. */
typedef enum cache_status {
    CACHE_SCAN = 0,    /* not answered here: the caller scans */
    CACHE_SERVED = 1,  /* the page came from the copy */
    CACHE_BROKEN = -1, /* the cache file cannot be made or written (*err) */
} cache_status;

static int cache_fail(sqlite3 *db, const char *path, char **err, const char *what)
{
    return util_fail(err, "%s: cannot %s: %s", path, what,
                     db ? sqlite3_errmsg(db) : "out of memory");
}

/* A damaged or foreign file: deleting it is safe (the name is runner's). */
static int unreadable(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

static void remove_cache_files(const char *path)
{
    static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char *name = util_format("%s%s", path, suffixes[i]);
        if (name)
            unlink(name);
        free(name);
    }
}

static int64_t read_int(sqlite3 *db, const char *sql, int *rc)
{
    sqlite3_stmt *st = NULL;
    int64_t out = 0;
    *rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (*rc == SQLITE_OK && (*rc = sqlite3_step(st)) == SQLITE_ROW) {
        out = sqlite3_column_int64(st, 0);
        *rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return out;
}

/* Opens (making it when absent) the cache at path: 0, 1 when the file is
 * not a readable cache (the caller deletes it), or -1 with *err. */
static int try_open(const char *path, sqlite3 **out, char **err)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(
        path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        cache_fail(db, path, err, "open the sort cache");
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, CACHE_BUSY_MS);
    int64_t id = read_int(db, "PRAGMA application_id", &rc);
    int64_t tables = rc == SQLITE_OK ? read_int(db, "SELECT count(*) FROM sqlite_schema", &rc) : 0;
    if (rc == SQLITE_OK && id != CACHE_APPLICATION_ID && (id != 0 || tables != 0))
        rc = SQLITE_NOTADB; /* some other file under runner's name */
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    if (rc == SQLITE_OK && id == 0)
        rc = sqlite3_exec(db,
                          "BEGIN IMMEDIATE;"
                          "CREATE TABLE IF NOT EXISTS entry (id INTEGER PRIMARY KEY,"
                          " sweep_id INTEGER NOT NULL, section_id INTEGER NOT NULL,"
                          " column_name TEXT NOT NULL, fingerprint TEXT NOT NULL,"
                          " row_count INTEGER NOT NULL, built_at TEXT NOT NULL,"
                          " UNIQUE (sweep_id, section_id, column_name));"
                          "PRAGMA application_id = 1380864835;"
                          "COMMIT",
                          NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int broken = unreadable(sqlite3_extended_errcode(db)) || unreadable(rc);
        if (!broken)
            cache_fail(db, path, err, "write the sort cache");
        sqlite3_close(db);
        return broken ? 1 : -1;
    }
    *out = db;
    return 0;
}

/* A new cache file gets the user's file's permissions (SQLite gives its
 * -wal and -shm those of the file): a copy of the results is no more
 * readable than they are. */
static void make_file(const char *path, const char *user_path)
{
    struct stat st;
    if (stat(user_path, &st) != 0)
        return;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 0666);
    if (fd >= 0)
        close(fd);
}

static int open_cache(const char *path, const char *user_path, sqlite3 **out, char **err)
{
    make_file(path, user_path);
    int rc = try_open(path, out, err);
    if (rc == 1) { /* made again, once */
        remove_cache_files(path);
        make_file(path, user_path);
        rc = try_open(path, out, err);
    }
    if (rc == 1)
        return util_fail(err, "%s: cannot use the sort cache: not a cache runner can read", path);
    return rc;
}

static char *fingerprint_text(store *s, int64_t section_id)
{
    int64_t f[5];
    char *err = NULL;
    if (storei_section_fingerprint(s, section_id, f, &err) != 0) {
        free(err);
        return NULL;
    }
    return util_format("%lld:%lld:%lld:%lld:%lld", (long long)f[0], (long long)f[1],
                       (long long)f[2], (long long)f[3], (long long)f[4]);
}

/* The entry of (sweep, section, column): its id and fingerprint
 * (malloc'd), or id 0 when there is none. SQLite's result code. */
static int find_entry(sqlite3 *db, const store_row_query *q, const char *column, int64_t *id,
                      char **fingerprint)
{
    sqlite3_stmt *st = NULL;
    *id = 0;
    *fingerprint = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT id, fingerprint FROM entry WHERE sweep_id = ?1 AND"
                                " section_id = ?2 AND column_name = ?3",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(st, 1, q->sweep_id);
    sqlite3_bind_int64(st, 2, q->section_id);
    sqlite3_bind_text(st, 3, column, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        *fingerprint = util_strdup((const char *)sqlite3_column_text(st, 1));
        rc = *fingerprint ? SQLITE_OK : SQLITE_NOMEM;
    } else if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(st);
    return rc;
}

static int drop_entry(sqlite3 *db, int64_t id)
{
    char *sql = util_format("DROP TABLE IF EXISTS \"rows_%lld\"; DELETE FROM entry WHERE id = %lld",
                            (long long)id, (long long)id);
    int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    free(sql);
    return rc;
}

/* Copies the column's cells with their row ids, in key order, into
 * rows_ID; SQLite's result code (src's errors are the user's file's). */
static int copy_column(store *s, sqlite3 *db, const store_row_query *q, const char *column,
                       int64_t id, int *source_failed)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT \"row_id\", ");
    storei_append_ident(&sql, column);
    strbuf_str(&sql, " FROM ");
    storei_append_ident(&sql, q->plugin);
    strbuf_str(&sql, " WHERE \"sweep_id\" = ?1 AND \"section_id\" = ?2 ORDER BY \"point_id\", "
                     "\"row_id\"");
    char *create =
        util_format("CREATE TABLE \"rows_%lld\" (k INTEGER PRIMARY KEY, row_id INTEGER "
                    "NOT NULL, v); INSERT INTO \"rows_%lld\" (row_id, v) VALUES (?1, ?2)",
                    (long long)id, (long long)id);
    sqlite3_stmt *src = NULL, *ins = NULL;
    const char *insert = NULL;
    int rc = SQLITE_NOMEM;
    if (sql.oom || !create)
        goto done;
    if (sqlite3_prepare_v2(s->db, sql.data, -1, &src, NULL) != SQLITE_OK) {
        *source_failed = 1;
        rc = SQLITE_ERROR;
        goto done;
    }
    /* The CREATE runs first; the INSERT after it is prepared against it. */
    sqlite3_stmt *make = NULL;
    rc = sqlite3_prepare_v2(db, create, -1, &make, &insert);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(make) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_finalize(make);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, insert, -1, &ins, NULL);
    if (rc != SQLITE_OK)
        goto done;
    sqlite3_bind_int64(src, 1, q->sweep_id);
    sqlite3_bind_int64(src, 2, q->section_id);
    int step;
    while (rc == SQLITE_OK && (step = sqlite3_step(src)) == SQLITE_ROW) {
        sqlite3_bind_int64(ins, 1, sqlite3_column_int64(src, 0));
        sqlite3_bind_value(ins, 2, sqlite3_column_value(src, 1)); /* as stored */
        rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_reset(ins);
    }
    if (rc == SQLITE_OK && step != SQLITE_DONE) {
        *source_failed = 1;
        rc = SQLITE_ERROR;
    }
done:
    sqlite3_finalize(src);
    sqlite3_finalize(ins);
    strbuf_free(&sql);
    free(create);
    return rc;
}

/* Makes the entry of q's column anew from the user's file, in one read of
 * it and one write of the cache (another server building waits, or makes
 * this one scan). */
static cache_status build(store *s, sqlite3 *db, const char *path, const store_row_query *q,
                          const char *column, char **err)
{
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if ((rc & 0xff) == SQLITE_BUSY)
        return CACHE_SCAN;
    if (rc != SQLITE_OK)
        return cache_fail(db, path, err, "write the sort cache");
    if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return CACHE_SCAN;
    }
    int64_t id = 0;
    char *kept = NULL, *now = fingerprint_text(s, q->section_id);
    int source_failed = !now;
    cache_status out = CACHE_SCAN;
    rc = now ? find_entry(db, q, column, &id, &kept) : SQLITE_OK;
    if (rc != SQLITE_OK || !now || (id && strcmp(kept, now) == 0))
        goto done; /* made meanwhile by another server: used as it is */
    if (id)
        rc = drop_entry(db, id);
    int64_t entries = rc == SQLITE_OK ? read_int(db, "SELECT count(*) FROM entry", &rc) : 0;
    for (; rc == SQLITE_OK && entries >= CACHE_MAX_ENTRIES; entries--) {
        int64_t oldest = read_int(db, "SELECT id FROM entry ORDER BY built_at, id LIMIT 1", &rc);
        if (rc == SQLITE_OK)
            rc = drop_entry(db, oldest);
    }
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "INSERT INTO entry (sweep_id, section_id, column_name, fingerprint,"
                                " row_count, built_at) VALUES (?1, ?2, ?3, ?4, 0,"
                                " strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, q->sweep_id);
        sqlite3_bind_int64(st, 2, q->section_id);
        sqlite3_bind_text(st, 3, column, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, now, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        id = sqlite3_last_insert_rowid(db);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = copy_column(s, db, q, column, id, &source_failed);
    char *index = rc == SQLITE_OK
                      ? util_format("CREATE INDEX \"rows_%lld_up\" ON \"rows_%lld\" (v);"
                                    " CREATE INDEX \"rows_%lld_down\" ON \"rows_%lld\" (v DESC);"
                                    " UPDATE entry SET row_count = (SELECT count(*) FROM"
                                    " \"rows_%lld\") WHERE id = %lld",
                                    (long long)id, (long long)id, (long long)id, (long long)id,
                                    (long long)id, (long long)id)
                      : NULL;
    if (rc == SQLITE_OK)
        rc = index ? sqlite3_exec(db, index, NULL, NULL, NULL) : SQLITE_NOMEM;
    free(index);
done:
    if (rc == SQLITE_OK && !source_failed)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK && !source_failed)
        out = cache_fail(db, path, err, "write the sort cache");
    if (rc != SQLITE_OK || source_failed)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    free(kept);
    free(now);
    return out;
}

/* The row ids of q's page from rows_ID (sorted and filtered there) and
 * their total; then the rows themselves from the user's file, in that
 * order. Both files are read in one transaction each, and the entry is
 * used only when the section is still as it was copied. */
static cache_status serve_page(store *s, sqlite3 *db, const char *path, const store_row_query *q,
                               table **rows, int64_t *total, char **err)
{
    const char *column =
        q->columns->columns[q->sort_column >= 0 ? q->sort_column : q->filter_column].name;
    cache_status out = CACHE_SCAN;
    if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return CACHE_SCAN;
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
        return CACHE_SCAN;
    }
    int64_t id = 0;
    char *kept = NULL, *now = fingerprint_text(s, q->section_id), *key = storei_row_count_key(q);
    strbuf where = { 0 }, count_sql = { 0 }, page_sql = { 0 }, ids = { 0 }, fetch = { 0 };
    sqlite3_stmt *count = NULL, *page = NULL, *rows_st = NULL;
    if (!now || !key || find_entry(db, q, column, &id, &kept) != SQLITE_OK || !id ||
        strcmp(kept, now) != 0)
        goto done;
    if (q->filter_column >= 0) {
        strbuf_str(&where, " WHERE ");
        storei_row_filter_sql(&where, q, "v");
    }
    const char *condition = where.data ? where.data : "";
    strbuf_printf(&count_sql, "SELECT count(*) FROM \"rows_%lld\"%s", (long long)id, condition);
    if (where.oom || count_sql.oom ||
        sqlite3_prepare_v2(db, count_sql.data, -1, &count, NULL) != SQLITE_OK)
        goto done;
    if (q->filter_column >= 0)
        storei_row_filter_bind(count, q);
    if (storei_count_rows(s, q->section_id, key, count, total, err) != 0) {
        free(*err);
        *err = NULL;
        goto done;
    }
    /* A filter in key order: a few matches are found through the index on
     * v (then sorted by k), many by reading the copy in k order until the
     * page is full. SQLite's planner cannot know which; the total says. A
     * filter the index cannot seek (contains, ne) is read in order: through
     * the index it would be read whole. */
    int rc;
    char *sized = util_format("SELECT row_count FROM entry WHERE id = %lld", (long long)id);
    int64_t copied = sized ? read_int(db, sized, &rc) : 0;
    free(sized);
    int seekable = q->op != STORE_ROW_CONTAINS && q->op != STORE_ROW_NE;
    for (int indexed =
             q->filter_column >= 0 && q->sort_column < 0 && seekable && *total * 4 <= copied;
         indexed >= 0 && !page; indexed--) {
        strbuf_free(&page_sql);
        memset(&page_sql, 0, sizeof page_sql);
        strbuf_printf(&page_sql, "SELECT row_id FROM \"rows_%lld\"", (long long)id);
        if (indexed)
            strbuf_printf(&page_sql, " INDEXED BY \"rows_%lld_up\"", (long long)id);
        strbuf_str(&page_sql, condition);
        if (q->sort_column >= 0)
            strbuf_printf(&page_sql, " ORDER BY v%s, k", q->descending ? " DESC" : "");
        else
            strbuf_printf(&page_sql, " ORDER BY k%s", q->descending ? " DESC" : "");
        strbuf_printf(&page_sql, " LIMIT %lld OFFSET %lld", (long long)q->limit,
                      (long long)q->offset);
        if (!page_sql.oom)
            sqlite3_prepare_v2(db, page_sql.data, -1, &page, NULL);
    }
    if (!page)
        goto done;
    if (q->filter_column >= 0)
        storei_row_filter_bind(page, q);
    strbuf_str(&ids, "[");
    while ((rc = sqlite3_step(page)) == SQLITE_ROW)
        strbuf_printf(&ids, "%s%lld", ids.len > 1 ? "," : "",
                      (long long)sqlite3_column_int64(page, 0));
    strbuf_str(&ids, "]");
    if (rc != SQLITE_DONE) {
        if (unreadable(rc)) /* made again at the next request */
            remove_cache_files(path);
        goto done;
    }
    /* The page's rows by row_id, in the copy's order: CROSS JOIN keeps
     * json_each outside, so each row is one lookup. */
    strbuf_str(&fetch, "SELECT t.\"point_id\"");
    for (size_t c = 0; c < q->columns->column_count; c++) {
        strbuf_str(&fetch, ", t.");
        storei_append_ident(&fetch, q->columns->columns[c].name);
    }
    strbuf_str(&fetch, ", t.\"row_id\" FROM json_each(?1) AS j CROSS JOIN ");
    storei_append_ident(&fetch, q->plugin);
    strbuf_str(&fetch, " AS t ON t.\"row_id\" = j.value WHERE t.\"sweep_id\" = ?2 AND"
                       " t.\"section_id\" = ?3 ORDER BY j.key");
    if (ids.oom || fetch.oom ||
        sqlite3_prepare_v2(s->db, fetch.data, -1, &rows_st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(rows_st, 1, ids.data, -1, SQLITE_STATIC);
    sqlite3_bind_int64(rows_st, 2, q->sweep_id);
    sqlite3_bind_int64(rows_st, 3, q->section_id);
    if (storei_query_table(s, rows_st, "cannot read the rows", rows, err) == 0)
        out = CACHE_SERVED;
    else {
        free(*err);
        *err = NULL;
    }
done:
    sqlite3_finalize(count);
    sqlite3_finalize(page);
    sqlite3_finalize(rows_st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    strbuf_free(&where);
    strbuf_free(&count_sql);
    strbuf_free(&page_sql);
    strbuf_free(&ids);
    strbuf_free(&fetch);
    free(kept);
    free(now);
    free(key);
    return out;
}

/* 1 when the section is worth a copy: at least min_rows rows (its count,
 * kept like any total) and a sweep that is not running (a live section
 * changes at each commit: a copy would be stale at once). */
static int worth_a_copy(store *s, const store_row_query *q, int64_t min_rows)
{
    store_row_query whole = *q;
    whole.filter_column = -1;
    char *key = storei_row_count_key(&whole), *err = NULL;
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT count(*) FROM ");
    storei_append_ident(&sql, q->plugin);
    strbuf_str(&sql,
               " WHERE \"sweep_id\" = ?3 AND \"section_id\" = ?1; SELECT " STORE_SWEEP_STATUS_SQL
               " = 'running' FROM sweep AS s WHERE s.id = ?1");
    sqlite3_stmt *count = NULL, *running = NULL;
    const char *second = NULL;
    int64_t rows = 0;
    int worth = 0;
    if (key && !sql.oom && sqlite3_prepare_v2(s->db, sql.data, -1, &count, &second) == SQLITE_OK &&
        sqlite3_prepare_v2(s->db, second, -1, &running, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(count, 1, q->section_id);
        sqlite3_bind_int64(count, 3, q->sweep_id);
        sqlite3_bind_int64(running, 1, q->sweep_id);
        worth = storei_count_rows(s, q->section_id, key, count, &rows, &err) == 0 &&
                rows >= min_rows && sqlite3_step(running) == SQLITE_ROW &&
                sqlite3_column_int(running, 0) == 0;
    }
    sqlite3_finalize(count);
    sqlite3_finalize(running);
    strbuf_free(&sql);
    free(key);
    free(err);
    return worth;
}

int store_row_page_cached(store *s, const store_row_query *q, const char *cache_path,
                          int64_t min_rows, table **rows, int64_t *total, char **err)
{
    *rows = NULL;
    *total = 0;
    long column = q->sort_column >= 0 ? q->sort_column : q->filter_column;
    char *ignored = NULL;
    /* One column at a time; keyset pages (after=) seek the result table. */
    if (column < 0 || q->after || (q->filter_column >= 0 && q->filter_column != column) ||
        store_row_filter_check(q, &ignored) != 0 || !worth_a_copy(s, q, min_rows)) {
        free(ignored);
        return CACHE_SCAN;
    }
    sqlite3 *db = NULL;
    if (open_cache(cache_path, s->path, &db, err) != 0)
        return CACHE_BROKEN;
    const char *name = q->columns->columns[column].name;
    int64_t id = 0;
    char *kept = NULL, *now = fingerprint_text(s, q->section_id);
    int rc = now ? find_entry(db, q, name, &id, &kept) : SQLITE_ERROR;
    if (unreadable(rc)) /* made again at the next request */
        remove_cache_files(cache_path);
    cache_status out = CACHE_SCAN;
    if (rc == SQLITE_OK && (!id || strcmp(kept, now) != 0))
        out = build(s, db, cache_path, q, name, err);
    free(kept);
    free(now);
    if (rc == SQLITE_OK && out == CACHE_SCAN)
        out = serve_page(s, db, cache_path, q, rows, total, err);
    sqlite3_close(db);
    return out;
}
