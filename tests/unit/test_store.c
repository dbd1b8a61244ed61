/* test_store: the database module on real files in RUNNER_TEST_TMP, checked
 * through a second, plain sqlite3 connection the way a user would look. */
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "check.h"
#include "demo_plugin.h"
#include "store/store.h"
#include "testdb.h"

/* --- the test plugin: every parameter type and every column type ---------- */

static const char *const mode_choices[] = { "ring", "tree", NULL };

static const runner_param demo_params[] = {
    RUNNER_PARAM_INTEGER("workers", "", "number of workers", 4, 1, 1024),
    RUNNER_PARAM_REAL("jitter_s", "s", "largest extra delay per round", 0.1, 0, HUGE_VAL),
    RUNNER_PARAM_TEXT("reduction", "how gradients are summed", "ring", mode_choices),
    RUNNER_PARAM_BOOLEAN("weighted", "weight shards by size", 1),
};

static const runner_column demo_columns[] = {
    RUNNER_COLUMN("round", RUNNER_INTEGER, "", "round index"),
    RUNNER_COLUMN("round_s", RUNNER_REAL, "s", "duration of the round"),
    RUNNER_COLUMN("note", RUNNER_TEXT, "", "free text"),
    RUNNER_COLUMN("converged", RUNNER_BOOLEAN, "", "whether the loss settled"),
};

static const runner_plugin demo = DEMO_PLUGIN("1.0.0", demo_params, demo_columns, NULL);

/* Version 2 declares one more output. */
static const runner_column demo_v2_columns[] = {
    RUNNER_COLUMN("round", RUNNER_INTEGER, "", "round index"),
    RUNNER_COLUMN("round_s", RUNNER_REAL, "s", "duration of the round"),
    RUNNER_COLUMN("note", RUNNER_TEXT, "", "free text"),
    RUNNER_COLUMN("converged", RUNNER_BOOLEAN, "", "whether the loss settled"),
    RUNNER_COLUMN("moved_bytes", RUNNER_INTEGER, "bytes", "bytes moved in the round"),
};

static const runner_plugin demo_v2 = DEMO_PLUGIN("2.0.0", demo_params, demo_v2_columns, NULL);

/* Version 3 also declares new parameters: old rows read their defaults. */
static const runner_param demo_v3_params[] = {
    RUNNER_PARAM_INTEGER("workers", "", "number of workers", 4, 1, 1024),
    RUNNER_PARAM_REAL("jitter_s", "s", "largest extra delay per round", 0.1, 0, HUGE_VAL),
    RUNNER_PARAM_TEXT("reduction", "how gradients are summed", "ring", mode_choices),
    RUNNER_PARAM_BOOLEAN("weighted", "weight shards by size", 1),
    RUNNER_PARAM_TEXT("label", "a new text parameter", "it's new", NULL),
    RUNNER_PARAM_REAL("scale", "", "a new real parameter", 0.25, 0, 1),
    RUNNER_PARAM_INTEGER("copies", "", "a new integer parameter", 3, 0, 9),
};

static const runner_plugin demo_v3 = DEMO_PLUGIN("3.0.0", demo_v3_params, demo_v2_columns, NULL);

/* 2026-11-30T05:12:00.123Z */
#define STARTED_AT 1796015520.123

/* --- helpers --------------------------------------------------------------- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)size + 1);
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *len = (size_t)size;
    return data;
}

/* A second connection, as the sqlite3 shell would open the file. */
static sqlite3 *raw_open(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        fprintf(stderr, "raw open %s: %s\n", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "raw exec %s: %s\n", sql, msg);
        check_failures++;
    }
    sqlite3_free(msg);
}

/* First column of the first row as an integer; -12345 when there is none. */
static int64_t raw_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t result = -12345;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fprintf(stderr, "raw prepare %s: %s\n", sql, sqlite3_errmsg(db));
    else if (sqlite3_step(st) == SQLITE_ROW)
        result = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return result;
}

/* First column of the first row as text (static buffer); "(none)" when
 * there is no row, "(null)" for NULL. */
static const char *raw_text(sqlite3 *db, const char *sql)
{
    static char buf[1024];
    sqlite3_stmt *st = NULL;
    snprintf(buf, sizeof buf, "(none)");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fprintf(stderr, "raw prepare %s: %s\n", sql, sqlite3_errmsg(db));
    else if (sqlite3_step(st) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        snprintf(buf, sizeof buf, "%s", text ? text : "(null)");
    }
    sqlite3_finalize(st);
    return buf;
}

static int report(int rc, char **err)
{
    if (rc != 0)
        fprintf(stderr, "  store error: %s\n", *err ? *err : "(no message)");
    free(*err);
    *err = NULL;
    return rc;
}

static int64_t begin_sweep(store *s, const char *script)
{
    store_sweep_info info = {
        .script_path = script,
        .script_text = "sweep \"demo\" { workers = {1, 2} }\n",
        .script_sha256 = "00ff",
        .options_json = "{}",
        .overrides_json = "{\"workers\":2}",
        .runner_version = "0.1.0",
        .git_commit = NULL,
        .host = "testhost",
        .command_line = "runner sweep demo.lua",
        .seed = 0xFFFFFFFFFFFFFFFFULL,
        .started_at = STARTED_AT,
    };
    int64_t id = -1;
    char *err = NULL;
    CHECK_INT_EQ(report(store_sweep_begin(s, &info, &id, &err), &err), 0);
    return id;
}

static int64_t begin_section(store *s, int64_t sweep_id, int ordinal, const char *title)
{
    int64_t id = -1;
    char *err = NULL;
    CHECK_INT_EQ(
        report(store_section_begin(s, sweep_id, ordinal, "demo", title, 3, 2, &id, &err), &err), 0);
    return id;
}

/* The parameters every point of these tests uses. */
static value params[4];

static void set_params(int workers)
{
    params[0] = value_integer(workers);
    params[1] = value_real(0.25);
    params[2] = value_text("tree");
    params[3] = value_boolean(1);
}

static void clear_values(value *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        value_clear(&v[i]);
}

static store_point make_point(int64_t sweep_id, int64_t section_id, int64_t ordinal,
                              const value *rows, size_t row_count)
{
    store_point p = {
        .sweep_id = sweep_id,
        .section_id = section_id,
        .ordinal = ordinal,
        .params_json = "{\"workers\":4}",
        .identity = "abc123",
        .seed = 0x8000000000000001ULL,
        .status = "ok",
        .error = NULL,
        .started_at = STARTED_AT,
        .duration_s = 0.5,
        .params = params,
        .row_count = row_count,
        .rows = rows,
    };
    return p;
}

/* Writes two points to the section: one with five rows holding every kind
 * of value (NaN, +-inf, NULL, text "NaN"), then a failed one; commits.
 * rows gets the values written (the caller clears them and params). */
