/* store_write.c: writing. Sweep and section rows, the plugins' result
 * tables (created and widened from their metadata), and points in batched
 * transactions: each batch's points of one section go in as one point_block
 * row (a JSON array) beside their result rows, so a point and its rows are
 * stored whole or not at all. */
#include "base/bug.h"
#include "base/point_run.h"
#include "store_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch commits after this many points or this much time, whichever comes
 * first: large enough to amortise the commit, small enough that a reader (or
 * a crash) sees recent points. */
#define BATCH_MAX_POINTS 1000
#define BATCH_MAX_SECONDS 0.2

static const char *sql_type(runner_type type)
{
    switch (type) {
    case RUNNER_INTEGER: return "INTEGER";
    case RUNNER_REAL: return "REAL";
    case RUNNER_TEXT: return "TEXT";
    case RUNNER_BOOLEAN: return "INTEGER"; /* 0 or 1; plugin_column says boolean */
    default: return NULL;
    }
}

/* NaN goes in as the text 'NaN' (SQLite would turn a NaN real into NULL);
 * +-inf stay reals. */
static int bind_value(sqlite3_stmt *st, int index, const value *v)
{
    switch (v->type) {
    case RUNNER_INTEGER: return sqlite3_bind_int64(st, index, v->as.integer);
    case RUNNER_REAL:
        if (isnan(v->as.real))
            return sqlite3_bind_text(st, index, "NaN", 3, SQLITE_STATIC);
        return sqlite3_bind_double(st, index, v->as.real);
    case RUNNER_TEXT: return storei_bind_text(st, index, v->as.text);
    case RUNNER_BOOLEAN: return sqlite3_bind_int(st, index, v->as.boolean != 0);
    default: return sqlite3_bind_null(st, index);
    }
}

/* --- sweeps and sections -------------------------------------------------- */

int store_sweep_begin(store *s, const store_sweep_info *info, int64_t *sweep_id, char **err)
{
    if (storei_batch_commit(s, err) != 0)
        return -1;
    const char *what = "cannot record the sweep";
    sqlite3_stmt *st = storei_stmt(s, STMT_INSERT_SWEEP, what, err);
    if (!st)
        return -1;
    char started[32];
    storei_format_utc(info->started_at, started);
    int64_t seed;
    memcpy(&seed, &info->seed, sizeof seed); /* stored as signed 64-bit */
    storei_bind_text(st, 1, info->script_path);
    storei_bind_text(st, 2, info->script_text);
    storei_bind_text(st, 3, info->script_sha256);
    storei_bind_text(st, 4, info->options_json ? info->options_json : "{}");
    storei_bind_text(st, 5, info->overrides_json ? info->overrides_json : "{}");
    storei_bind_text(st, 6, info->runner_version);
    storei_bind_text(st, 7, info->git_commit);
    storei_bind_text(st, 8, info->host);
    storei_bind_text(st, 9, info->command_line);
    sqlite3_bind_int64(st, 10, seed);
    storei_bind_text(st, 11, started);
    if (info->pid > 0)
        sqlite3_bind_int64(st, 12, info->pid);
    else
        sqlite3_bind_null(st, 12);
    storei_bind_text(st, 13, info->name);
    storei_bind_text(st, 14, info->note);
    /* Autocommit: the sweep is visible to other readers at once. */
    if (storei_step_done(s, st, what, err) != 0)
        return -1;
    *sweep_id = sqlite3_last_insert_rowid(s->db);
    if (info->tag_count > 0 &&
        store_sweep_retag(s, *sweep_id, info->tags, info->tag_count, NULL, 0, err) != 0)
        return -1;
    return 0;
}

int store_sweep_plugin(store *s, int64_t sweep_id, const char *name, const char *version,
                       const char *so_path, const char *so_sha256, char **err)
{
    char what[160];
    snprintf(what, sizeof what, "cannot record plugin \"%s\" of sweep %" PRId64, name, sweep_id);
    sqlite3_stmt *st = storei_stmt(s, STMT_INSERT_SWEEP_PLUGIN, what, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sweep_id);
    storei_bind_text(st, 2, name);
    storei_bind_text(st, 3, version);
    storei_bind_text(st, 4, so_path);
    storei_bind_text(st, 5, so_sha256);
    return storei_step_done(s, st, what, err);
}

