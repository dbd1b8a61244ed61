/* test_lifecycle: a sweep's life on a real database in RUNNER_TEST_TMP,
 * without Lua: nothing is opened before the first section; begin, a section
 * and end store the rows, the status and the end time; an interrupted sweep
 * is resumed with its own seed, running only the points it lacks; a changed
 * script text or a missing sweep is refused; the summary line says what was
 * stored; a webhook summary is queued with the end and, undelivered, kept. */
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "demo_plugin.h"
#include "testdb.h"
#include "base/exit_status.h"
#include "run/lifecycle.h"
#include "plugin/param.h"
#include "notify/webhook.h"

static volatile sig_atomic_t stop_flag;
static int runs;           /* points the plugin computed */
static int64_t stop_after; /* the point (workers value) after which Ctrl-C comes */

static const runner_param demo_params[] = {
    RUNNER_PARAM_INTEGER("workers", "", "number of workers", 1, 1, 64),
};

static const runner_column demo_columns[] = {
    RUNNER_COLUMN("doubled", RUNNER_INTEGER, "", "twice the workers"),
};

static int demo_run(const runner_host *host, runner_point *point)
{
    int64_t workers = host->param_integer(point, 0);
    runs++;
    if (workers == 13)
        return host->fail(point, "thirteen is unlucky");
    host->set_integer(point, 0, 2 * workers);
    host->emit_row(point);
    if (workers == stop_after)
        stop_flag = 1; /* as if Ctrl-C came while this point ran */
    return RUNNER_OK;
}

static const runner_plugin demo =
    DEMO_PLUGIN_NAMED("lifecycle_demo", "1.0.0", demo_params, demo_columns, demo_run);

static loaded_plugin demo_loaded = {
    .desc = &demo,
    .path = "(linked into test_lifecycle)",
    .file_stem = "lifecycle_demo",
    .sha256 = "0000000000000000000000000000000000000000000000000000000000000000",
};

/* A sweep of script_text into db_path; *options (which the config points
 * to) says how it runs. */
static lifecycle_config config_for(const char *db_path, const char *script_text,
                                   sweep_options *options)
{
    *options = (sweep_options){
        .db_path = db_path,
        .command_line = "runner sweep demo.lua",
        .seed = 42,
        .stop = &stop_flag,
        .quiet = 1,
        .jobs = 1,
    };
    lifecycle_config c = {
        .script_path = "demo.lua",
        .script_text = script_text,
        .script_text_len = strlen(script_text),
        .options = options,
    };
    return c;
}

/* A grid of workers = 1 .. count (a value is 13 to fail that point). */
static grid *workers_grid(const int64_t *workers, size_t count)
{
    grid *g = grid_new(&demo);
    value *values = calloc(count, sizeof *values);
    for (size_t i = 0; i < count; i++)
        values[i] = value_integer(workers[i]);
    uint64_t points = 0;
    char msg[256];
    if (!g || grid_set(g, 0, values, count, 0) != 0 ||
        grid_finish(g, 0, &points, msg, sizeof msg) != 0) {
        fprintf(stderr, "cannot build the grid\n");
        exit(100);
    }
    return g;
}

/* Runs one section of the given points; returns lifecycle_run_section's
 * result code, with *result and, when rows is not NULL, *rows. */
static int run_section(lifecycle *lc, const int64_t *workers, size_t count, table **rows,
                       lifecycle_section_result *result)
{
    grid *g = workers_grid(workers, count);
    lifecycle_section section = { .plugin = &demo_loaded, .grid = g, .title = "doubling" };
    char *err = NULL;
    int rc = lifecycle_run_section(lc, &section, rows, result, &err);
    if (rc != 0)
        fprintf(stderr, "  error: %s\n", err ? err : "(no message)");
    free(err);
    grid_free(g);
    return rc;
}

/* The first column of the first row of sql on db_path as text ("" when
 * there is none; "NULL" for NULL). */
static const char *query(const char *db_path, const char *sql)
{
    static char answer[512];
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    snprintf(answer, sizeof answer, "%s", "");
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(st, 0);
        snprintf(answer, sizeof answer, "%s", text ? (const char *)text : "NULL");
    } else {
        fprintf(stderr, "  query failed: %s: %s\n", sql, db ? sqlite3_errmsg(db) : "no database");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return answer;
}

static int begin(lifecycle *lc, const char *options_json)
{
    char *err = NULL;
    int rc = lifecycle_begin(lc, options_json, NULL, &err);
    if (rc != 0)
        fprintf(stderr, "  error: %s\n", err ? err : "(no message)");
    free(err);
    return rc;
}