static void write_rounds(store *s, int64_t sweep_id, int64_t section_id, value rows[5 * 4])
{
    char *err = NULL;
    set_params(4);
    const value written[5 * 4] = {
        value_integer(1),    value_real(0.5),
        value_text("plain"), value_boolean(0),
        value_integer(2),    value_real(NAN),
        value_text("NaN"),   value_boolean(1),
        value_integer(3),    value_real(INFINITY),
        value_text(""),      value_boolean(1),
        value_integer(4),    value_real(-INFINITY),
        VALUE_NULL,          value_boolean(0),
        VALUE_NULL,          VALUE_NULL,
        VALUE_NULL,          VALUE_NULL,
    };
    memcpy(rows, written, sizeof written);
    store_point p = make_point(sweep_id, section_id, 0, rows, 5);
    CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    store_point empty = make_point(sweep_id, section_id, 1, NULL, 0);
    empty.status = "failed";
    empty.error = "workers: out of memory";
    CHECK_INT_EQ(report(store_write_point(s, &demo, &empty, &err), &err), 0);
    CHECK_INT_EQ(report(store_flush(s, &err), &err), 0);
}

/* --- tests ------------------------------------------------------------------ */

static void test_reserved_names(void)
{
    const char *reserved[] = { "sweep",         "sweep_plugin",     "section",
                               "point",         "plugin_column",    "SWEEP",
                               "sqlite_master", "sqlite_stat1",     "SQLITE_x",
                               "row_id",        "sweep_id",         "section_id",
                               "point_id",      "point_by_identity" };
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!store_reserved_name(reserved[i])) {
            fprintf(stderr, "  %s should be reserved\n", reserved[i]);
            check_failures++;
        }
    const char *free_names[] = { "demo",   "sweeps",  "sqlite", "sqlitex",
                                 "points", "round_s", "row",    "comm" };
    for (size_t i = 0; i < sizeof free_names / sizeof free_names[0]; i++)
        if (store_reserved_name(free_names[i])) {
            fprintf(stderr, "  %s should not be reserved\n", free_names[i]);
            check_failures++;
        }
}

static void test_open_creates_catalog(void)
{
    const char *path = testdb_path("catalog.db");
    store *s = testdb_open(path, NULL);
    if (!s)
        return;
    CHECK_STR_EQ(store_path(s), path);
    CHECK(store_schema_version() >=
          8); /* 6: point.reused_from; 8: sweep.shard_*; others may add more */
    store_close(s);

    sqlite3 *db = raw_open(path);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
                             " ('sweep', 'sweep_plugin', 'section', 'point_block', 'plugin_column',"
                             " 'outbox')"),
                 6);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view'"
                             " AND name = 'point'"),
                 1);
    CHECK_INT_EQ(raw_int(db, "PRAGMA user_version"), store_schema_version());
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM pragma_table_info('point')"
                             " WHERE name = 'reused_from'"),
                 1);
    CHECK_STR_EQ(raw_text(db, "PRAGMA journal_mode"), "wal");
    sqlite3_close(db);

    /* Opening again is a no-op for the schema. */
    char *err = NULL;
    CHECK_INT_EQ(report(store_open(path, &s, &err), &err), 0);
    store_close(s);
}

static void test_result_table(void)
{
    const char *path = testdb_path("table.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    /* Preparing again (the next sweep) changes nothing. */
    CHECK_INT_EQ(report(store_prepare_plugin(s, &demo, &err), &err), 0);
    store_close(s);

    sqlite3 *db = raw_open(path);
    CHECK_STR_EQ(raw_text(db, "SELECT group_concat(name || ' ' || type, ', ') FROM"
                              " (SELECT name, type FROM pragma_table_info('demo') ORDER BY cid)"),
                 "row_id INTEGER, sweep_id INTEGER, section_id INTEGER, point_id INTEGER, "
                 "workers INTEGER, jitter_s REAL, reduction TEXT, weighted INTEGER, "
                 "round INTEGER, round_s REAL, note TEXT, converged INTEGER");
    CHECK_INT_EQ(raw_int(db, "SELECT pk FROM pragma_table_info('demo') WHERE name = 'row_id'"), 1);
    CHECK_INT_EQ(raw_int(db, "SELECT sum(\"notnull\") FROM pragma_table_info('demo')"
                             " WHERE name IN ('sweep_id', 'section_id', 'point_id')"),
                 3);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                             " AND tbl_name = 'demo'"),
                 1);
    CHECK_STR_EQ(raw_text(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM"
                              " pragma_index_info('demo_by_sweep_section_point') ORDER BY seqno)"),
                 "sweep_id,section_id,point_id");

    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM plugin_column WHERE plugin = 'demo'"), 8);
    CHECK_STR_EQ(raw_text(db, "SELECT group_concat(name || ':' || role || ':' || type || ':' ||"
                              " unit || ':' || position, ' ') FROM (SELECT * FROM plugin_column"
                              " WHERE plugin = 'demo' ORDER BY role DESC, position)"),
                 "workers:param:integer::0 jitter_s:param:real:s:1 reduction:param:text::2 "
                 "weighted:param:boolean::3 round:output:integer::0 round_s:output:real:s:1 "
                 "note:output:text::2 converged:output:boolean::3");
    CHECK_STR_EQ(raw_text(db, "SELECT doc FROM plugin_column WHERE name = 'round_s'"),
                 "duration of the round");
    sqlite3_close(db);
}