int store_sweep_end(store *s, int64_t sweep_id, const char *status, double ended_at, char **err)
{
    return store_sweep_end_with_outbox(s, sweep_id, status, ended_at, NULL, err);
}

int store_section_begin(store *s, int64_t sweep_id, int ordinal, const char *plugin,
                        const char *title, int script_line, int64_t point_count,
                        int64_t *section_id, char **err)
{
    char what[160];
    snprintf(what, sizeof what, "cannot record section %d (\"%s\") of sweep %" PRId64, ordinal,
             plugin, sweep_id);
    sqlite3_stmt *st = storei_stmt(s, STMT_INSERT_SECTION, what, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int(st, 2, ordinal);
    storei_bind_text(st, 3, plugin);
    storei_bind_text(st, 4, title);
    if (script_line > 0)
        sqlite3_bind_int(st, 5, script_line);
    else
        sqlite3_bind_null(st, 5); /* unknown line */
    sqlite3_bind_int64(st, 6, point_count);
    if (storei_step_done(s, st, what, err) != 0)
        return -1;
    *section_id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

/* --- result tables ------------------------------------------------------ */

/* Checks what the SQL below relies on; the loader has normally rejected a
 * bad descriptor long before. */
static int check_plugin(store *s, const runner_plugin *plugin, char **err)
{
    const char *name = plugin->name;
    if (!name || !*name || store_reserved_name(name))
        return util_fail(err,
                         "%s: cannot create a result table named \"%s\": the name is "
                         "reserved or empty",
                         s->path, name ? name : "(null)");
    uint32_t total = plugin->param_count + plugin->column_count;
    for (uint32_t i = 0; i < total; i++) {
        int is_param = i < plugin->param_count;
        const char *col = storei_column_name(plugin, i);
        if (!col || !*col || store_reserved_name(col) || !sql_type(storei_column_type(plugin, i)))
            return util_fail(err,
                             "%s: plugin \"%s\": %s \"%s\" has a reserved or empty name "
                             "or an unknown type",
                             s->path, name, is_param ? "parameter" : "column",
                             col ? col : "(null)");
        for (uint32_t j = 0; j < i; j++) {
            if (storei_casecmp(col, storei_column_name(plugin, j)) == 0)
                return util_fail(err, "%s: plugin \"%s\": the name \"%s\" is declared twice",
                                 s->path, name, col);
        }
    }
    return 0;
}

/* The parameter's default as an SQL literal (sqlite3_free it), or NULL. */
static char *default_literal(const runner_param *p)
{
    switch (p->type) {
    case RUNNER_INTEGER: return sqlite3_mprintf("%lld", (long long)p->default_number);
    case RUNNER_REAL: return sqlite3_mprintf("%!.17g", p->default_number);
    case RUNNER_BOOLEAN: return sqlite3_mprintf("%d", p->default_number != 0);
    case RUNNER_TEXT: return sqlite3_mprintf("%Q", p->default_text);
    }
    return NULL;
}

/* The column names a table has (none when it does not exist); owned. */
typedef struct name_list {
    char **names;
    size_t count;
} name_list;

static void name_list_free(name_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->names[i]);
    free(list->names);
    list->names = NULL;
    list->count = 0;
}

static int name_in(const char *name, const name_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        if (storei_casecmp(name, list->names[i]) == 0)
            return 1;
    return 0;
}

/* Reads the names of the columns table `name` has into *out. */
static int read_table_columns(store *s, const char *name, const char *what, name_list *out,
                              char **err)
{
    sqlite3_stmt *st = storei_stmt(s, STMT_TABLE_COLUMNS, what, err);
    if (!st)
        return -1;
    storei_bind_text(st, 1, name);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char **grown = realloc(out->names, (out->count + 1) * sizeof *grown);
        if (!grown ||
            !(grown[out->count] = util_strdup((const char *)sqlite3_column_text(st, 0)))) {
            if (grown)
                out->names = grown;
            sqlite3_reset(st);
            return util_fail(err, "%s: %s: out of memory", s->path, what);
        }
        out->names = grown;
        out->count++;
    }
    if (rc != SQLITE_DONE) {
        storei_fail_sql(s, err, "%s", what);
        sqlite3_reset(st);
        return -1;
    }
    sqlite3_reset(st);
    return 0;
}

