/* serve_api: the JSON API the dashboard's script reads (docs/serve.md):
 * the sweeps list (filtered, sorted and paged in SQL), one sweep's
 * provenance and sections, and its live progress. Tables, plots and the
 * comparison are in serve_table.c. Each request reads through its own
 * read-only connection; names, tags and notes appear when the catalog has
 * them (sweep.name, sweep.note, sweep_tag), so older files work too. */
#include "serve_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store.h"

/* Sweeps one page lists when the client does not say. */
#define SERVE_API_DEFAULT_PAGE 50

const char *servei_arg(struct MHD_Connection *connection, const char *name)
{
    const char *v = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
    return v && *v ? v : NULL;
}

int64_t servei_arg_int(struct MHD_Connection *connection, const char *name, int64_t min,
                       int64_t max, int64_t fallback)
{
    const char *text = servei_arg(connection, name);
    char *end = NULL;
    long long v = text ? strtoll(text, &end, 10) : 0;
    if (!text || *end || end == text)
        return fallback;
    return v < min ? min : v > max ? max : v;
}

void servei_reply_json(servei_reply *reply, json_t *root)
{
    reply->content_type = "application/json";
    reply->body = root ? json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(root);
    if (!reply->body) {
        servei_reply_error(reply, 500, "out of memory");
        return;
    }
    reply->status = 200;
    reply->size = strlen(reply->body);
}

void servei_reply_error(servei_reply *reply, unsigned status, const char *message)
{
    json_t *root = json_object();
    json_object_set_new(root, "error", value_json_text(message));
    reply->content_type = "application/json";
    reply->status = status;
    reply->body = json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(root);
    if (!reply->body) /* a last resort that needs no memory of its own */
        reply->body = util_strdup("{\"error\":\"out of memory\"}");
    reply->size = reply->body ? strlen(reply->body) : 0;
}

void servei_reply_fail(servei_reply *reply, char *err)
{
    servei_reply_error(reply, 500, err ? err : "out of memory");
    free(err);
}

int servei_section_columns(sqlite3 *db, int64_t section_id, servei_columns *c, servei_reply *reply)
{
    char *err = NULL;
    int found = servei_db_columns(db, section_id, c, &err);
    if (found == 0)
        return 0;
    if (found > 0)
        servei_reply_error(reply, 404, "no such section");
    else
        servei_reply_fail(reply, err);
    return -1;
}

/* --- the sweeps list ----------------------------------------------------- */

/* What the list may be sorted by: the client names one, never SQL. */
static const struct {
    const char *name;
    const char *expression;
} sweep_sorts[] = {
    { "id", "s.id" },
    { "started", "s.started_at" },
    { "script", "s.script_path" },
    { "status", STORE_SWEEP_STATUS_SQL },
    { "name", "NAME" }, /* replaced by the name expression */
    { "duration", "(julianday(coalesce(s.ended_at, 'now')) - julianday(s.started_at))" },
};

/* The filter every list query shares: ?1 a LIKE pattern over name, script
 * and tags (or the id itself), ?2 a status. */
static void append_sweep_filter(strbuf *sql, int has_name, int has_tags)
{
    strbuf_str(sql, " WHERE (?1 IS NULL OR s.script_path LIKE ?1 ESCAPE '\\'"
                    " OR CAST(s.id AS TEXT) = ?3");
    if (has_name)
        strbuf_str(sql, " OR s.name LIKE ?1 ESCAPE '\\'");
    if (has_tags)
        strbuf_str(sql, " OR EXISTS (SELECT 1 FROM sweep_tag AS t WHERE t.sweep_id = s.id"
                        " AND t.tag LIKE ?1 ESCAPE '\\')");
    strbuf_str(sql, ") AND (?2 IS NULL OR " STORE_SWEEP_STATUS_SQL " = ?2)");
}