static void test_write_and_read_back(void)
{
    const char *path = testdb_path("rows.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = begin_sweep(s, "demo.lua");
    CHECK_INT_EQ(
        report(store_sweep_plugin(s, sweep_id, "demo", "1.0.0", "/p/demo.so", "beef", &err), &err),
        0);

    /* The sweep row is committed at once: another connection sees it. */
    sqlite3 *db = raw_open(path);
    CHECK_STR_EQ(raw_text(db, "SELECT status FROM sweep"), "running");
    CHECK_STR_EQ(raw_text(db, "SELECT started_at FROM sweep"), "2026-11-30T05:12:00.123Z");
    CHECK_INT_EQ(raw_int(db, "SELECT seed FROM sweep"), -1);
    CHECK_STR_EQ(raw_text(db, "SELECT git_commit FROM sweep"), "(null)");

    int64_t section_id = begin_section(s, sweep_id, 1, "rounds");
    value rows[5 * 4];
    write_rounds(s, sweep_id, section_id, rows);

    /* What the sqlite3 shell sees. */
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo"), 5);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM point"), 2);
    CHECK_INT_EQ(raw_int(db, "SELECT seed FROM point WHERE ordinal = 0"),
                 (int64_t)-9223372036854775807LL);
    CHECK_STR_EQ(raw_text(db, "SELECT started_at FROM point WHERE ordinal = 0"),
                 "2026-11-30T05:12:00.123Z");
    CHECK_INT_EQ(raw_int(db, "SELECT row_count FROM point WHERE ordinal = 0"), 5);
    CHECK_STR_EQ(raw_text(db, "SELECT error FROM point WHERE ordinal = 1"),
                 "workers: out of memory");
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo WHERE point_id ="
                             " (SELECT id FROM point WHERE ordinal = 0) AND section_id = 1"
                             " AND sweep_id = 1 AND workers = 4 AND jitter_s = 0.25"
                             " AND reduction = 'tree' AND weighted = 1"),
                 5);
    CHECK_STR_EQ(raw_text(db, "SELECT typeof(round_s) || ' ' || round_s FROM demo"
                              " WHERE round = 2"),
                 "text NaN");
    CHECK_STR_EQ(raw_text(db, "SELECT typeof(round_s) FROM demo WHERE round = 3"), "real");
    CHECK_INT_EQ(raw_int(db, "SELECT round_s > 1e308 FROM demo WHERE round = 3"), 1);
    CHECK_INT_EQ(raw_int(db, "SELECT round_s < -1e308 FROM demo WHERE round = 4"), 1);
    CHECK_STR_EQ(raw_text(db, "SELECT typeof(note) FROM demo WHERE round = 4"), "null");
    CHECK_STR_EQ(raw_text(db, "SELECT typeof(converged) || converged FROM demo WHERE round = 2"),
                 "integer1");
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo WHERE round IS NULL AND round_s IS NULL"
                             " AND note IS NULL AND converged IS NULL"),
                 1);

    /* What runner show reads back. */
    table *t = NULL;
    CHECK_INT_EQ(report(store_section_table(s, section_id, &t, &err), &err), 0);
    if (t) {
        CHECK_STR_EQ(t->title, "rounds");
        CHECK_INT_EQ(t->column_count, 8);
        CHECK_INT_EQ(t->row_count, 5);
        CHECK_STR_EQ(t->columns[0].name, "workers");
        CHECK_STR_EQ(t->columns[1].unit, "s");
        CHECK_INT_EQ(t->columns[3].type, RUNNER_BOOLEAN);
        CHECK_INT_EQ(t->columns[3].is_param, 1);
        CHECK_STR_EQ(t->columns[4].name, "round");
        CHECK_INT_EQ(t->columns[4].is_param, 0);
        CHECK_INT_EQ(t->columns[5].type, RUNNER_REAL);
        CHECK_STR_EQ(t->columns[5].unit, "s");
        for (size_t r = 0; r < t->row_count; r++) {
            for (size_t c = 0; c < 4; c++)
                CHECK(value_equal(table_cell(t, r, c), &params[c]));
            for (size_t c = 0; c < 4; c++)
                if (!value_equal(table_cell(t, r, 4 + c), &rows[r * 4 + c])) {
                    fprintf(stderr, "  row %zu column %zu differs after the round trip\n", r, c);
                    check_failures++;
                }
        }
        CHECK(isnan(table_cell(t, 1, 5)->as.real));
        CHECK_INT_EQ(table_cell(t, 1, 6)->type, RUNNER_TEXT); /* text "NaN" stays text */
        CHECK(isinf(table_cell(t, 2, 5)->as.real) && table_cell(t, 2, 5)->as.real > 0);
        CHECK(isinf(table_cell(t, 3, 5)->as.real) && table_cell(t, 3, 5)->as.real < 0);
        CHECK_INT_EQ(table_cell(t, 0, 7)->type, RUNNER_BOOLEAN);
        CHECK_INT_EQ(table_cell(t, 3, 6)->type, 0);
    }
    table_free(t);

    CHECK_INT_EQ(store_section_table(s, 999, &t, &err), -1);
    CHECK(t == NULL);
    char expected[800];
    snprintf(expected, sizeof expected, "%s: cannot read section 999: no such section", path);
    CHECK_STR_EQ(err, expected);
    free(err);
    err = NULL;

    CHECK_INT_EQ(report(store_sweep_end(s, sweep_id, "failed", STARTED_AT + 61.5, &err), &err), 0);
    CHECK_STR_EQ(raw_text(db, "SELECT status || ' ' || ended_at FROM sweep"),
                 "failed 2026-11-30T05:13:01.623Z");
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM sweep_plugin WHERE plugin = 'demo'"
                             " AND so_sha256 = 'beef'"),
                 1);
    CHECK_STR_EQ(raw_text(db, "SELECT title || ' ' || script_line || ' ' || point_count"
                              " FROM section"),
                 "rounds 3 2");
    /* Unknown statuses are the schema's to refuse, with SQLite's reason. */
    CHECK(store_sweep_end(s, sweep_id, "great", STARTED_AT, &err) == -1 && err &&
          strstr(err, "CHECK constraint failed"));
    free(err);
    err = NULL;

    clear_values(rows, 20);
    clear_values(params, 4);
    sqlite3_close(db);
    store_close(s);
}

