/* store_sql.c: what every store file shares: the fixed statements (prepared
 * once, kept until store_close), error messages that name the file, and
 * small helpers for binding, reading and building SQL. */
#include "store_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A hundred rows ROW(0) .. ROW(99), comma-separated, for multi-row VALUES. */
#define ROWS_TEN(ROW, d)                                                                           \
    ROW(d##0)                                                                                      \
    "," ROW(d##1) "," ROW(d##2) "," ROW(d##3) "," ROW(d##4) "," ROW(d##5) "," ROW(d##6) "," ROW(   \
        d##7) "," ROW(d##8) "," ROW(d##9)
#define ROWS_HUNDRED(ROW)                                                                          \
    ROWS_TEN(ROW, )                                                                                \
    "," ROWS_TEN(ROW, 1) "," ROWS_TEN(ROW, 2) "," ROWS_TEN(ROW, 3) "," ROWS_TEN(                   \
        ROW, 4) "," ROWS_TEN(ROW,                                                                  \
                             5) "," ROWS_TEN(ROW,                                                  \
                                             6) "," ROWS_TEN(ROW,                                  \
                                                             7) "," ROWS_TEN(ROW,                  \
                                                                             8) "," ROWS_TEN(ROW,  \
                                                                                             9)
/* STOREI_INDEX_RUN (100) rows of point ids ?2 + 0 .. ?2 + 99 in block ?1. */
#define INDEX_ROW(n) "(?2 + " #n ", ?1, 'ok')"
/* STOREI_KEY_RUN (100) point_once rows of section ?1: point ?2 + n has the
 * ordinal in parameter ?1n (n = 0 .. 99: ?10 .. ?19, then ?110 .. ?199;
 * storei_block_keys binds them so). */
#define KEY_ROW(n) "(?1, ?1" #n ", ?2 + " #n ")"

static const char *const stmt_sql[STMT_COUNT] = {
    [STMT_BEGIN] = "BEGIN IMMEDIATE",
    [STMT_COMMIT] = "COMMIT",
    [STMT_ROLLBACK] = "ROLLBACK",
    [STMT_INSERT_BLOCK] =
        "INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id,"
        " point_count, ok_count, points, params_base) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    /* One statement per block, not per point: SQLite walks the block's JSON,
     * or, when every point is ok, just counts its ids (a third cheaper). */
    [STMT_INDEX_BLOCK] =
        "INSERT INTO point_index (id, block_id, status)"
        " SELECT json_extract(value, '$[0]'), ?1, json_extract(value, '$[5]') FROM json_each(?2)",
    /* The same rows STOREI_INDEX_RUN at a time, ids ?2 .. ?2 + 99, from one
     * multi-row VALUES: 40 % cheaper a point than the recursive query,
     * which is left for the block's last few. */
    [STMT_INDEX_OK_RUN] =
        "INSERT INTO point_index (id, block_id, status) VALUES " ROWS_HUNDRED(INDEX_ROW),
    /* A block's keys (point_once), given before the block so that its
     * trigger need not read them out of the JSON (storei_block_keys). */
    [STMT_KEY_RUN] =
        "INSERT INTO point_once (section_id, ordinal, point_id) VALUES " ROWS_HUNDRED(KEY_ROW),
    [STMT_KEY] = "INSERT INTO point_once (section_id, ordinal, point_id) VALUES (?1, ?2, ?3)",
    [STMT_INDEX_OK_BLOCK] =
        "WITH RECURSIVE ids(id) AS (SELECT ?2 UNION ALL SELECT id + 1 FROM ids WHERE id < ?3)"
        " INSERT INTO point_index (id, block_id, status) SELECT id, ?1, 'ok' FROM ids",
    /* Above every id given before (id_high_water), even to a deleted row. */
    [STMT_NEXT_POINT_ID] =
        "SELECT max((SELECT coalesce(max(last_point_id), 0) FROM point_block),"
        " (SELECT coalesce(max(last_id), 0) FROM id_high_water WHERE kind = 'point')) + 1",
    [STMT_INSERT_SWEEP] =
        "INSERT INTO sweep (script_path, script_text, script_sha256, options_json,"
        " overrides_json, runner_version, git_commit, host, command_line, seed, started_at,"
        " pid, status, name, note, id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
        " 'running', ?13, ?14, max((SELECT coalesce(max(id), 0) FROM sweep),"
        " (SELECT coalesce(max(last_id), 0) FROM id_high_water WHERE kind = 'sweep')) + 1)",
    [STMT_FENCE] = "SELECT owner_epoch, coalesce(pid_host, host), pid, owner_claimed_at"
                   " FROM sweep WHERE id = ?1",
    [STMT_END_SWEEP] = "UPDATE sweep SET status = ?2, ended_at = ?3 WHERE id = ?1",
    [STMT_INSERT_SWEEP_PLUGIN] =
        "INSERT INTO sweep_plugin (sweep_id, plugin, plugin_version, so_path, so_sha256)"
        " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (sweep_id, plugin) DO NOTHING",
    [STMT_INSERT_RUN] =
        "INSERT INTO command_run (sweep_id, point_id, run, warmup, wall_s, user_s, sys_s,"
        " max_rss_kib, voluntary_switches, involuntary_switches, exit_status, run_values)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [STMT_INSERT_SECTION] =
        "INSERT INTO section (sweep_id, ordinal, plugin, title, script_line, point_count, id)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, max((SELECT coalesce(max(id), 0) FROM section),"
        " (SELECT coalesce(max(last_id), 0) FROM id_high_water WHERE kind = 'section')) + 1)",
    [STMT_TABLE_COLUMNS] = "SELECT name FROM pragma_table_info(?1)",
    /* Moves every known column of the plugin past the current ones before
     * the upsert renumbers those, so columns an older version declared (and
     * that still hold old rows) sort after the current ones. */
    [STMT_SHIFT_COLUMNS] = "UPDATE plugin_column SET position = position + ?2 WHERE plugin = ?1",
    [STMT_UPSERT_COLUMN] =
        "INSERT INTO plugin_column (plugin, name, role, type, unit, doc, position)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
        " ON CONFLICT (plugin, name) DO UPDATE SET role = excluded.role,"
        " type = excluded.type, unit = excluded.unit, doc = excluded.doc,"
        " position = excluded.position",
    [STMT_SECTION] = "SELECT plugin, title FROM section WHERE id = ?1",
    [STMT_SECTION_COLUMNS] = "SELECT name, role, type, unit FROM plugin_column WHERE plugin = ?1"
                             " ORDER BY role <> 'param', position, name",
    [STMT_SWEEP_SECTIONS] = "SELECT id FROM section WHERE sweep_id = ?1 ORDER BY ordinal, id",
};

/* --- errors ------------------------------------------------------------- */

int storei_fail_sql(store *s, char **err, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return util_fail(err, "%s: %s: %s", s->path, what, storei_bound_errmsg(&s->bound));
}

void storei_append_note(char **err, const char *note)
{
    if (!err || !*err)
        return;
    char *longer = util_format("%s%s", *err, note);
    if (longer) {
        free(*err);
        *err = longer;
    }
}

/* --- statements ----------------------------------------------------------- */

sqlite3_stmt *storei_stmt(store *s, enum storei_stmt_id id, const char *what, char **err)
{
    if (!s->stmts[id] && sqlite3_prepare_v3(s->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
                                            &s->stmts[id], NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        s->stmts[id] = NULL;
        return NULL;
    }
    return s->stmts[id];
}

int storei_step_done(store *s, sqlite3_stmt *st, const char *what, char **err)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        storei_fail_sql(s, err, "%s", what);
        sqlite3_reset(st);
        return -1;
    }
    sqlite3_reset(st);
    return 0;
}

int storei_run_stmt(store *s, enum storei_stmt_id id, const char *what, char **err)
{
    sqlite3_stmt *st = storei_stmt(s, id, what, err);
    return st ? storei_step_done(s, st, what, err) : -1;
}

void storei_rollback(store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        storei_run_stmt(s, STMT_ROLLBACK, "cannot roll back", NULL);
}

int storei_statement_open(store *s)
{
    for (sqlite3_stmt *st = sqlite3_next_stmt(s->db, NULL); st; st = sqlite3_next_stmt(s->db, st))
        if (sqlite3_stmt_busy(st))
            return 1;
    return 0;
}

int storei_exec(store *s, const char *sql, const char *what, char **err)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    return 0;
}