static void test_begin_section_end(void)
{
    const char *path = testdb_fresh_path("lifecycle-life.db");
    stop_flag = 0;
    stop_after = 0;
    runs = 0;
    sweep_options options;
    lifecycle_config config = config_for(path, "-- demo\n", &options);
    lifecycle *lc = lifecycle_new(&config);
    CHECK(lc != NULL);
    /* Nothing is opened before the first section. */
    CHECK(!lifecycle_begun(lc));
    CHECK(access(path, F_OK) != 0);
    CHECK(lifecycle_summary_line(lc) == NULL);

    CHECK_INT_EQ(begin(lc, "{\"n\":3}"), 0);
    CHECK(lifecycle_begun(lc));
    CHECK_INT_EQ(lifecycle_sweep_id(lc), 1);
    CHECK_INT_EQ(begin(lc, "{}"), 0); /* once begun, nothing more */
    CHECK_STR_EQ(query(path, "SELECT status FROM sweep WHERE id = 1"), "running");

    const int64_t workers[] = { 1, 2, 13 };
    table *rows = NULL;
    lifecycle_section_result result;
    CHECK_INT_EQ(run_section(lc, workers, 3, &rows, &result), 0);
    CHECK_INT_EQ(result.points_failed, 1);
    CHECK_INT_EQ(result.interrupted, 0);
    CHECK(rows != NULL);
    if (rows) {
        CHECK_INT_EQ(rows->row_count, 2);
        CHECK_INT_EQ(table_cell(rows, 1, 1)->as.integer, 4);
    }
    table_free(rows);
    CHECK_INT_EQ(runs, 3);

    CHECK_INT_EQ(lifecycle_end(lc, LIFECYCLE_FINISHED), EXIT_POINTS_FAILED);
    char *line = lifecycle_summary_line(lc);
    char expected[800];
    snprintf(expected, sizeof expected, "runner: sweep 1 stored in %s: 2 points ok, 1 failed",
             path);
    CHECK_STR_EQ(line, expected);
    free(line);
    lifecycle_free(lc);

    CHECK_STR_EQ(query(path, "SELECT status FROM sweep WHERE id = 1"), "failed");
    CHECK_STR_EQ(query(path, "SELECT ended_at IS NOT NULL FROM sweep WHERE id = 1"), "1");
    CHECK_STR_EQ(query(path, "SELECT options_json || seed FROM sweep WHERE id = 1"), "{\"n\":3}42");
    CHECK_STR_EQ(query(path, "SELECT sum(doubled) FROM lifecycle_demo"), "6");
    CHECK_STR_EQ(query(path, "SELECT count(*) FROM outbox"), "0");
}

static void test_resume_interrupted(void)
{
    const char *path = testdb_fresh_path("lifecycle-resume.db");
    const int64_t workers[] = { 1, 2, 3, 4 };
    lifecycle_section_result result;
    stop_flag = 0;
    stop_after = 2;
    runs = 0;
    sweep_options options;
    lifecycle_config config = config_for(path, "-- resumable\n", &options);
    options.seed = 7;
    lifecycle *lc = lifecycle_new(&config);
    CHECK_INT_EQ(begin(lc, NULL), 0);
    table *rows = NULL;
    CHECK_INT_EQ(run_section(lc, workers, 4, &rows, &result), 0);
    CHECK_INT_EQ(result.interrupted, 1);
    CHECK(rows == NULL);
    CHECK_INT_EQ(lifecycle_end(lc, LIFECYCLE_INTERRUPTED), EXIT_INTERRUPTED);
    lifecycle_free(lc);
    CHECK_STR_EQ(query(path, "SELECT status FROM sweep WHERE id = 1"), "interrupted");
    CHECK_STR_EQ(query(path, "SELECT count(*) FROM lifecycle_demo"), "2");

    /* Another text of the same script is refused, and changes nothing. */
    stop_flag = 0;
    stop_after = 0;
    sweep_options changed_options;
    lifecycle_config changed = config_for(path, "-- edited since\n", &changed_options);
    changed_options.resume = 1;
    lc = lifecycle_new(&changed);
    char *err = NULL;
    CHECK_INT_EQ(lifecycle_begin(lc, NULL, NULL, &err), -1);
    char expected[900];
    snprintf(expected, sizeof expected,
             "%s: sweep 1 ran another version of demo.lua (the text "
             "changed since); 'runner resume 1' finishes it with its own text, or drop "
             "--resume to start a new sweep",
             path);
    CHECK_STR_EQ(err, expected);
    free(err);
    CHECK_INT_EQ(lifecycle_end(lc, LIFECYCLE_STORE_FAILED), EXIT_USAGE);
    lifecycle_free(lc);
    CHECK_STR_EQ(query(path, "SELECT status FROM sweep WHERE id = 1"), "interrupted");

    /* The same text resumes sweep 1 with its seed; only points 3 and 4 run. */
    options.resume = 1;
    options.seed = 99;
    lc = lifecycle_new(&config);
    CHECK_INT_EQ(begin(lc, NULL), 0);
    CHECK_INT_EQ(lifecycle_sweep_id(lc), 1);
    runs = 0;
    CHECK_INT_EQ(run_section(lc, workers, 4, NULL, &result), 0);
    CHECK_INT_EQ(result.interrupted, 0);
    CHECK_INT_EQ(runs, 2);
    CHECK_INT_EQ(lifecycle_end(lc, LIFECYCLE_FINISHED), EXIT_OK);
    char *line = lifecycle_summary_line(lc);
    snprintf(expected, sizeof expected,
             "runner: sweep 1 resumed in %s: 2 points ok, 0 failed, "
             "2 already stored",
             path);
    CHECK_STR_EQ(line, expected);
    free(line);
    lifecycle_free(lc);
    CHECK_STR_EQ(query(path, "SELECT status || ' ' || seed FROM sweep WHERE id = 1"), "ok 7");
    CHECK_STR_EQ(query(path, "SELECT count(*) || ' ' || max(id) FROM sweep"), "1 1");
    CHECK_STR_EQ(query(path, "SELECT sum(doubled) FROM lifecycle_demo"), "20");
}