static void test_untitled_section_uses_plugin_name(void)
{
    const char *path = testdb_path("untitled.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = begin_sweep(s, "demo.lua");
    int64_t section_id = begin_section(s, sweep_id, 1, NULL);
    table *t = NULL;
    CHECK_INT_EQ(report(store_section_table(s, section_id, &t, &err), &err), 0);
    if (t) {
        CHECK_STR_EQ(t->title, "demo");
        CHECK_INT_EQ(t->row_count, 0);
        CHECK_INT_EQ(t->column_count, 8);
    }
    table_free(t);
    store_close(s);
}

static void test_list_sweeps(void)
{
    const char *path = testdb_path("list.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    set_params(2);
    value row[4] = { value_integer(1), value_real(1.5), VALUE_NULL, value_boolean(1) };

    int64_t first = begin_sweep(s, "first.lua");
    int64_t a = begin_section(s, first, 1, NULL);
    int64_t b = begin_section(s, first, 2, NULL);
    int ordinal = 0;
    for (int i = 0; i < 3; i++) {
        store_point p = make_point(first, i < 2 ? a : b, ordinal++, row, 1);
        CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    }
    for (int i = 0; i < 2; i++) {
        store_point p = make_point(first, b, ordinal++, NULL, 0);
        p.status = "failed";
        p.error = "diverged";
        CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    }
    CHECK_INT_EQ(report(store_sweep_end(s, first, "failed", STARTED_AT + 1, &err), &err), 0);
    int64_t second = begin_sweep(s, "second.lua");

    table *t = NULL;
    CHECK_INT_EQ(report(store_list_sweeps(s, &t, &err), &err), 0);
    if (t) {
        CHECK_INT_EQ(t->column_count, 11);
        const char *names[] = { "id",         "name",     "script",    "tags",
                                "status",     "sections", "points_ok", "points_failed",
                                "started_at", "duration", "overrides" };
        const runner_type types[] = { RUNNER_INTEGER, RUNNER_TEXT,    RUNNER_TEXT,
                                      RUNNER_TEXT,    RUNNER_TEXT,    RUNNER_INTEGER,
                                      RUNNER_INTEGER, RUNNER_INTEGER, RUNNER_TEXT,
                                      RUNNER_REAL,    RUNNER_TEXT };
        for (size_t i = 0; i < 11 && i < t->column_count; i++) {
            CHECK_STR_EQ(t->columns[i].name, names[i]);
            CHECK_INT_EQ(t->columns[i].type, types[i]);
        }
        CHECK_INT_EQ(t->row_count, 2);
        if (t->row_count == 2) {
            CHECK_INT_EQ(table_cell(t, 0, 0)->as.integer, first);
            CHECK_STR_EQ(table_cell(t, 0, 8)->as.text, "2026-11-30T05:12:00.123Z");
            CHECK_STR_EQ(table_cell(t, 0, 2)->as.text, "first.lua");
            CHECK_STR_EQ(table_cell(t, 0, 4)->as.text, "failed");
            CHECK_INT_EQ(table_cell(t, 0, 5)->as.integer, 2);
            CHECK_INT_EQ(table_cell(t, 0, 6)->as.integer, 3);
            CHECK_INT_EQ(table_cell(t, 0, 7)->as.integer, 2);
            /* newest last; a sweep without sections counts zeros, not NULLs */
            CHECK_INT_EQ(table_cell(t, 1, 0)->as.integer, second);
            CHECK_STR_EQ(table_cell(t, 1, 4)->as.text, "running");
            CHECK_INT_EQ(table_cell(t, 1, 5)->type, RUNNER_INTEGER);
            CHECK_INT_EQ(table_cell(t, 1, 5)->as.integer, 0);
            CHECK_INT_EQ(table_cell(t, 1, 6)->as.integer, 0);
            CHECK_INT_EQ(table_cell(t, 1, 7)->as.integer, 0);
        }
    }
    table_free(t);

    int64_t *ids = NULL;
    size_t count = 0;
    CHECK_INT_EQ(report(store_sweep_sections(s, first, &ids, &count, &err), &err), 0);
    CHECK_INT_EQ(count, 2);
    if (count == 2) {
        CHECK_INT_EQ(ids[0], a);
        CHECK_INT_EQ(ids[1], b);
    }
    free(ids);
    CHECK_INT_EQ(report(store_sweep_sections(s, second, &ids, &count, &err), &err), 0);
    CHECK_INT_EQ(count, 0);
    free(ids);

    clear_values(row, 4);
    clear_values(params, 4);
    store_close(s);
}

static void test_newer_schema_refused_untouched(void)
{
    const char *path = testdb_path("newer.db");
    store_close(testdb_open(path, NULL));
    sqlite3 *db = raw_open(path);
    raw_exec(db, "PRAGMA user_version = 99");
    sqlite3_close(db);

    size_t before_len = 0, after_len = 0;
    char *before = read_all(path, &before_len);
    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(store_open(path, &s, &err), -1);
    CHECK(s == NULL);
    char expected[800];
    snprintf(expected, sizeof expected,
             "%s: database schema version 99 is newer than this runner supports (%d); "
             "use a newer runner or another --db",
             path, store_schema_version());
    CHECK_STR_EQ(err, expected);
    free(err);
    char *after = read_all(path, &after_len);
    CHECK(before && after);
    CHECK_INT_EQ(after_len, before_len);
    CHECK(before && after && before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);

    db = raw_open(path);
    CHECK_INT_EQ(raw_int(db, "PRAGMA user_version"), 99);
    sqlite3_close(db);
}

static void test_not_a_database_refused_untouched(void)
{
    const char *path = testdb_path("notes.txt");
    testdb_remove(path);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    for (int i = 0; i < 100; i++)
        fprintf(f, "line %d: these are notes, not a database\n", i);
    fclose(f);

    size_t before_len = 0, after_len = 0;
    char *before = read_all(path, &before_len);
    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(store_open(path, &s, &err), -1);
    CHECK(s == NULL);
    char expected[800];
    snprintf(expected, sizeof expected, "%s: not a runner database (file is not a database)", path);
    CHECK_STR_EQ(err, expected);
    free(err);
    char *after = read_all(path, &after_len);
    CHECK(before && after && before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
}

static void test_foreign_sqlite_database_refused(void)
{
    const char *path = testdb_path("foreign.db");
    testdb_remove(path);
    sqlite3 *db = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    raw_exec(db, "CREATE TABLE contacts (name TEXT)");
    sqlite3_close(db);

    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(store_open(path, &s, &err), -1);
    char expected[800];
    snprintf(expected, sizeof expected,
             "%s: not a runner database (it holds other tables and "
             "no runner schema version)",
             path);
    CHECK_STR_EQ(err, expected);
    free(err);
    db = raw_open(path);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM sqlite_master"), 1);
    sqlite3_close(db);
}

static void test_unwritable_location(void)
{
    const char *path = testdb_path("no/such/directory/results.db");
    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(store_open(path, &s, &err), -1);
    CHECK(s == NULL);
    CHECK(err && strncmp(err, path, strlen(path)) == 0);
    CHECK(err && strstr(err, "cannot open database") != NULL);
    CHECK(err && strchr(err, '\n') == NULL);
    free(err);
}

static void test_read_only_file(void)
{
    if (geteuid() == 0) {
        printf("test_read_only_file: skipped (root writes read-only files)\n");
        return;
    }
    const char *path = testdb_path("read_only.db");
    store_close(testdb_open(path, NULL));
    CHECK_INT_EQ(chmod(path, 0444), 0);
    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(store_open(path, &s, &err), -1);
    char expected[800];
    snprintf(expected, sizeof expected,
             "%s: cannot open database for writing: the file is "
             "read-only",
             path);
    CHECK_STR_EQ(err, expected);
    free(err);
    chmod(path, 0644);
}

/* New parameters: the rows stored before them read the declared default
 * (they ran with what the default now says), not NULL. */
static void test_new_parameter_defaults(void)
{
    const char *path = testdb_path("defaults.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    set_params(8);
    value old_row[4] = { value_integer(1), value_real(2.0), value_text("v1"), value_boolean(0) };
    int64_t sweep_id = begin_sweep(s, "v1.lua");
    int64_t section = begin_section(s, sweep_id, 1, NULL);
    store_point p = make_point(sweep_id, section, 0, old_row, 1);
    CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    CHECK_INT_EQ(report(store_sweep_end(s, sweep_id, "ok", STARTED_AT, &err), &err), 0);
    CHECK_INT_EQ(report(store_prepare_plugin(s, &demo_v3, &err), &err), 0);
    sqlite3 *db = raw_open(path);
    CHECK_STR_EQ(raw_text(db, "SELECT label || '|' || scale || '|' || copies FROM demo"
                              " WHERE note = 'v1'"),
                 "it's new|0.25|3");
    sqlite3_close(db);
    clear_values(old_row, 4);
    clear_values(params, 4);
    store_close(s);
}

static void test_widening(void)
{
    const char *path = testdb_path("widen.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    set_params(8);
    value old_row[4] = { value_integer(1), value_real(2.0), value_text("v1"), value_boolean(0) };
    int64_t sweep_id = begin_sweep(s, "v1.lua");
    int64_t old_section = begin_section(s, sweep_id, 1, NULL);
    store_point p = make_point(sweep_id, old_section, 0, old_row, 1);
    CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    CHECK_INT_EQ(report(store_sweep_end(s, sweep_id, "ok", STARTED_AT, &err), &err), 0);

    CHECK_INT_EQ(report(store_prepare_plugin(s, &demo_v2, &err), &err), 0);
    sqlite3 *db = raw_open(path);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM pragma_table_info('demo')"), 13);
    CHECK_STR_EQ(raw_text(db, "SELECT type FROM pragma_table_info('demo')"
                              " WHERE name = 'moved_bytes'"),
                 "INTEGER");
    CHECK_STR_EQ(raw_text(db, "SELECT unit || ' ' || position FROM plugin_column"
                              " WHERE name = 'moved_bytes'"),
                 "bytes 4");
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo WHERE moved_bytes IS NULL"), 1);

    value new_row[5] = { value_integer(1), value_real(3.0), value_text("v2"), value_boolean(1),
                         value_integer(4000000) };
    sweep_id = begin_sweep(s, "v2.lua");
    int64_t new_section = begin_section(s, sweep_id, 1, NULL);
    p = make_point(sweep_id, new_section, 0, new_row, 1);
    CHECK_INT_EQ(report(store_write_point(s, &demo_v2, &p, &err), &err), 0);
    CHECK_INT_EQ(report(store_flush(s, &err), &err), 0);
    CHECK_INT_EQ(raw_int(db, "SELECT moved_bytes FROM demo WHERE note = 'v2'"), 4000000);

    table *t = NULL;
    CHECK_INT_EQ(report(store_section_table(s, new_section, &t, &err), &err), 0);
    if (t) {
        CHECK_INT_EQ(t->column_count, 9);
        CHECK_INT_EQ(table_find_column(t, "moved_bytes"), 8);
        CHECK_INT_EQ(t->row_count, 1);
        if (t->row_count == 1)
            CHECK_INT_EQ(table_cell(t, 0, 8)->as.integer, 4000000);
    }
    table_free(t);

    /* The store now writes version 2's rows; the old descriptor is refused. */
    p = make_point(sweep_id, new_section, 1, old_row, 1);
    CHECK(store_write_point(s, &demo, &p, &err) == -1 && err &&
          strstr(err, "store_prepare_plugin") != NULL);
    free(err);
    err = NULL;

    clear_values(old_row, 4);
    clear_values(new_row, 5);
    clear_values(params, 4);
    sqlite3_close(db);
    store_close(s);
}

static void test_failed_point_leaves_nothing(void)
{
    const char *path = testdb_path("atomic.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = begin_sweep(s, "atomic.lua");
    int64_t section_id = begin_section(s, sweep_id, 1, NULL);
    set_params(1);
    value rows[3 * 4] = {
        value_integer(11), value_real(1), VALUE_NULL, value_boolean(0),
        value_integer(12), value_real(2), VALUE_NULL, value_boolean(0),
        value_integer(13), value_real(3), VALUE_NULL, value_boolean(0),
    };
    store_point p = make_point(sweep_id, section_id, 0, rows, 3);
    CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    CHECK_INT_EQ(report(store_flush(s, &err), &err), 0);

    /* Someone adds a trigger that refuses round 13: the third row of the
     * next point fails after its point row and two rows went in. */
    sqlite3 *db = raw_open(path);
    raw_exec(db, "CREATE TRIGGER refuse_13 BEFORE INSERT ON demo WHEN NEW.round = 13"
                 " BEGIN SELECT RAISE(ABORT, 'round 13 refused'); END");

    rows[0].as.integer = 21;
    rows[4].as.integer = 22;
    rows[8].as.integer = 23;
    p = make_point(sweep_id, section_id, 1, rows, 3); /* 21, 22, 23: fine */
    CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    rows[0].as.integer = 31;
    rows[4].as.integer = 32;
    rows[8].as.integer = 13;
    p = make_point(sweep_id, section_id, 2, rows, 3); /* 31, 32, then 13 fails */
    CHECK_INT_EQ(store_write_point(s, &demo, &p, &err), -1);
    char expected[800];
    snprintf(expected, sizeof expected,
             "%s: cannot store row 3 of point 2 of section %" PRId64 " in \"demo\": "
             "round 13 refused",
             path, section_id);
    CHECK_STR_EQ(err, expected);
    free(err);
    err = NULL;
    /* The batch goes on: the next point is stored. */
    rows[0].as.integer = 41;
    rows[4].as.integer = 42;
    rows[8].as.integer = 43;
    p = make_point(sweep_id, section_id, 3, rows, 3);
    CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    /* A status the point view does not know fails before any row. */
    p = make_point(sweep_id, section_id, 4, rows, 3);
    p.status = "maybe";
    CHECK_INT_EQ(store_write_point(s, &demo, &p, &err), -1);
    snprintf(expected, sizeof expected,
             "%s: cannot store point 4 of section %" PRId64 ": status \"maybe\" is not ok,"
             " failed, crashed or timeout",
             path, section_id);
    CHECK_STR_EQ(err, expected);
    free(err);
    err = NULL;
    CHECK_INT_EQ(report(store_flush(s, &err), &err), 0);

    CHECK_STR_EQ(raw_text(db, "SELECT group_concat(ordinal) FROM (SELECT ordinal FROM point"
                              " ORDER BY ordinal)"),
                 "0,1,3");
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo WHERE round IN (31, 32)"), 0);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo"), 9);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo WHERE point_id NOT IN"
                             " (SELECT id FROM point)"),
                 0);

    /* The result table vanishes under the store: rows cannot go in, so the
     * point does not either. */
    raw_exec(db, "DROP TABLE demo");
    p = make_point(sweep_id, section_id, 5, rows, 3);
    CHECK(store_write_point(s, &demo, &p, &err) == -1 && err && strstr(err, "no such table: demo"));
    free(err);
    err = NULL;
    CHECK_INT_EQ(report(store_flush(s, &err), &err), 0);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM point WHERE ordinal = 5"), 0);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM point"), 3);

    /* Preparing again brings the table back. */
    CHECK_INT_EQ(report(store_prepare_plugin(s, &demo, &err), &err), 0);
    CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    CHECK_INT_EQ(report(store_flush(s, &err), &err), 0);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo"), 3);

    clear_values(rows, 12);
    clear_values(params, 4);
    sqlite3_close(db);
    store_close(s);
}