/* Appends "<name> <type>" of the plugin's column i (parameters first). */
static void append_column_def(strbuf *sql, const runner_plugin *plugin, uint32_t i)
{
    storei_append_ident(sql, storei_column_name(plugin, i));
    strbuf_str(sql, " ");
    strbuf_str(sql, sql_type(storei_column_type(plugin, i)));
}

static void append_create_table(strbuf *sql, const runner_plugin *plugin)
{
    uint32_t total = plugin->param_count + plugin->column_count;
    strbuf_str(sql, "CREATE TABLE ");
    storei_append_ident(sql, plugin->name);
    strbuf_str(sql, " (\"row_id\" INTEGER PRIMARY KEY, \"sweep_id\" INTEGER NOT NULL, "
                    "\"section_id\" INTEGER NOT NULL, \"point_id\" INTEGER NOT NULL");
    for (uint32_t i = 0; i < total; i++) {
        strbuf_str(sql, ", ");
        append_column_def(sql, plugin, i);
    }
    strbuf_str(sql, ");\n");
}

/* Appends an ALTER TABLE for each column the existing table lacks; refuses
 * a table of that name that is not a runner result table. */
static int append_add_columns(store *s, strbuf *sql, const runner_plugin *plugin,
                              const name_list *existing, const char *what, char **err)
{
    for (size_t i = 0; i < STOREI_FIXED_COLUMNS; i++)
        if (!name_in(storei_fixed_columns[i], existing))
            return util_fail(err,
                             "%s: %s: a table of that name exists but is not a runner "
                             "result table (no column \"%s\")",
                             s->path, what, storei_fixed_columns[i]);
    uint32_t total = plugin->param_count + plugin->column_count;
    for (uint32_t i = 0; i < total; i++) {
        if (name_in(storei_column_name(plugin, i), existing))
            continue;
        strbuf_str(sql, "ALTER TABLE ");
        storei_append_ident(sql, plugin->name);
        strbuf_str(sql, " ADD COLUMN ");
        append_column_def(sql, plugin, i);
        if (i < plugin->param_count) {
            /* Rows stored before the parameter existed ran with what is
             * now its default: say so instead of NULL. */
            char *literal = default_literal(&plugin->params[i]);
            if (literal) {
                strbuf_str(sql, " DEFAULT ");
                strbuf_str(sql, literal);
                sqlite3_free(literal);
            }
        }
        strbuf_str(sql, ";\n");
    }
    return 0;
}

/* One index serves every lookup runner and people make (a sweep, a section
 * of it, a point of that), and since all three only grow while a sweep
 * runs, inserting into it is an append, not a random write. */
static void append_index(strbuf *sql, const char *name)
{
    char index_name[256];
    snprintf(index_name, sizeof index_name, "%s_by_sweep_section_point", name);
    strbuf_str(sql, "CREATE INDEX IF NOT EXISTS ");
    storei_append_ident(sql, index_name);
    strbuf_str(sql, " ON ");
    storei_append_ident(sql, name);
    strbuf_str(sql, " (\"sweep_id\", \"section_id\", \"point_id\");\n");
}