static void test_nothing_to_resume(void)
{
    const char *path = testdb_fresh_path("lifecycle-none.db");
    sweep_options options;
    lifecycle_config config = config_for(path, "-- demo\n", &options);
    options.resume = 1;
    lifecycle *lc = lifecycle_new(&config);
    char *err = NULL;
    CHECK_INT_EQ(lifecycle_begin(lc, NULL, NULL, &err), -1);
    char expected[800];
    snprintf(expected, sizeof expected,
             "%s: no earlier sweep of demo.lua to resume; run it "
             "without --resume",
             path);
    CHECK_STR_EQ(err, expected);
    free(err);
    lifecycle_free(lc);

    options.resume_sweep_id = 5;
    lc = lifecycle_new(&config);
    CHECK_INT_EQ(lifecycle_begin(lc, NULL, NULL, &err), -1);
    snprintf(expected, sizeof expected, "%s: no sweep 5 to resume; 'runner sweeps' lists them",
             path);
    CHECK_STR_EQ(err, expected);
    free(err);
    /* A section of a sweep not begun is refused, not run. */
    lifecycle_section_result result;
    const int64_t workers[] = { 1 };
    grid *g = workers_grid(workers, 1);
    lifecycle_section section = { .plugin = &demo_loaded, .grid = g };
    CHECK_INT_EQ(lifecycle_run_section(lc, &section, NULL, &result, &err), -1);
    CHECK_STR_EQ(err, "the sweep was not begun");
    free(err);
    grid_free(g);
    CHECK_INT_EQ(lifecycle_end(lc, LIFECYCLE_INPUT_ERROR), EXIT_USAGE);
    lifecycle_free(lc);
}

/* With a webhook, the summary is queued as the sweep ends; a receiver that
 * is not there leaves it pending, and --webhook-strict makes that exit 3. */
static void test_summary_queued(void)
{
    const char *path = testdb_fresh_path("lifecycle-outbox.db");
    stop_flag = 0;
    stop_after = 0;
    webhook_target target;
    char *err = NULL;
    /* Port 1 on the loopback: nothing listens, the connection is refused. */
    CHECK_INT_EQ(webhook_target_init(&target, "http://127.0.0.1:1/hook", NULL, &err), 0);
    free(err);
    target.max_attempts = 1;
    sweep_options options;
    lifecycle_config config = config_for(path, "-- demo\n", &options);
    options.webhook = &target;
    options.webhook_strict = 1;
    lifecycle *lc = lifecycle_new(&config);
    CHECK_INT_EQ(begin(lc, NULL), 0);
    const int64_t workers[] = { 1 };
    lifecycle_section_result result;
    CHECK_INT_EQ(run_section(lc, workers, 1, NULL, &result), 0);
    CHECK_INT_EQ(lifecycle_end(lc, LIFECYCLE_FINISHED), EXIT_NOT_DELIVERED);
    lifecycle_free(lc);
    CHECK_STR_EQ(query(path, "SELECT status FROM sweep"), "ok");
    CHECK_STR_EQ(query(path, "SELECT sweep_id || ' ' || attempts || ' ' || "
                             "(delivered_at IS NULL) FROM outbox"),
                 "1 1 1");
}

int main(void)
{
    test_begin_section_end();
    test_resume_interrupted();
    test_nothing_to_resume();
    test_summary_queued();
    return check_done("test_lifecycle");
}