static void test_batches_commit_on_close(void)
{
    const char *path = testdb_path("close.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = begin_sweep(s, "many.lua");
    int64_t section_id = begin_section(s, sweep_id, 1, NULL);
    set_params(3);
    value row[4] = { value_integer(0), value_real(0.5), value_text("many"), value_boolean(1) };
    enum {
        POINTS = 2500
    };
    for (int i = 0; i < POINTS; i++) {
        row[0].as.integer = i;
        store_point p = make_point(sweep_id, section_id, i, row, 1);
        if (report(store_write_point(s, &demo, &p, &err), &err) != 0) {
            check_failures++;
            break;
        }
    }
    store_close(s); /* commits the last, partial batch */

    sqlite3 *db = raw_open(path);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM point"), POINTS);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo"), POINTS);
    CHECK_INT_EQ(raw_int(db, "SELECT sum(round) FROM demo"), (int64_t)POINTS * (POINTS - 1) / 2);
    /* One point_index row per point, in the block that holds it (all-ok
     * blocks write them 100 at a time, then the rest). */
    CHECK_INT_EQ(raw_int(db, "SELECT count(DISTINCT id) FROM point_index"), POINTS);
    CHECK_INT_EQ(raw_int(db, "SELECT max(id) - min(id) + 1 FROM point_index"), POINTS);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM point_index AS i JOIN point_block AS b"
                             " ON b.id = i.block_id WHERE i.status = 'ok'"
                             " AND i.id BETWEEN b.first_point_id AND b.last_point_id"),
                 POINTS);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM point JOIN point_index USING (id)"), POINTS);
    CHECK(raw_int(db, "SELECT count(*) FROM point_block WHERE point_count % 100 <> 0") > 0);
    sqlite3_close(db);
    clear_values(row, 4);
    clear_values(params, 4);
}