/* Creates the result table or adds the columns it lacks, and its index. */
static int create_or_widen_table(store *s, const runner_plugin *plugin, const char *what,
                                 char **err)
{
    name_list existing = { 0 };
    strbuf sql = { 0 };
    int rc = -1;
    if (read_table_columns(s, plugin->name, what, &existing, err) != 0)
        goto done;
    if (existing.count == 0)
        append_create_table(&sql, plugin);
    else if (append_add_columns(s, &sql, plugin, &existing, what, err) != 0)
        goto done;
    append_index(&sql, plugin->name);
    if (sql.oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_exec(s->db, sql.data, NULL, NULL, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "%s", what);
    else
        rc = 0;
done:
    name_list_free(&existing);
    free(sql.data);
    return rc;
}

/* Records the plugin's columns (role, type, unit, doc, position) in
 * plugin_column. */
static int record_columns(store *s, const runner_plugin *plugin, const char *what, char **err)
{
    uint32_t total = plugin->param_count + plugin->column_count;
    sqlite3_stmt *st = storei_stmt(s, STMT_SHIFT_COLUMNS, what, err);
    if (!st)
        return -1;
    storei_bind_text(st, 1, plugin->name);
    sqlite3_bind_int64(st, 2, (int64_t)total);
    if (storei_step_done(s, st, what, err) != 0)
        return -1;
    if (!(st = storei_stmt(s, STMT_UPSERT_COLUMN, what, err)))
        return -1;
    for (uint32_t i = 0; i < total; i++) {
        int is_param = i < plugin->param_count;
        uint32_t position = is_param ? i : i - plugin->param_count;
        const char *unit = is_param ? plugin->params[i].unit : plugin->columns[position].unit;
        const char *doc = is_param ? plugin->params[i].doc : plugin->columns[position].doc;
        storei_bind_text(st, 1, plugin->name);
        storei_bind_text(st, 2, storei_column_name(plugin, i));
        storei_bind_text(st, 3, is_param ? "param" : "output");
        storei_bind_text(st, 4, value_type_name(storei_column_type(plugin, i)));
        storei_bind_text(st, 5, unit ? unit : "");
        storei_bind_text(st, 6, doc ? doc : "");
        sqlite3_bind_int64(st, 7, position);
        if (storei_step_done(s, st, what, err) != 0)
            return -1;
    }
    return 0;
}

/* Prepares the plugin's INSERT. It names its columns, so their order in
 * the table (which ALTER TABLE may have changed) does not matter. */
static int prepare_insert(store *s, const runner_plugin *plugin, const char *what,
                          sqlite3_stmt **insert, char **err)
{
    uint32_t total = plugin->param_count + plugin->column_count;
    strbuf sql = { 0 };
    strbuf_str(&sql, "INSERT INTO ");
    storei_append_ident(&sql, plugin->name);
    strbuf_str(&sql, " (\"sweep_id\", \"section_id\", \"point_id\"");
    for (uint32_t i = 0; i < total; i++) {
        strbuf_str(&sql, ", ");
        storei_append_ident(&sql, storei_column_name(plugin, i));
    }
    strbuf_str(&sql, ") VALUES (?, ?, ?");
    for (uint32_t i = 0; i < total; i++)
        strbuf_str(&sql, ", ?");
    strbuf_str(&sql, ")");
    int rc = 0;
    if (sql.oom)
        rc = util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_prepare_v3(s->db, sql.data, -1, SQLITE_PREPARE_PERSISTENT, insert, NULL) !=
             SQLITE_OK)
        rc = storei_fail_sql(s, err, "%s", what);
    free(sql.data);
    return rc;
}

/* Keeps insert (taking it) as the plugin's cached INSERT, replacing the
 * one a previous store_prepare_plugin made for the same name. */
