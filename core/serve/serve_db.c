/* serve_db: the dashboard's side of the database. Each request opens its own
 * read-only connection (SQLITE_OPEN_READONLY, query_only), so the server can
 * change nothing and never blocks a sweep writing in WAL mode; every query
 * is fixed text with bound parameters, and the only names spliced into SQL
 * are ones read back from the catalog. */
#include "serve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store.h"

/* A reader waits this long for a writer's checkpoint before giving up. */
#define SERVE_DB_BUSY_MS 2000
/* Page cache per connection (KiB): bounds the server's memory per request. */
#define SERVE_DB_CACHE_KIB 4096
/* A request's queries stop after this long (one thread is not held by an
 * expensive sort or comparison), and at once when the server stops. */
#define SERVE_DB_REQUEST_LIMIT_S 20.0
/* SQLite virtual machine steps between two looks at the clock. */
#define SERVE_DB_PROGRESS_STEPS 10000

volatile sig_atomic_t servei_db_stopping = 0;
/* The request on this thread gives up at this monotonic time. */
static _Thread_local double request_deadline_s;

/* SQLite's progress handler: nonzero interrupts the statement. */
static int past_deadline(void *unused)
{
    (void)unused;
    return servei_db_stopping || util_monotonic() > request_deadline_s;
}

sqlite3 *servei_db_open(const char *path, char **err)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        util_fail(err, "%s: cannot open for reading: %s", path,
                  db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, SERVE_DB_BUSY_MS);
    if (store_process_register_sql(db) != 0) {
        util_fail(err, "%s: cannot open for reading: out of memory", path);
        sqlite3_close(db);
        return NULL;
    }
    request_deadline_s = util_monotonic() + SERVE_DB_REQUEST_LIMIT_S;
    sqlite3_progress_handler(db, SERVE_DB_PROGRESS_STEPS, past_deadline, NULL);
    char pragmas[96];
    snprintf(pragmas, sizeof pragmas, "PRAGMA query_only = 1; PRAGMA cache_size = -%d;",
             SERVE_DB_CACHE_KIB);
    if (sqlite3_exec(db, pragmas, NULL, NULL, NULL) != SQLITE_OK) {
        util_fail(err, "%s: cannot open for reading: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

sqlite3_stmt *servei_db_prepare(sqlite3 *db, const char *sql, const char *what, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        util_fail(err, "%s: %s", what, sqlite3_errmsg(db));
        return NULL;
    }
    return st;
}

static int exists(sqlite3 *db, const char *sql, const char *a, const char *b)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
    if (b)
        sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int servei_db_has_column(sqlite3 *db, const char *table, const char *column)
{
    return exists(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", table, column);
}

int servei_db_has_table(sqlite3 *db, const char *table)
{
    return exists(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1", table,
                  NULL);
}

void servei_db_ident(strbuf *sql, const char *name)
{
    strbuf_add(sql, "\"", 1);
    for (const char *p = name; *p; p++)
        strbuf_add(sql, p, 1 + (*p == '"')); /* a quote doubled: "" */
    strbuf_add(sql, "\"", 1);
}

json_t *servei_db_cell(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: {
        double x = sqlite3_column_double(st, i);
        if (isnan(x))
            return json_string("NaN");
        if (isinf(x))
            return json_string(x > 0 ? "inf" : "-inf");
        return json_real(x);
    }
    case SQLITE_TEXT: return value_json_text((const char *)sqlite3_column_text(st, i));
    default: return json_null();
    }
}

void servei_columns_clear(servei_columns *c)
{
    for (size_t i = 0; i < c->count; i++) {
        free(c->name[i]);
        free(c->unit[i]);
        free(c->type[i]);
    }
    free(c->name);
    free(c->unit);
    free(c->type);
    free(c->is_param);
    free(c->plugin);
    memset(c, 0, sizeof *c);
}

int servei_columns_find(const servei_columns *c, const char *name)
{
    for (size_t i = 0; name && i < c->count; i++)
        if (strcmp(c->name[i], name) == 0)
            return (int)i;
    return -1;
}

static int columns_grow(servei_columns *c, size_t want)
{
    char **name = realloc(c->name, want * sizeof *name);
    if (name)
        c->name = name;
    char **unit = realloc(c->unit, want * sizeof *unit);
    if (unit)
        c->unit = unit;
    char **type = realloc(c->type, want * sizeof *type);
    if (type)
        c->type = type;
    int *is_param = realloc(c->is_param, want * sizeof *is_param);
    if (is_param)
        c->is_param = is_param;
    return name && unit && type && is_param ? 0 : -1;
}

/* The section's plugin and sweep; 1 when there is no such section. */
static int section_plugin(sqlite3 *db, int64_t section_id, servei_columns *out, char **err)
{
    sqlite3_stmt *st = servei_db_prepare(db, "SELECT plugin, sweep_id FROM section WHERE id = ?1",
                                         "cannot read the section", err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, section_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->plugin = util_strdup((const char *)sqlite3_column_text(st, 0));
        out->sweep_id = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return 1;
    if (rc != SQLITE_ROW || !out->plugin)
        return util_fail(err, "cannot read the section: %s", sqlite3_errmsg(db));
    return 0;
}

int servei_db_columns(sqlite3 *db, int64_t section_id, servei_columns *out, char **err)
{
    memset(out, 0, sizeof *out);
    int found = section_plugin(db, section_id, out, err);
    if (found != 0)
        return found;
    /* Only columns the result table really has (a plugin_column row can
     * precede its ALTER TABLE by a moment while a sweep widens it). */
    sqlite3_stmt *st = servei_db_prepare(
        db,
        "SELECT c.name, c.unit, c.type, c.role = 'param' FROM plugin_column AS c"
        " WHERE c.plugin = ?1 AND c.name IN (SELECT name FROM pragma_table_info(?1))"
        " ORDER BY c.role <> 'param', c.position, c.name",
        "cannot read the section's columns", err);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, out->plugin, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (columns_grow(out, out->count + 1) != 0)
            break;
        size_t i = out->count++;
        out->name[i] = util_strdup((const char *)sqlite3_column_text(st, 0));
        out->unit[i] = util_strdup((const char *)sqlite3_column_text(st, 1));
        out->type[i] = util_strdup((const char *)sqlite3_column_text(st, 2));
        out->is_param[i] = sqlite3_column_int(st, 3);
        if (!out->name[i] || !out->unit[i] || !out->type[i])
            break;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return 0;
    util_fail(err, "cannot read the section's columns: %s",
              rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db));
    servei_columns_clear(out);
    return -1;
}