int storei_collect_ids(store *s, sqlite3_stmt *st, const char *what, int64_t **ids, size_t *count,
                       char **err)
{
    int64_t *list = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t grown_cap = cap ? cap * 2 : 8;
            int64_t *grown = realloc(list, grown_cap * sizeof *grown);
            if (!grown) {
                free(list);
                return util_fail(err, "%s: %s: out of memory", s->path, what);
            }
            list = grown;
            cap = grown_cap;
        }
        list[n++] = sqlite3_column_int64(st, 0);
    }
    if (rc != SQLITE_DONE) {
        free(list);
        return storei_fail_sql(s, err, "%s", what);
    }
    *ids = list;
    *count = n;
    return 0;
}

char *storei_column_strdup(sqlite3_stmt *st, int i, int *oom)
{
    const char *text = (const char *)sqlite3_column_text(st, i);
    if (!text)
        return NULL;
    char *copy = util_strdup(text);
    if (!copy)
        *oom = 1;
    return copy;
}

/* --- building SQL and values ---------------------------------------------- */

/* SQL is built in a strbuf; identifiers are always double-quoted. */
void storei_append_ident(strbuf *b, const char *name)
{
    strbuf_add(b, "\"", 1);
    for (const char *p = name; *p; p++) {
        if (*p == '"')
            strbuf_add(b, "\"\"", 2);
        else
            strbuf_add(b, p, 1);
    }
    strbuf_add(b, "\"", 1);
}