static int cache_insert(store *s, const runner_plugin *plugin, sqlite3_stmt *insert,
                        const char *what, char **err)
{
    size_t slot = s->plugin_count;
    for (size_t i = 0; i < s->plugin_count; i++)
        if (strcmp(s->plugins[i].name, plugin->name) == 0)
            slot = i;
    if (slot == s->plugin_count) {
        storei_plugin_entry *grown = realloc(s->plugins, (s->plugin_count + 1) * sizeof *grown);
        char *copy = util_strdup(plugin->name);
        if (grown)
            s->plugins = grown;
        if (!grown || !copy) {
            free(copy);
            sqlite3_finalize(insert);
            return util_fail(err, "%s: %s: out of memory", s->path, what);
        }
        s->plugins[slot] = (storei_plugin_entry){ .name = copy };
        s->plugin_count++;
    }
    storei_plugin_entry *e = &s->plugins[slot];
    sqlite3_finalize(e->insert);
    sqlite3_finalize(e->copy);
    e->insert = insert;
    e->copy = NULL;
    e->plugin = plugin;
    e->param_count = plugin->param_count;
    e->column_count = plugin->column_count;
    return 0;
}

/* Creates or widens the table, records metadata and caches the INSERT. The
 * DDL and metadata go in one transaction; a pending batch is committed first. */
int store_prepare_plugin(store *s, const runner_plugin *plugin, char **err)
{
    if (check_plugin(s, plugin, err) != 0)
        return -1;
    if (storei_batch_commit(s, err) != 0)
        return -1;
    char what[160];
    snprintf(what, sizeof what, "cannot prepare result table \"%s\"", plugin->name);
    if (storei_run_stmt(s, STMT_BEGIN, what, err) != 0)
        return -1;
    if (create_or_widen_table(s, plugin, what, err) != 0 ||
        record_columns(s, plugin, what, err) != 0 ||
        storei_run_stmt(s, STMT_COMMIT, what, err) != 0) {
        storei_rollback(s);
        return -1;
    }
    sqlite3_stmt *insert = NULL;
    if (prepare_insert(s, plugin, what, &insert, err) != 0)
        return -1;
    return cache_insert(s, plugin, insert, what, err);
}

static storei_plugin_entry *find_plugin(store *s, const runner_plugin *plugin)
{
    if (s->last_plugin < s->plugin_count) {
        storei_plugin_entry *e = &s->plugins[s->last_plugin];
        if (e->plugin == plugin && e->param_count == plugin->param_count &&
            e->column_count == plugin->column_count)
            return e;
    }
    for (size_t i = 0; i < s->plugin_count; i++) {
        storei_plugin_entry *e = &s->plugins[i];
        if (strcmp(e->name, plugin->name) == 0 && e->param_count == plugin->param_count &&
            e->column_count == plugin->column_count) {
            s->last_plugin = i;
            return e;
        }
    }
    return NULL;
}

/* --- points ------------------------------------------------------------- */

/* Appends v in decimal: printf costs more than the rest of a point's JSON. */
static void sb_int64(strbuf *b, int64_t v)
{
    char digits[24], *p = digits + sizeof digits;
    uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (v < 0)
        *--p = '-';
    strbuf_add(b, p, (size_t)(digits + sizeof digits - p));
}

/* Appends text as a JSON string (control characters escaped). */
static void sb_json_string(strbuf *b, const char *text)
{
    strbuf_add(b, "\"", 1);
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            char escaped[2] = { '\\', (char)c };
            strbuf_add(b, escaped, 2);
        } else if (c < 0x20) {
            char escaped[8];
            snprintf(escaped, sizeof escaped, "\\u%04x", c);
            strbuf_add(b, escaped, 6);
        } else {
            strbuf_add(b, p, 1);
        }
    }
    strbuf_add(b, "\"", 1);
}

/* Scans one member of a flat JSON object ("key":value, where value is a
 * string or a bare literal: canonical parameters hold nothing else) at p.
 * Sets the key (with its quotes) and the value; returns the text after the
 * value, or NULL when p is not such a member. */