/* "%text%" with LIKE's wildcards in text escaped; malloc'd. */
static char *like_pattern(const char *text)
{
    strbuf b = { 0 };
    strbuf_str(&b, "%");
    for (const char *p = text; *p; p++) {
        if (*p == '%' || *p == '_' || *p == '\\')
            strbuf_str(&b, "\\");
        strbuf_add(&b, p, 1);
    }
    strbuf_str(&b, "%");
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

static void bind_sweep_filter(sqlite3_stmt *st, const char *pattern, const char *status,
                              const char *q)
{
    sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, status, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, q, -1, SQLITE_STATIC);
}

static int64_t count_sweeps(sqlite3 *db, int has_name, int has_tags, const char *pattern,
                            const char *status, const char *q, char **err)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT count(*) FROM sweep AS s");
    append_sweep_filter(&sql, has_name, has_tags);
    sqlite3_stmt *st = sql.oom ? NULL : servei_db_prepare(db, sql.data, "cannot count sweeps", err);
    free(sql.data);
    if (!st)
        return -1;
    bind_sweep_filter(st, pattern, status, q);
    int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    if (n < 0)
        util_fail(err, "cannot count sweeps: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return n;
}

/* The page's query: the page of ids is chosen first (a CTE SQLite
 * materializes), then only its rows get their point counts and tags. */
static char *sweeps_page_sql(int has_name, int has_tags, const char *sort_expression,
                             int descending)
{
    const char *dir = descending ? " DESC" : "";
    strbuf sql = { 0 };
    strbuf_str(&sql, "WITH page AS MATERIALIZED (SELECT s.id AS id, ");
    strbuf_str(&sql, sort_expression);
    strbuf_str(&sql, " AS sort_key FROM sweep AS s");
    append_sweep_filter(&sql, has_name, has_tags);
    strbuf_printf(&sql, " ORDER BY sort_key%s, s.id%s LIMIT ?4 OFFSET ?5)", dir, dir);
    strbuf_printf(&sql,
                  " SELECT s.id, s.script_path, " STORE_SWEEP_STATUS_SQL
                  ", s.started_at, s.ended_at,"
                  " (julianday(coalesce(s.ended_at, 'now')) - julianday(s.started_at)) * 86400,"
                  " %s, %s, %s,"
                  " (SELECT coalesce(sum(b.ok_count), 0) FROM section AS c"
                  "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id),"
                  " (SELECT coalesce(sum(b.point_count - b.ok_count), 0) FROM section AS c"
                  "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id),"
                  " (SELECT coalesce(sum(c.point_count), 0) FROM section AS c"
                  "   WHERE c.sweep_id = s.id)"
                  " FROM page JOIN sweep AS s ON s.id = page.id"
                  " ORDER BY page.sort_key%s, s.id%s",
                  has_name ? "s.name" : "NULL", has_name ? "s.note" : "NULL",
                  has_tags ? "(SELECT json_group_array(tag) FROM (SELECT tag FROM sweep_tag"
                             " WHERE sweep_id = s.id ORDER BY tag))"
                           : "'[]'",
                  dir, dir);
    if (sql.oom) {
        free(sql.data);
        return NULL;
    }
    return sql.data;
}

static json_t *sweep_list_row(sqlite3_stmt *st)
{
    json_t *row = json_object();
    static const char *const names[] = { "id",       "script",     "status", "started_at",
                                         "ended_at", "duration_s", "name",   "note" };
    for (int i = 0; i < 8; i++)
        json_object_set_new(row, names[i], servei_db_cell(st, i));
    const char *tags = (const char *)sqlite3_column_text(st, 8);
    json_t *tag_list = tags ? json_loads(tags, 0, NULL) : NULL;
    json_object_set_new(row, "tags", tag_list ? tag_list : json_array());
    json_object_set_new(row, "points_ok", json_integer(sqlite3_column_int64(st, 9)));
    json_object_set_new(row, "points_failed", json_integer(sqlite3_column_int64(st, 10)));
    json_object_set_new(row, "points_planned", json_integer(sqlite3_column_int64(st, 11)));
    return row;
}