/* The point view gives back each point's exact canonical parameters from a
 * block's base and the per-point differences: text with JSON's special
 * characters, a point whose keys differ (a new block), swept parameters
 * given by the caller. */
static void test_point_view_params(void)
{
    const char *path = testdb_path("params.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = begin_sweep(s, "params.lua");
    int64_t section_id = begin_section(s, sweep_id, 1, NULL);
    set_params(2);
    static const char *const given[] = {
        "{\"workers\":2,\"jitter_s\":0.5,\"reduction\":\"ring\",\"weighted\":true}",
        "{\"workers\":3,\"jitter_s\":0.5,\"reduction\":\"a,b\\\"c}:\",\"weighted\":true}",
        "{\"workers\":3,\"jitter_s\":1e-300,\"reduction\":\"ring\",\"weighted\":false}",
        "{\"workers\":2,\"jitter_s\":0.5,\"reduction\":\"ring\",\"weighted\":true}",
        "{\"jitter_s\":0.5,\"workers\":7,\"reduction\":\"\\u00e9\",\"weighted\":true}",
        "{\"workers\":8,\"jitter_s\":0.25,\"reduction\":\"ring\",\"weighted\":true}",
    };
    enum {
        GIVEN = sizeof given / sizeof given[0]
    };
    for (int i = 0; i < GIVEN; i++) {
        store_point p = make_point(sweep_id, section_id, i, NULL, 0);
        p.params_json = given[i];
        if (i == GIVEN - 1) {
            /* As sweep.c passes them: only what the section's grid sweeps,
             * the others being the same for all its points. */
            p.section_id = begin_section(s, sweep_id, 2, NULL);
            p.params_swept = "{\"workers\":8,\"jitter_s\":0.25}";
        }
        CHECK_INT_EQ(report(store_write_point(s, &demo, &p, &err), &err), 0);
    }
    CHECK_INT_EQ(report(store_flush(s, &err), &err), 0);
    sqlite3 *db = raw_open(path);
    for (int i = 0; i < GIVEN; i++) {
        char sql[120];
        snprintf(sql, sizeof sql, "SELECT params_json FROM point WHERE ordinal = %d", i);
        CHECK_STR_EQ(raw_text(db, sql), given[i]);
    }
    /* Ordinals 1-3 share a block (0 commits at once, as a first point
     * does); the reordered keys start another; the second section has its
     * own. */
    CHECK_INT_EQ(raw_int(db, "SELECT count(DISTINCT b.id) FROM point_block AS b,"
                             " json_each(b.points) AS e"
                             " WHERE json_extract(e.value, '$[1]') IN (1, 2, 3)"),
                 1);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM point_block"), 4);
    CHECK_INT_EQ(raw_int(db, "SELECT sum(point_count) FROM point_block"), GIVEN);
    CHECK_INT_EQ(raw_int(db, "SELECT count(DISTINCT id) FROM point"), GIVEN);
    sqlite3_close(db);
    store_close(s);
    clear_values(params, 4);
}

/* A sweep that writes more than the WAL's checkpoint sizes: the background
 * checkpointer and the writer's backstop keep the WAL bounded, every row is
 * stored, and closing removes the WAL. */
static void test_wal_stays_bounded(void)
{
    const char *path = testdb_path("wal.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = begin_sweep(s, "big.lua");
    int64_t section_id = begin_section(s, sweep_id, 1, NULL);
    set_params(3);
    char *note = malloc(4000);
    if (!note) {
        check_failures++;
        store_close(s);
        return;
    }
    memset(note, 'n', 3999);
    note[3999] = '\0';
    value row[4] = { value_integer(0), value_real(0.5), value_text(note), value_boolean(1) };
    enum {
        POINTS = 30000
    }; /* about 120 MB of rows */
    char wal[700];
    snprintf(wal, sizeof wal, "%s-wal", path);
    off_t largest_wal = 0;
    for (int i = 0; i < POINTS; i++) {
        row[0].as.integer = i;
        store_point p = make_point(sweep_id, section_id, i, row, 1);
        if (report(store_write_point(s, &demo, &p, &err), &err) != 0) {
            check_failures++;
            break;
        }
        struct stat st;
        if (i % 500 == 0 && stat(wal, &st) == 0 && st.st_size > largest_wal)
            largest_wal = st.st_size;
    }
    CHECK(largest_wal > 16 * 1024 * 1024);
    CHECK(largest_wal < 80 * 1024 * 1024);
    store_close(s);
    struct stat st;
    CHECK(stat(wal, &st) != 0 || st.st_size == 0);
    sqlite3 *db = raw_open(path);
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM demo"), POINTS);
    CHECK_INT_EQ(raw_int(db, "SELECT sum(point_count) FROM point_block"), POINTS);
    CHECK_INT_EQ(raw_int(db, "SELECT sum(round) FROM demo"), (int64_t)POINTS * (POINTS - 1) / 2);
    sqlite3_close(db);
    clear_values(row, 4);
    clear_values(params, 4);
    free(note);
}

/* What a sweep's summary reads back: counts, the first rows, and min, max
 * and NaN count per numeric column over the whole section. */
static void test_digests(void)
{
    const char *path = testdb_path("digest.db");
    store *s = testdb_open(path, &demo);
    if (!s)
        return;
    char *err = NULL;
    int64_t sweep_id = begin_sweep(s, "demo.lua");
    int64_t section_id = begin_section(s, sweep_id, 1, "rounds");
    value rows[5 * 4];
    write_rounds(s, sweep_id, section_id, rows);

    store_sweep_digest sweep;
    CHECK_INT_EQ(report(store_sweep_digest_read(s, sweep_id, &sweep, &err), &err), 0);
    CHECK_STR_EQ(sweep.status, "running");
    CHECK(sweep.ended_at == NULL && isnan(sweep.duration_s));
    CHECK_INT_EQ(sweep.points_ok, 1);
    CHECK_INT_EQ(sweep.points_failed, 1);
    store_sweep_digest_clear(&sweep);

    store_section_digest d;
    CHECK_INT_EQ(report(store_section_digest_read(s, section_id, 2, &d, &err), &err), 0);
    CHECK_INT_EQ(d.ordinal, 1);
    CHECK_STR_EQ(d.plugin, "demo");
    CHECK_STR_EQ(d.title, "rounds");
    CHECK_INT_EQ(d.points_ok, 1);
    CHECK_INT_EQ(d.points_failed, 1);
    CHECK_INT_EQ(d.row_count, 5);
    CHECK(d.head != NULL);
    if (d.head) {
        CHECK_INT_EQ(d.head->column_count, 8);
        CHECK_INT_EQ(d.head->row_count, 2);
        CHECK_STR_EQ(d.head->columns[5].name, "round_s");
        if (d.head->row_count == 2 && d.head->column_count == 8) {
            CHECK_INT_EQ(table_cell(d.head, 1, 4)->as.integer, 2);
            CHECK(isnan(table_cell(d.head, 1, 5)->as.real));
            /* Numbers only: workers and round; text and booleans have none. */
            CHECK_INT_EQ(d.min[0].as.integer, 4);
            CHECK_INT_EQ(d.min[4].as.integer, 1);
            CHECK_INT_EQ(d.max[4].as.integer, 4);
            CHECK(d.min[5].type == RUNNER_REAL && d.min[5].as.real < -1e308);
            CHECK(d.max[5].type == RUNNER_REAL && d.max[5].as.real > 1e308);
            CHECK_INT_EQ(d.nan_count[5], 1);
            CHECK_INT_EQ(d.min[2].type, VALUE_NULL.type);
            CHECK_INT_EQ(d.max[7].type, VALUE_NULL.type);
        }
    }
    store_section_digest_clear(&d);

    char expected[700];
    snprintf(expected, sizeof expected,
             "%s: cannot read section 99 for its summary: no such "
             "section",
             path);
    CHECK(store_section_digest_read(s, 99, 2, &d, &err) == -1 && err && strcmp(err, expected) == 0);
    free(err);
    err = NULL;
    CHECK(d.head == NULL && d.plugin == NULL);
    clear_values(rows, 5 * 4);
    clear_values(params, 4);
    store_close(s);
}

static void test_reserved_plugin_refused(void)
{
    const char *path = testdb_path("reserved.db");
    store *s = testdb_open(path, NULL);
    if (!s)
        return;
    runner_plugin bad = demo;
    bad.name = "point";
    char *err = NULL;
    CHECK_INT_EQ(store_prepare_plugin(s, &bad, &err), -1);
    CHECK(err && strstr(err, "\"point\"") && strstr(err, "reserved"));
    free(err);
    store_close(s);
}

/* --- files that are not runner's (issue 20) --------------------------------- */

/* Opens path with open_fn and expects -1 with exactly "<path>: <message>",
 * the file's bytes unchanged and no -wal, -shm or -journal beside it. */
static void expect_refused_unchanged(const char *path,
                                     int (*open_fn)(const char *, store **, char **),
                                     const char *message)
{
    size_t before_len = 0, after_len = 0;
    char *before = read_all(path, &before_len);
    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(open_fn(path, &s, &err), -1);
    CHECK(s == NULL);
    char expected[1200];
    snprintf(expected, sizeof expected, "%s: %s", path, message);
    CHECK_STR_EQ(err, expected);
    free(err);
    char *after = read_all(path, &after_len);
    CHECK(before && after && before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
    static const char *const sides[] = { "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < 3; i++) {
        char side[700];
        snprintf(side, sizeof side, "%s%s", path, sides[i]);
        CHECK(access(side, F_OK) != 0);
    }
}

/* user_version is not enough: another program's database at version 1 or
 * 3, and runner's catalog with a table where its point view should be, are
 * refused by readers and writers alike, before anything is written. */
static void test_catalog_decides(void)
{
    const char *path = testdb_path("app.db");
    testdb_remove(path);
    sqlite3 *db = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    raw_exec(db, "CREATE TABLE users(id INTEGER PRIMARY KEY); PRAGMA user_version = 1");
    sqlite3_close(db);
    const char *no_sweep = "not a runner database (its user_version is 1, but it has no "
                           "\"sweep\" table)";
    expect_refused_unchanged(path, store_open_read, no_sweep);
    expect_refused_unchanged(path, store_open, no_sweep);

    const char *clash = testdb_path("clash.db");
    store_close(testdb_open(clash, NULL));
    db = raw_open(clash);
    raw_exec(db, "PRAGMA journal_mode = DELETE; DROP VIEW point;"
                 " CREATE TABLE point (id INTEGER PRIMARY KEY); PRAGMA user_version = 3");
    sqlite3_close(db);
    const char *table = "not a runner database (its user_version is 3, but its \"point\" is a "
                        "table where runner's is a view)";
    expect_refused_unchanged(clash, store_open_read, table);
    expect_refused_unchanged(clash, store_open, table);
    db = raw_open(clash);
    CHECK_STR_EQ(raw_text(db, "PRAGMA journal_mode"), "delete");
    sqlite3_close(db);
}

/* A reader refuses an older runner database, unchanged; a writer upgrades
 * it (version 3 to 4: the process identity columns). */
static void test_readers_never_migrate(void)
{
    const char *path = testdb_path("v3.db");
    store_close(testdb_open(path, NULL));
    sqlite3 *db = raw_open(path);
    /* The list's indexes (schema 10) name the columns version 3 lacks. */
    raw_exec(db, "PRAGMA journal_mode = DELETE; DROP INDEX sweep_list; DROP INDEX sweep_by_name;"
                 " ALTER TABLE sweep DROP COLUMN pid_host;"
                 " ALTER TABLE sweep DROP COLUMN pid_start_ticks;"
                 " ALTER TABLE sweep DROP COLUMN pid_boot_id; PRAGMA user_version = 3");
    sqlite3_close(db);
    char older[400];
    snprintf(older, sizeof older,
             "database schema version 3 is older than this runner's (%d); reading "
             "commands never change it: upgrade it with 'runner migrate' (or any "
             "writing command: sweep, resume, notify), or read it with an older "
             "runner",
             store_schema_version());
    expect_refused_unchanged(path, store_open_read, older);
    store *s = NULL;
    char *err = NULL;
    CHECK_INT_EQ(report(store_open(path, &s, &err), &err), 0);
    store_close(s);
    db = raw_open(path);
    CHECK_INT_EQ(raw_int(db, "PRAGMA user_version"), store_schema_version());
    CHECK_INT_EQ(raw_int(db, "SELECT count(*) FROM pragma_table_info('sweep') WHERE name IN"
                             " ('pid_host', 'pid_start_ticks', 'pid_boot_id')"),
                 3);
    sqlite3_close(db);
    CHECK_INT_EQ(report(store_open_read(path, &s, &err), &err), 0);
    store_close(s);
}

/* A FIFO would block the open; a directory or a device is no database. */
static void test_not_a_regular_file(void)
{
    const char *fifo = testdb_path("fifo.db");
    remove(fifo);
    CHECK_INT_EQ(mkfifo(fifo, 0600), 0);
    store *s = NULL;
    char *err = NULL;
    char expected[800];
    CHECK_INT_EQ(store_open_read(fifo, &s, &err), -1);
    snprintf(expected, sizeof expected,
             "%s: not a database file (it is a FIFO); --db needs a "
             "regular file",
             fifo);
    CHECK_STR_EQ(err, expected);
    free(err);
    err = NULL;
    CHECK_INT_EQ(store_open(fifo, &s, &err), -1);
    CHECK_STR_EQ(err, expected);
    free(err);
    remove(fifo);
    err = NULL;
    CHECK_INT_EQ(store_open("/dev/null", &s, &err), -1);
    CHECK_STR_EQ(err, "/dev/null: not a database file (it is a character device); --db needs a "
                      "regular file");
    free(err);
    CHECK(access("/dev/null-journal", F_OK) != 0);
    err = NULL;
    CHECK_INT_EQ(store_open(testdb_dir(), &s, &err), -1);
    snprintf(expected, sizeof expected,
             "%s: not a database file (it is a directory); --db "
             "needs a regular file",
             testdb_dir());
    CHECK_STR_EQ(err, expected);
    free(err);
}

/* The process running a sweep, written and read back. */
static void test_sweep_process(void)
{
    const char *path = testdb_path("process.db");
    store *s = testdb_open(path, NULL);
    if (!s)
        return;
    int64_t id = begin_sweep(s, "p.lua");
    char *err = NULL;
    process_identity who = { .pid = 4242, .start_ticks = 777, .host = "node7", .boot_id = "0f0f" },
                     back;
    sweep_lease lease = { .renewed_at_s = 1700000000.5,
                          .period_s = 2.5,
                          .slurm_job_id = "120",
                          .slurm_array_job_id = "118",
                          .slurm_array_task_id = "2",
                          .slurm_step_id = "0" },
                lease_back;
    CHECK_INT_EQ(report(store_sweep_claim(s, id, &who, &lease, &err), &err), 0);
    CHECK_INT_EQ(report(store_sweep_process(s, id, &back, &lease_back, &err), &err), 0);
    CHECK_INT_EQ(back.pid, 4242);
    CHECK_INT_EQ(back.start_ticks, 777);
    CHECK_STR_EQ(back.host, "node7");
    CHECK_STR_EQ(back.boot_id, "0f0f");
    CHECK(lease_back.renewed_at_s == 1700000000.5);
    CHECK(lease_back.period_s == 2.5);
    CHECK_STR_EQ(lease_back.slurm_job_id, "120");
    CHECK_STR_EQ(lease_back.slurm_array_job_id, "118");
    CHECK_STR_EQ(lease_back.slurm_array_task_id, "2");
    CHECK_STR_EQ(lease_back.slurm_step_id, "0");
    /* Outside Slurm, and without a lease: NULL columns, read back as none. */
    CHECK_INT_EQ(report(store_sweep_claim(s, id, &who, NULL, &err), &err), 0);
    CHECK_INT_EQ(report(store_sweep_process(s, id, &back, &lease_back, &err), &err), 0);
    CHECK(lease_back.renewed_at_s == 0 && lease_back.period_s == 0);
    CHECK_STR_EQ(lease_back.slurm_job_id, "");
    store_close(s);
    /* A row from before version 4: the sweep's host, nothing else. */
    sqlite3 *db = raw_open(path);
    raw_exec(db, "UPDATE sweep SET pid_host = NULL, pid_start_ticks = NULL, pid_boot_id = NULL");
    sqlite3_close(db);
    CHECK_INT_EQ(report(store_open(path, &s, &err), &err), 0);
    CHECK_INT_EQ(report(store_sweep_process(s, id, &back, NULL, &err), &err), 0);
    CHECK_INT_EQ(back.pid, 4242);
    CHECK_INT_EQ(back.start_ticks, 0);
    CHECK_STR_EQ(back.host, "testhost");
    CHECK_STR_EQ(back.boot_id, "");
    store_close(s);
}

/* runner_sweep_status(status, pid, host, start_ticks, boot_id) on sql. */
static void check_status_sql(sqlite3 *db, const char *sql, const char *want)
{
    sqlite3_stmt *st = NULL;
    CHECK_INT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_step(st), SQLITE_ROW);
    const char *got = (const char *)sqlite3_column_text(st, 0);
    CHECK_STR_EQ(got ? got : "(null)", want);
    sqlite3_finalize(st);
}

/* What readers show: a 'running' row whose process this host proves gone
 * is 'interrupted'; a live one, one elsewhere, or any other status is
 * shown as stored. */
static void test_sweep_status_sql(void)
{
    process_identity self;
    process_identity_self(&self);
    if (!self.start_ticks || !self.boot_id[0]) {
        printf("test_sweep_status_sql: skipped (no /proc)\n");
        return;
    }
    sqlite3 *db = NULL;
    CHECK_INT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
    CHECK_INT_EQ(store_process_register_sql(db), 0);
    char sql[512];
#define STATUS_SQL "SELECT runner_sweep_status('%s', %lld, '%s', %lld, '%s')"
    snprintf(sql, sizeof sql, STATUS_SQL, "running", (long long)self.pid, self.host,
             (long long)self.start_ticks, self.boot_id);
    check_status_sql(db, sql, "running");
    snprintf(sql, sizeof sql, STATUS_SQL, "running", (long long)self.pid, self.host,
             (long long)self.start_ticks + 1, self.boot_id); /* the pid was reused */
    check_status_sql(db, sql, "interrupted");
    snprintf(sql, sizeof sql, STATUS_SQL, "running", (long long)self.pid, self.host,
             (long long)self.start_ticks, "another-boot");
    check_status_sql(db, sql, "interrupted");
    snprintf(sql, sizeof sql, STATUS_SQL, "running", (long long)self.pid + 1000000, "elsewhere",
             (long long)self.start_ticks, self.boot_id); /* cannot be checked here */
    check_status_sql(db, sql, "running");
    snprintf(sql, sizeof sql, STATUS_SQL, "ok", (long long)self.pid + 1, self.host, 1LL, "b");
    check_status_sql(db, sql, "ok");
    check_status_sql(db, "SELECT runner_sweep_status('running', NULL, NULL, NULL, NULL)",
                     "running"); /* no pid recorded: nothing to judge */
    /* With a lease (schema 12): another host's process is running while its
     * lease is fresh, interrupted once 3 periods passed without renewal. */
#define LEASED_SQL                                                                                 \
    "SELECT runner_sweep_status('running', 4242, 'elsewhere', 5, 'b', %.3f, %.3f, NULL)"
    double now = util_now();
    snprintf(sql, sizeof sql, LEASED_SQL, now - 1, 1.0);
    check_status_sql(db, sql, "running");
    snprintf(sql, sizeof sql, LEASED_SQL, now - 3.5, 1.0);
    check_status_sql(db, sql, "interrupted");
    snprintf(sql, sizeof sql, LEASED_SQL, now - 14.0, 5.0);
    check_status_sql(db, sql, "running");
    /* This host's proof outranks the lease both ways. */
    snprintf(sql, sizeof sql,
             "SELECT runner_sweep_status('running', %lld, '%s', %lld, '%s', %.3f, 1, NULL)",
             (long long)self.pid, self.host, (long long)self.start_ticks, self.boot_id, now - 100);
    check_status_sql(db, sql, "running");
    snprintf(sql, sizeof sql,
             "SELECT runner_sweep_status('running', %lld, '%s', %lld, '%s', %.3f, 5, NULL)",
             (long long)self.pid, self.host, (long long)self.start_ticks + 1, self.boot_id, now);
    check_status_sql(db, sql, "interrupted");
    sqlite3_close(db);
}

int main(void)
{
    test_reserved_names();
    test_open_creates_catalog();
    test_result_table();
    test_write_and_read_back();
    test_untitled_section_uses_plugin_name();
    test_list_sweeps();
    test_newer_schema_refused_untouched();
    test_not_a_database_refused_untouched();
    test_foreign_sqlite_database_refused();
    test_unwritable_location();
    test_read_only_file();
    test_widening();
    test_new_parameter_defaults();
    test_failed_point_leaves_nothing();
    test_batches_commit_on_close();
    test_point_view_params();
    test_wal_stays_bounded();
    test_reserved_plugin_refused();
    test_digests();
    test_catalog_decides();
    test_readers_never_migrate();
    test_not_a_regular_file();
    test_sweep_process();
    test_sweep_status_sql();
    return check_done("test_store");
}