static const char *json_member(const char *p, const char **key, size_t *key_len, const char **value,
                               size_t *value_len)
{
    const char *q;
    for (int part = 0; part < 2; part++) {
        q = p;
        if (*q == '"') {
            for (q++; *q != '"'; q++) {
                if (*q == '\\' && q[1])
                    q++;
                if (!*q)
                    return NULL;
            }
            q++;
        } else {
            while (*q && *q != ',' && *q != '}' && *q != ':')
                q++;
        }
        if (part == 0) {
            if (*p != '"' || *q != ':')
                return NULL;
            *key = p, *key_len = (size_t)(q - p);
            p = q + 1;
        } else {
            if (q == p || (*q != ',' && *q != '}'))
                return NULL;
            *value = p, *value_len = (size_t)(q - p);
        }
    }
    return q;
}

/* Appends (when b is not NULL) the members of params whose values differ
 * from base's: the block keeps its first point's parameters once
 * (params_base) and each point only what changed, which the view puts back
 * with json_patch. Returns -1, appending nothing, when the two do not have
 * the same keys in the same order: json_patch could not give params back. */
int storei_params_diff(strbuf *b, const char *base, const char *params)
{
    size_t start = b ? b->len : 0;
    int first = 1;
    if (b)
        strbuf_add(b, "{", 1);
    const char *p = params + (*params == '{'), *q = base + (*base == '{');
    if (*params != '{' || *base != '{')
        goto mismatch;
    while (*p != '}') {
        const char *pk, *pv, *qk, *qv;
        size_t pk_len, pv_len, qk_len, qv_len;
        p = json_member(p, &pk, &pk_len, &pv, &pv_len);
        q = json_member(q, &qk, &qk_len, &qv, &qv_len);
        if (!p || !q || pk_len != qk_len || memcmp(pk, qk, pk_len) != 0 || *p != *q)
            goto mismatch;
        if (b && (pv_len != qv_len || memcmp(pv, qv, pv_len) != 0)) {
            if (!first)
                strbuf_add(b, ",", 1);
            first = 0;
            strbuf_add(b, pk, pk_len + 1 + pv_len); /* "key":value */
        }
        p += *p == ',', q += *q == ',';
    }
    if (*q != '}' || p[1] != '\0' || q[1] != '\0')
        goto mismatch;
    if (b)
        strbuf_add(b, "}", 1);
    return 0;
mismatch:
    if (b && !b->oom) {
        b->len = start;
        b->data[start] = '\0';
    }
    return -1;
}

/* Appends one point to the open block, in schema.sql's element order:
 * [id, ordinal, params, identity, seed, status, error, started_at_ms,
 *  duration_ns, row_count], then reused_from only for a reused point. */
static void block_append(store *s, const store_point *point, int64_t point_id)
{
    strbuf *b = &s->block;
    /* Its ordinal, for its key (storei_block_keys). Out of memory, the block
     * goes on being built and storei_block_write reports it. */
    if ((size_t)s->block_points >= s->block_ordinals_cap) {
        size_t cap = s->block_ordinals_cap ? 2 * s->block_ordinals_cap : 64;
        int64_t *grown = realloc(s->block_ordinals, cap * sizeof *grown);
        if (grown) {
            s->block_ordinals = grown;
            s->block_ordinals_cap = cap;
        }
    }
    if ((size_t)s->block_points < s->block_ordinals_cap)
        s->block_ordinals[s->block_points] = point->ordinal;
    else
        b->oom = 1;
    if (!s->block_points) {
        free(s->block_params_base);
        s->block_params_base = util_strdup(point->params_json);
        if (!s->block_params_base)
            b->oom = 1;
        s->block_sweep_id = point->sweep_id;
        s->block_section_id = point->section_id;
        s->block_first_id = point_id;
        strbuf_add(b, "[[", 2);
    } else {
        strbuf_add(b, ",[", 2);
    }
    int64_t seed;
    memcpy(&seed, &point->seed, sizeof seed); /* stored as signed 64-bit */
    /* Integers: exact, and much cheaper to print than doubles. */
    double started_ms = floor(point->started_at * 1000.0 + 0.5);
    double duration_ns = floor(point->duration_s * 1e9 + 0.5);
    sb_int64(b, point_id);
    strbuf_add(b, ",", 1);
    sb_int64(b, point->ordinal);
    strbuf_add(b, ",", 1);
    if (point->params_swept)
        strbuf_str(b, point->params_swept);
    else if (storei_params_diff(b, s->block_params_base, point->params_json) != 0)
        strbuf_str(b, point->params_json); /* a first point: its base is itself */
    strbuf_add(b, ",\"", 2);
    strbuf_str(b, point->identity);
    strbuf_add(b, "\",", 2);
    sb_int64(b, seed);
    strbuf_add(b, ",", 1);
    sb_json_string(b, point->status);
    strbuf_add(b, ",", 1);
    if (point->error)
        sb_json_string(b, point->error);
    else
        strbuf_add(b, "null", 4);
    strbuf_add(b, ",", 1);
    sb_int64(b, isfinite(started_ms) ? (int64_t)started_ms : 0);
    strbuf_add(b, ",", 1);
    sb_int64(b, isfinite(duration_ns) && duration_ns >= 0 ? (int64_t)duration_ns : 0);
    strbuf_add(b, ",", 1);
    sb_int64(b, (int64_t)point->row_count);
    if (point->reused_from) {
        strbuf_add(b, ",", 1);
        sb_int64(b, point->reused_from);
    }
    strbuf_add(b, "]", 1);
    s->block_points++;
    s->block_ok += strcmp(point->status, "ok") == 0;
}