void storei_format_utc(double unix_s, char out[32])
{
    if (!isfinite(unix_s))
        unix_s = 0;
    double whole = floor(unix_s);
    long ms = lround((unix_s - whole) * 1000.0);
    int64_t second = (int64_t)whole;
    if (ms >= 1000) {
        second++;
        ms -= 1000;
    }
    char date[24];
    time_t t = (time_t)second;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        strcpy(date, "1970-01-01T00:00:00");
    int millis = ms < 0 ? 0 : ms > 999 ? 999 : (int)ms;
    snprintf(out, 32, "%s.%03dZ", date, millis);
}

/* Reads column i of the current row as the declared type. The REAL text
 * 'NaN' becomes NaN; anything SQLite holds in another storage class is
 * returned as what it is. Returns 0, or -1 when out of memory. */
static int column_value(sqlite3_stmt *st, int i, runner_type declared, value *out)
{
    /* Numbers through the column's sqlite3_value: one lookup of the column
     * where sqlite3_column_type and _double make two (`runner show` reads
     * millions). The value is read at once, on the statement's thread. */
    sqlite3_value *cell = sqlite3_column_value(st, i);
    switch (sqlite3_value_type(cell)) {
    case SQLITE_NULL: *out = VALUE_NULL; return 0;
    case SQLITE_INTEGER:
        if (declared == RUNNER_BOOLEAN)
            *out = value_boolean(sqlite3_value_int64(cell) != 0);
        else if (declared == RUNNER_REAL)
            *out = value_real(sqlite3_value_double(cell));
        else if (declared == RUNNER_TEXT)
            break;
        else
            *out = value_integer(sqlite3_value_int64(cell));
        return 0;
    case SQLITE_FLOAT:
        if (declared == RUNNER_TEXT)
            break;
        *out = value_real(sqlite3_value_double(cell));
        return 0;
    default: {
        const char *text = (const char *)sqlite3_column_text(st, i);
        if (declared == RUNNER_REAL && text && strcmp(text, "NaN") == 0) {
            *out = value_real(NAN);
            return 0;
        }
        break;
    }
    }
    const char *text = (const char *)sqlite3_column_text(st, i);
    if (!text)
        return -1; /* only a conversion that ran out of memory leaves NULL here */
    *out = value_text(text);
    return out->type == RUNNER_TEXT ? 0 : -1;
}

int storei_column_value(sqlite3_stmt *st, int i, runner_type declared, value *out)
{
    return column_value(st, i, declared, out);
}

/* WAL needs the file writable and two files (-wal, -shm) beside it: say so
 * when SQLite reports a read-only or unopenable file. */
void storei_hint_writable(store *s, char **err)
{
    int code = sqlite3_errcode(s->db) & 0xff;
    if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM)
        storei_append_note(err, " (runner must be able to write the file and create its -wal "
                                "and -shm files in the same directory)");
}

/* Runs a query that returns one integer into *out; 0, or -1 with "<what>:
 * <sqlite message>" in *err. */
int storei_count_query(store *s, const char *sql, const char *what, int64_t *out, char **err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        storei_fail_sql(s, err, "%s", what);
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}