static void api_sweeps(sqlite3 *db, struct MHD_Connection *connection, servei_reply *reply)
{
    int has_name =
        servei_db_has_column(db, "sweep", "name") && servei_db_has_column(db, "sweep", "note");
    int has_tags = servei_db_has_table(db, "sweep_tag");
    const char *sort = servei_arg(connection, "sort");
    const char *expression = NULL;
    for (size_t i = 0; i < sizeof sweep_sorts / sizeof sweep_sorts[0] && !expression; i++)
        if (strcmp(sort ? sort : "id", sweep_sorts[i].name) == 0)
            expression = sweep_sorts[i].expression;
    if (!expression || (strcmp(expression, "NAME") == 0 && !has_name)) {
        servei_reply_error(reply, 400,
                           "sort: expected id, started, script, status, name or "
                           "duration");
        return;
    }
    if (strcmp(expression, "NAME") == 0)
        expression = "s.name";
    const char *order = servei_arg(connection, "order");
    int descending = order ? strcmp(order, "desc") == 0 : 1;
    int64_t limit =
        servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS, SERVE_API_DEFAULT_PAGE);
    int64_t offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0);
    const char *q = servei_arg(connection, "q"), *status = servei_arg(connection, "status");
    char *pattern = q ? like_pattern(q) : NULL, *err = NULL;
    char *sql = sweeps_page_sql(has_name, has_tags, expression, descending);
    int64_t total = count_sweeps(db, has_name, has_tags, pattern, status, q, &err);
    sqlite3_stmt *st =
        total < 0 || !sql ? NULL : servei_db_prepare(db, sql, "cannot list sweeps", &err);
    json_t *rows = json_array();
    int rc = SQLITE_ERROR;
    if (st) {
        bind_sweep_filter(st, pattern, status, q);
        sqlite3_bind_int64(st, 4, limit);
        sqlite3_bind_int64(st, 5, offset);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            json_array_append_new(rows, sweep_list_row(st));
        if (rc != SQLITE_DONE)
            util_fail(&err, "cannot list sweeps: %s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    free(sql);
    free(pattern);
    if (rc != SQLITE_DONE) {
        json_decref(rows);
        servei_reply_fail(reply, err);
        return;
    }
    servei_reply_json(reply, json_pack("{s:I,s:I,s:I,s:o,s:b,s:b}", "total", (json_int_t)total,
                                       "offset", (json_int_t)offset, "limit", (json_int_t)limit,
                                       "rows", rows, "has_names", has_name, "has_tags", has_tags));
}

/* --- one sweep ------------------------------------------------------------ */

/* The sweep row's columns as an object (every column the catalog has, so
 * fields a newer schema adds show up too); NULL with *err, or json null
 * when there is no such sweep. */
static json_t *sweep_record(sqlite3 *db, int64_t sweep_id, char **err)
{
    sqlite3_stmt *st =
        servei_db_prepare(db, "SELECT * FROM sweep WHERE id = ?1", "cannot read the sweep", err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc = sqlite3_step(st);
    json_t *out = rc == SQLITE_ROW ? json_object() : json_null();
    for (int i = 0; rc == SQLITE_ROW && i < sqlite3_column_count(st); i++)
        json_object_set_new(out, sqlite3_column_name(st, i), servei_db_cell(st, i));
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        util_fail(err, "cannot read the sweep: %s", sqlite3_errmsg(db));
        json_decref(out);
        out = NULL;
    }
    sqlite3_finalize(st);
    return out;
}

/* Rows of a fixed query bound to one id, as objects by column name. */
static json_t *query_objects(sqlite3 *db, const char *sql, int64_t id, const char *what, char **err)
{
    sqlite3_stmt *st = servei_db_prepare(db, sql, what, err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    json_t *rows = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *row = json_object();
        for (int i = 0; i < sqlite3_column_count(st); i++)
            json_object_set_new(row, sqlite3_column_name(st, i), servei_db_cell(st, i));
        json_array_append_new(rows, row);
    }
    if (rc != SQLITE_DONE) {
        util_fail(err, "%s: %s", what, sqlite3_errmsg(db));
        json_decref(rows);
        rows = NULL;
    }
    sqlite3_finalize(st);
    return rows;
}

/* Each section's columns (name, unit, type, role), from the catalog. */
static int add_section_columns(sqlite3 *db, json_t *sections, char **err)
{
    size_t i;
    json_t *section;
    json_array_foreach(sections, i, section)
    {
        servei_columns c;
        int64_t id = json_integer_value(json_object_get(section, "id"));
        if (servei_db_columns(db, id, &c, err) < 0)
            return -1;
        json_t *columns = json_array();
        for (size_t k = 0; k < c.count; k++)
            json_array_append_new(columns,
                                  json_pack("{s:o,s:o,s:s,s:b}", "name", value_json_text(c.name[k]),
                                            "unit", value_json_text(c.unit[k]), "type", c.type[k],
                                            "param", c.is_param[k]));
        json_object_set_new(section, "columns", columns);
        servei_columns_clear(&c);
    }
    return 0;
}

static void api_sweep(sqlite3 *db, int64_t sweep_id, servei_reply *reply)
{
    char *err = NULL;
    json_t *sweep = sweep_record(db, sweep_id, &err);
    if (!sweep) {
        servei_reply_fail(reply, err);
        return;
    }
    if (json_is_null(sweep)) {
        servei_reply_error(reply, 404, "no such sweep");
        return;
    }
    json_t *plugins =
        query_objects(db,
                      "SELECT plugin, plugin_version, so_path, so_sha256 FROM sweep_plugin"
                      " WHERE sweep_id = ?1 ORDER BY plugin",
                      sweep_id, "cannot read the sweep's plugins", &err);
    json_t *sections =
        plugins ? query_objects(
                      db,
                      "SELECT c.id, c.ordinal, c.plugin, c.title, c.script_line, c.point_count,"
                      " coalesce(sum(b.point_count), 0) AS points_done,"
                      " coalesce(sum(b.point_count - b.ok_count), 0) AS points_failed"
                      " FROM section AS c LEFT JOIN point_block AS b ON b.section_id = c.id"
                      " WHERE c.sweep_id = ?1 GROUP BY c.id ORDER BY c.ordinal, c.id",
                      sweep_id, "cannot read the sweep's sections", &err)
                : NULL;
    json_t *tags = NULL;
    if (sections && servei_db_has_table(db, "sweep_tag"))
        tags = query_objects(db, "SELECT tag FROM sweep_tag WHERE sweep_id = ?1 ORDER BY tag",
                             sweep_id, "cannot read the sweep's tags", &err);
    if (!sections || add_section_columns(db, sections, &err) != 0 ||
        (servei_db_has_table(db, "sweep_tag") && !tags)) {
        json_decref(sweep);
        json_decref(plugins);
        json_decref(sections);
        servei_reply_fail(reply, err);
        return;
    }
    json_t *tag_names = json_array();
    size_t i;
    json_t *tag;
    json_array_foreach(tags, i, tag) json_array_append(tag_names, json_object_get(tag, "tag"));
    json_decref(tags);
    json_object_set_new(sweep, "tags", tag_names);
    servei_reply_json(reply, json_pack("{s:o,s:o,s:o}", "sweep", sweep, "plugins", plugins,
                                       "sections", sections));
}

/* Points done and failed, the rate since the start, and an ETA from the
 * sections begun so far (a script's later sections are not known yet). */
static void api_progress(sqlite3 *db, int64_t sweep_id, servei_reply *reply)
{
    char *err = NULL;
    sqlite3_stmt *st = servei_db_prepare(
        db,
        "SELECT " STORE_SWEEP_STATUS_SQL ", s.started_at, s.ended_at,"
        " (julianday(coalesce(s.ended_at, 'now')) - julianday(s.started_at)) * 86400,"
        " (SELECT coalesce(sum(point_count), 0) FROM section WHERE sweep_id = s.id),"
        " (SELECT count(*) FROM section WHERE sweep_id = s.id),"
        " (SELECT coalesce(sum(b.point_count), 0) FROM section AS c"
        "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id),"
        " (SELECT coalesce(sum(b.point_count - b.ok_count), 0) FROM section AS c"
        "   JOIN point_block AS b ON b.section_id = c.id WHERE c.sweep_id = s.id)"
        " FROM sweep AS s WHERE s.id = ?1",
        "cannot read the sweep's progress", &err);
    if (!st) {
        servei_reply_fail(reply, err);
        return;
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            servei_reply_error(reply, 404, "no such sweep");
        else
            servei_reply_fail(
                reply, util_format("cannot read the sweep's progress: %s", sqlite3_errmsg(db)));
        sqlite3_finalize(st);
        return;
    }
    double elapsed_s = sqlite3_column_double(st, 3);
    int64_t planned = sqlite3_column_int64(st, 4), done = sqlite3_column_int64(st, 6);
    double rate = elapsed_s > 0 ? done / elapsed_s : 0;
    int running = strcmp((const char *)sqlite3_column_text(st, 0), "running") == 0;
    json_t *eta =
        running && rate > 0 && planned >= done ? json_real((planned - done) / rate) : json_null();
    json_t *root =
        json_pack("{s:o,s:o,s:o,s:f,s:I,s:I,s:I,s:I,s:f,s:o,s:b}", "status", servei_db_cell(st, 0),
                  "started_at", servei_db_cell(st, 1), "ended_at", servei_db_cell(st, 2),
                  "elapsed_s", elapsed_s, "points_planned", (json_int_t)planned, "sections",
                  (json_int_t)sqlite3_column_int64(st, 5), "points_done", (json_int_t)done,
                  "points_failed", (json_int_t)sqlite3_column_int64(st, 7), "points_per_s", rate,
                  "eta_s", eta, "running", running);
    sqlite3_finalize(st);
    servei_reply_json(reply, root);
}

/* "sweep/12" or "sweep/12/progress": the id, and the rest in *tail. */
static int64_t path_id(const char *path, const char *prefix, const char **tail)
{
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) != 0 || path[n] < '1' || path[n] > '9')
        return 0;
    char *end = NULL;
    long long id = strtoll(path + n, &end, 10);
    *tail = end;
    return id > 0 && id < INT64_MAX ? id : 0;
}

void servei_api(const servei_server *server, struct MHD_Connection *connection, const char *path,
                servei_reply *reply)
{
    char *err = NULL;
    sqlite3 *db = servei_db_open(server->db_path, &err);
    if (!db) {
        servei_reply_fail(reply, err);
        return;
    }
    const char *tail = "";
    int64_t id;
    if (strcmp(path, "sweeps") == 0)
        api_sweeps(db, connection, reply);
    else if (strcmp(path, "compare") == 0)
        servei_compare(db, connection, reply);
    else if ((id = path_id(path, "sweep/", &tail)) && strcmp(tail, "") == 0)
        api_sweep(db, id, reply);
    else if (id && strcmp(tail, "/progress") == 0)
        api_progress(db, id, reply);
    else if ((id = path_id(path, "section/", &tail)) && strcmp(tail, "/rows") == 0)
        servei_rows(db, connection, id, reply);
    else if (id && strcmp(tail, "/plot") == 0)
        servei_plot(db, connection, id, reply);
    else
        servei_reply_error(reply, 404, "no such API path");
    sqlite3_close(db);
}