/* Deletes the result rows of a point that failed half-way. */
static int undo_point(store *s, const storei_plugin_entry *e, const store_point *point,
                      int64_t point_id)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "DELETE FROM ");
    storei_append_ident(&sql, e->name);
    strbuf_str(&sql, " WHERE \"sweep_id\" = ?2 AND \"section_id\" = ?3 AND \"point_id\" = ?1");
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (!sql.oom && sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, point_id);
        sqlite3_bind_int64(st, 2, point->sweep_id);
        sqlite3_bind_int64(st, 3, point->section_id);
        if (sqlite3_step(st) == SQLITE_DONE)
            rc = 0;
    }
    sqlite3_finalize(st);
    free(sql.data);
    return rc;
}

int store_write_point(store *s, const runner_plugin *plugin, const store_point *point, char **err)
{
    storei_plugin_entry *e = find_plugin(s, plugin);
    if (!e)
        return util_fail(err,
                         "%s: cannot store point: no result table prepared for plugin "
                         "\"%s\" (store_prepare_plugin was not called)",
                         s->path, plugin->name);
    /* The view promises these four; nothing else may go in. */
    const char *status = point->status ? point->status : "";
    if (strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0 &&
        strcmp(status, "crashed") != 0 && strcmp(status, "timeout") != 0)
        return util_fail(err,
                         "%s: cannot store point %" PRId64 " of section %" PRId64
                         ": status \"%s\" is not ok, failed, crashed or timeout",
                         s->path, point->ordinal, point->section_id, status);
    /* A block holds one section's points, all of whose parameters json_patch
     * can rebuild from the block's base. */
    if (s->in_batch && s->block_points &&
        (s->block_section_id != point->section_id ||
         (!point->params_swept &&
          storei_params_diff(NULL, s->block_params_base, point->params_json) != 0)) &&
        storei_block_write(s, err) != 0) {
        storei_run_stmt(s, STMT_ROLLBACK, "cannot roll back", NULL);
        s->in_batch = 0;
        storei_append_note(err, " (the points since the last commit were not stored)");
        return -1;
    }
    if (storei_batch_begin(s, err) != 0)
        return -1;
    /* A point is its result rows and its element of the block. Instead of
     * a savepoint per point (which costs as much as the inserts), a failure
     * deletes the rows this point inserted; nothing is committed in
     * between, so no reader ever sees part of a point. */
    int64_t point_id = s->next_point_id;
    int inserted = 0, runs_in = 0;
    store_point copied = { 0 };
    if (point->reused_from) {
        copied = *point;
        if (storei_copy_rows(s, e, point, point_id, &copied.row_count, err) != 0 ||
            storei_copy_artifacts(s, point, point_id, err) != 0 ||
            storei_copy_runs(s, point, point_id, err) != 0) {
            inserted = 1; /* some rows may be in */
            goto fail;
        }
        point = &copied;
    } else if (point->row_count > 0) {
        sqlite3_stmt *ins = e->insert;
        int bad = sqlite3_bind_int64(ins, 1, point->sweep_id) != SQLITE_OK;
        bad |= sqlite3_bind_int64(ins, 2, point->section_id) != SQLITE_OK;
        bad |= sqlite3_bind_int64(ins, 3, point_id) != SQLITE_OK;
        for (uint32_t i = 0; i < e->param_count; i++)
            bad |= bind_value(ins, 4 + (int)i, &point->params[i]) != SQLITE_OK;
        int first_output = 4 + (int)e->param_count;
        for (size_t r = 0; r < point->row_count && !bad; r++) {
            const value *row = point->rows + r * e->column_count;
            for (uint32_t c = 0; c < e->column_count; c++)
                bad |= bind_value(ins, first_output + (int)c, &row[c]) != SQLITE_OK;
            if (bad || sqlite3_step(ins) != SQLITE_DONE) {
                storei_fail_sql(s, err,
                                "cannot store row %zu of point %" PRId64 " of section %" PRId64
                                " in \"%s\"",
                                r + 1, point->ordinal, point->section_id, e->name);
                sqlite3_reset(ins);
                sqlite3_clear_bindings(ins);
                goto fail;
            }
            sqlite3_reset(ins);
            inserted = 1;
        }
        if (bad) {
            storei_fail_sql(s, err,
                            "cannot store point %" PRId64 " of section %" PRId64 " in \"%s\"",
                            point->ordinal, point->section_id, e->name);
            sqlite3_clear_bindings(ins);
            goto fail;
        }
        /* Drop pointers into the caller's rows before they are freed. */
        sqlite3_clear_bindings(ins);
    }
    if (point->runs && point->runs->count > 0) {
        if (storei_write_runs(s, point->sweep_id, point_id, point->runs, err) != 0)
            goto fail; /* its own runs undone */
        runs_in = 1;
    }
    if (point->artifacts &&
        storei_write_artifacts(s, point->sweep_id, point_id, point->artifacts, err) != 0)
        goto fail;
    /* The batch state (store_int.h, "the batch and the open point block"):
     * a point goes into the open batch, and a block holds ids in a row. */
    RUNNER_BUG_IF(!s->in_batch, "a point was stored outside a batch");
    RUNNER_BUG_IF(s->block_points && s->block_first_id + s->block_points != point_id,
                  "the point block's ids are not in a row");
    block_append(s, point, point_id);
    s->next_point_id++;
    s->batch_points++;
    double now = util_monotonic();
    /* Slow points (a gap as long as the batch window) commit at once, so a
     * long sweep's progress is on disk point by point. */
    int slow = now - s->last_point_at >= BATCH_MAX_SECONDS;
    s->last_point_at = now;
    if (slow || s->batch_points >= BATCH_MAX_POINTS || now - s->batch_started >= BATCH_MAX_SECONDS)
        return storei_batch_commit(s, err);
    return 0;

fail:
    if (runs_in && !sqlite3_get_autocommit(s->db))
        storei_undo_runs(s, point->sweep_id, point_id);
    if (inserted && !sqlite3_get_autocommit(s->db) && undo_point(s, e, point, point_id) != 0) {
        /* Could not take the partial point out: drop the whole batch. */
        storei_run_stmt(s, STMT_ROLLBACK, "cannot roll back", NULL);
    }
    /* Some errors (disk full, I/O) make SQLite abandon the whole transaction. */
    if (s->in_batch && sqlite3_get_autocommit(s->db)) {
        s->in_batch = 0;
        storei_block_discard(s);
        storei_append_note(err, " (the points since the last commit were not stored either)");
    }
    return -1;
}

int store_flush(store *s, char **err) { return storei_batch_commit(s, err); }
