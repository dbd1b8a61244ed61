/* test_summary: webhook bodies built from a real database in RUNNER_TEST_TMP.
 * Every figure is the stored one, NaN and infinities are strings, rows and
 * bytes are bounded and what is left out is counted; the outbox row is
 * written with the sweep's end, or the sweep ends without it. */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "demo_plugin.h"
#include "testdb.h"
#include "store/store.h"
#include "notify/summary.h"
#include "base/util.h"

static const runner_param demo_params[] = {
    RUNNER_PARAM_INTEGER("workers", "", "number of workers", 4, 1, 1024),
};

static const runner_column demo_columns[] = {
    RUNNER_COLUMN("round_s", RUNNER_REAL, "s", "duration of the round"),
    RUNNER_COLUMN("note", RUNNER_TEXT, "", "free text"),
    RUNNER_COLUMN("settled", RUNNER_BOOLEAN, "", "whether the loss settled"),
};

static const runner_plugin demo = DEMO_PLUGIN("1.0.0", demo_params, demo_columns, NULL);

/* 2026-11-30T05:12:00.123Z */
#define STARTED_AT 1796015520.123

static int report(int rc, char **err)
{
    if (rc != 0)
        fprintf(stderr, "  error: %s\n", *err ? *err : "(no message)");
    free(*err);
    *err = NULL;
    return rc;
}

/* A sweep of `sections` sections titled by `title`; each has two points of
 * `rows` rows (round_s 0.5, 1.5, ..., then NaN and +inf on the last two
 * rows of the second point) and one failed point. */
static store *make_sweep(const char *path, int sections, int rows, const char *title,
                         int64_t *sweep_id)
{
    store *s = testdb_open(path, &demo);
    if (!s)
        return NULL;
    char *err = NULL;
    store_sweep_info info = {
        .script_path = "demo.lua",
        .script_text = "-- demo",
        .script_sha256 = "00",
        .runner_version = "0.1.0",
        .host = "testhost",
        .command_line = "runner sweep demo.lua",
        .started_at = STARTED_AT,
    };
    CHECK_INT_EQ(report(store_sweep_begin(s, &info, sweep_id, &err), &err), 0);
    for (int k = 1; k <= sections; k++) {
        int64_t section_id = 0;
        CHECK_INT_EQ(
            report(store_section_begin(s, *sweep_id, k, "demo", title, 1, 3, &section_id, &err),
                   &err),
            0);
        for (int p = 0; p < 3; p++) {
            value params[1] = { value_integer(p + 1) };
            value *cells = calloc((size_t)rows * 3 + 1, sizeof *cells);
            for (int r = 0; r < rows; r++) {
                double round_s = 0.5 + r + 100 * p;
                if (p == 1 && r == rows - 1)
                    round_s = INFINITY;
                if (p == 1 && r == rows - 2)
                    round_s = NAN;
                cells[3 * r] = value_real(round_s);
                cells[3 * r + 1] = value_text(r % 2 ? "odd" : "even");
                cells[3 * r + 2] = value_boolean(r % 2);
            }
            store_point point = {
                .sweep_id = *sweep_id,
                .section_id = section_id,
                .ordinal = p,
                .params_json = "{}",
                .identity = "id",
                .status = p == 2 ? "failed" : "ok",
                .error = p == 2 ? "asked to fail" : NULL,
                .started_at = STARTED_AT,
                .duration_s = 0.1,
                .params = params,
                .row_count = p == 2 ? 0 : (size_t)rows,
                .rows = cells,
            };
            CHECK_INT_EQ(report(store_write_point(s, &demo, &point, &err), &err), 0);
            for (int i = 0; i < rows * 3; i++)
                value_clear(&cells[i]);
            free(cells);
        }
    }
    return s;
}

/* Closes the sweep with a summary and returns the stored body (caller frees
 * with json_decref), or NULL. */
static json_t *close_with_summary(store *s, int64_t sweep_id, summary_options *options,
                                  store_outbox_row *row)
{
    char *err = NULL;
    store_outbox_request request = { .format = summary_format_name(options->format),
                                     .build = summary_build,
                                     .ctx = options };
    CHECK_INT_EQ(report(store_sweep_end_with_outbox(s, sweep_id, "failed", STARTED_AT + 61.5,
                                                    &request, &err),
                        &err),
                 0);
    CHECK(request.error == NULL);
    if (request.error)
        fprintf(stderr, "  summary error: %s\n", request.error);
    free(request.error);
    CHECK_INT_EQ(request.id, 1);
    CHECK_INT_EQ(report(store_outbox_read(s, request.id, row, &err), &err), 0);
    if (!row->body)
        return NULL;
    json_error_t jerr;
    json_t *doc = json_loads(row->body, 0, &jerr);
    if (!doc)
        fprintf(stderr, "  body is not JSON: %s\n", jerr.text);
    CHECK(doc != NULL);
    return doc;
}

static void check_real(json_t *j, double expected, const char *what)
{
    if (!json_is_real(j) || json_real_value(j) != expected) {
        fprintf(stderr, "  %s: expected %.17g\n", what, expected);
        check_failures++;
    }
}

static void check_string(json_t *j, const char *expected)
{
    CHECK_STR_EQ(json_string_value(j), expected);
}

static void test_generic_body(void)
{
    const char *path = testdb_path("summary-generic.db");
    int64_t sweep_id = 0;
    store *s = make_sweep(path, 1, 5, "rounds", &sweep_id);
    if (!s)
        return;
    summary_options options = { .format = SUMMARY_GENERIC, .db_path = "here.db", .max_rows = 3 };
    store_outbox_row row;
    json_t *doc = close_with_summary(s, sweep_id, &options, &row);
    if (doc) {
        CHECK_INT_EQ(json_integer_value(json_object_get(doc, "sweep_id")), sweep_id);
        check_string(json_object_get(doc, "script"), "demo.lua");
        /* Read inside the closing transaction: the end is already there. */
        check_string(json_object_get(doc, "status"), "failed");
        check_string(json_object_get(doc, "started_at"), "2026-11-30T05:12:00.123Z");
        check_string(json_object_get(doc, "ended_at"), "2026-11-30T05:13:01.623Z");
        check_real(json_object_get(doc, "duration_s"), 61.5, "duration_s");
        check_string(json_object_get(doc, "database"), "here.db");
        CHECK_INT_EQ(json_integer_value(json_object_get(doc, "points_ok")), 2);
        CHECK_INT_EQ(json_integer_value(json_object_get(doc, "points_failed")), 1);
        CHECK_INT_EQ(json_integer_value(json_object_get(doc, "sections_omitted")), 0);
        json_t *sec = json_array_get(json_object_get(doc, "sections"), 0);
        check_string(json_object_get(sec, "title"), "rounds");
        check_string(json_object_get(sec, "plugin"), "demo");
        CHECK_INT_EQ(json_integer_value(json_object_get(sec, "row_count")), 10);
        /* At most max_rows rows; the rest counted. */
        CHECK_INT_EQ(json_array_size(json_object_get(sec, "rows")), 3);
        CHECK_INT_EQ(json_integer_value(json_object_get(sec, "rows_omitted")), 7);
        json_t *first = json_array_get(json_object_get(sec, "rows"), 0);
        CHECK_INT_EQ(json_integer_value(json_array_get(first, 0)), 1);
        check_real(json_array_get(first, 1), 0.5, "first round_s");
        check_string(json_array_get(first, 2), "even");
        CHECK(json_is_false(json_array_get(first, 3)));
        /* Figures cover every stored row, not only those sent. */
        json_t *fig = json_object_get(json_object_get(sec, "figures"), "round_s");
        check_real(json_object_get(fig, "min"), 0.5, "min round_s");
        check_string(json_object_get(fig, "max"), "inf");
        CHECK_INT_EQ(json_integer_value(json_object_get(fig, "nan")), 1);
        json_t *workers = json_object_get(json_object_get(sec, "figures"), "workers");
        CHECK_INT_EQ(json_integer_value(json_object_get(workers, "max")), 2);
        CHECK(json_object_get(json_object_get(sec, "figures"), "note") == NULL);
        json_t *col = json_array_get(json_object_get(sec, "columns"), 1);
        check_string(json_object_get(col, "name"), "round_s");
        check_string(json_object_get(col, "unit"), "s");
        check_string(json_object_get(col, "role"), "output");
    }
    /* The key names sweep and row, then the body's hash. */
    CHECK(row.idempotency_key && strncmp(row.idempotency_key, "runner-1-1-", 11) == 0 &&
          strlen(row.idempotency_key) == 11 + 16);
    CHECK_STR_EQ(row.format, "generic");
    CHECK_INT_EQ(row.attempts, 0);
    CHECK_INT_EQ(row.due, 1);
    json_decref(doc);
    store_outbox_row_clear(&row);
    store_close(s);
}

static void test_bytes_bounded(void)
{
    const char *path = testdb_path("summary-bounded.db");
    int64_t sweep_id = 0;
    store *s = make_sweep(path, 6, 40, NULL, &sweep_id);
    if (!s)
        return;
    summary_options options = { .format = SUMMARY_GENERIC,
                                .db_path = "here.db",
                                .max_bytes = 2500 };
    store_outbox_row row;
    json_t *doc = close_with_summary(s, sweep_id, &options, &row);
    CHECK(row.body && strlen(row.body) <= 2500);
    if (doc) {
        size_t sections = json_array_size(json_object_get(doc, "sections"));
        json_int_t omitted = json_integer_value(json_object_get(doc, "sections_omitted"));
        CHECK(sections >= 1 && sections < 6);
        CHECK_INT_EQ((json_int_t)sections + omitted, 6);
        json_int_t rows = 0, rows_omitted = 0;
        for (size_t i = 0; i < sections; i++) {
            json_t *sec = json_array_get(json_object_get(doc, "sections"), i);
            rows += (json_int_t)json_array_size(json_object_get(sec, "rows"));
            rows_omitted += json_integer_value(json_object_get(sec, "rows_omitted"));
            CHECK(json_is_null(json_object_get(sec, "title")));
        }
        CHECK(rows > 0);
        CHECK_INT_EQ(rows + rows_omitted, (json_int_t)sections * 80);
    }
    json_decref(doc);
    store_outbox_row_clear(&row);
    store_close(s);
}

static void test_slack_body(void)
{
    const char *path = testdb_path("summary-slack.db");
    int64_t sweep_id = 0;
    store *s = make_sweep(path, 2, 3, "a<b & c>", &sweep_id);
    if (!s)
        return;
    summary_options options = { .format = SUMMARY_SLACK, .db_path = "here.db" };
    store_outbox_row row;
    json_t *doc = close_with_summary(s, sweep_id, &options, &row);
    CHECK_STR_EQ(row.format, "slack");
    if (doc) {
        CHECK_INT_EQ(json_object_size(doc), 1);
        const char *text = json_string_value(json_object_get(doc, "text"));
        CHECK(text != NULL);
        if (text) {
            const char *head = "runner sweep 1 failed: demo.lua, 4 points ok, 2 failed, "
                               "61.500 s (here.db on testhost)\n```\n";
            CHECK(strncmp(text, head, strlen(head)) == 0);
            /* Slack's control characters are escaped, even in the code block. */
            CHECK(strstr(text, "1. a&lt;b &amp; c&gt; [demo]: 6 rows, 2 points ok, 1 failed\n"));
            CHECK(strstr(text, "2. a&lt;b &amp; c&gt; [demo]: 6 rows"));
            CHECK(strstr(text, "   round_s [s]           0.5           inf  (1 NaN)\n"));
            CHECK(strstr(text, "   workers                 1             2\n"));
            CHECK(strstr(text, "note") == NULL);
            CHECK(strlen(text) > 3 && strcmp(text + strlen(text) - 3, "```") == 0);
        }
    }
    json_decref(doc);
    store_outbox_row_clear(&row);
    store_close(s);
}

static int failing_build(store *s, int64_t sweep_id, void *ctx, char **body, char **err)
{
    (void)s, (void)sweep_id, (void)ctx;
    *body = NULL;
    return util_fail(err, "no body today");
}

static void test_failed_summary_keeps_the_sweep(void)
{
    const char *path = testdb_path("summary-nobody.db");
    int64_t sweep_id = 0;
    store *s = make_sweep(path, 1, 2, NULL, &sweep_id);
    if (!s)
        return;
    char *err = NULL;
    store_outbox_request request = { .format = "generic", .build = failing_build };
    CHECK_INT_EQ(
        report(store_sweep_end_with_outbox(s, sweep_id, "ok", STARTED_AT + 1, &request, &err),
               &err),
        0);
    CHECK_INT_EQ(request.id, 0);
    CHECK_STR_EQ(request.error, "no body today");
    free(request.error);
    store_close(s);

    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT (SELECT status FROM sweep), (SELECT count(*) FROM outbox),"
                             " (SELECT count(*) FROM demo)",
                             -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR_EQ((const char *)sqlite3_column_text(st, 0), "ok");
    CHECK_INT_EQ(sqlite3_column_int(st, 1), 0);
    CHECK_INT_EQ(sqlite3_column_int(st, 2), 4);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_attempts_recorded(void)
{
    const char *path = testdb_path("summary-attempts.db");
    int64_t sweep_id = 0;
    store *s = make_sweep(path, 1, 2, NULL, &sweep_id);
    if (!s)
        return;
    summary_options options = { .format = SUMMARY_GENERIC, .db_path = "here.db" };
    store_outbox_row row;
    json_decref(close_with_summary(s, sweep_id, &options, &row));
    store_outbox_row_clear(&row);
    char *err = NULL;
    int64_t *ids = NULL;
    size_t count = 0;
    /* A 429 asking to wait an hour: pending, not due. */
    CHECK_INT_EQ(report(store_outbox_attempt(s, 1, 429, "HTTP 429", 0, 4102444800.0, &err), &err),
                 0);
    CHECK_INT_EQ(report(store_outbox_read(s, 1, &row, &err), &err), 0);
    CHECK_INT_EQ(row.attempts, 1);
    CHECK_INT_EQ(row.due, 0);
    CHECK_STR_EQ(row.next_attempt_at, "2100-01-01T00:00:00.000Z");
    store_outbox_row_clear(&row);
    CHECK_INT_EQ(report(store_outbox_pending(s, &ids, &count, &err), &err), 0);
    CHECK_INT_EQ(count, 1);
    free(ids);
    /* Delivered: no longer pending. */
    CHECK_INT_EQ(report(store_outbox_attempt(s, 1, 200, NULL, 1, 0, &err), &err), 0);
    CHECK_INT_EQ(report(store_outbox_read(s, 1, &row, &err), &err), 0);
    CHECK_INT_EQ(row.attempts, 2);
    CHECK(row.delivered_at != NULL);
    CHECK(row.next_attempt_at == NULL);
    CHECK_INT_EQ(row.due, 0);
    store_outbox_row_clear(&row);
    CHECK_INT_EQ(report(store_outbox_pending(s, &ids, &count, &err), &err), 0);
    CHECK_INT_EQ(count, 0);
    free(ids);
    CHECK_INT_EQ(report(store_outbox_read(s, 99, &row, &err), &err), 0);
    CHECK_INT_EQ(row.id, 0);
    store_close(s);
}

/* A resumed sweep ends twice: the second summary replaces the first while
 * that one still waits, and leaves a delivered one alone. */
static void test_resumed_sweep_replaces_waiting_summary(void)
{
    const char *path = testdb_path("summary-resumed.db");
    int64_t sweep_id = 0;
    store *s = make_sweep(path, 1, 2, NULL, &sweep_id);
    if (!s)
        return;
    summary_options options = { .format = SUMMARY_GENERIC, .db_path = "here.db" };
    char *err = NULL;
    int64_t *ids = NULL;
    size_t count = 0;
    for (int round = 1; round <= 3; round++) {
        store_outbox_request request = { .format = "generic",
                                         .build = summary_build,
                                         .ctx = &options };
        CHECK_INT_EQ(report(store_sweep_reopen(s, sweep_id, 1, &err), &err), 0);
        CHECK_INT_EQ(report(store_sweep_end_with_outbox(s, sweep_id, "ok", STARTED_AT + round,
                                                        &request, &err),
                            &err),
                     0);
        CHECK_INT_EQ(request.id, round);
        free(request.error);
        CHECK_INT_EQ(report(store_outbox_pending(s, &ids, &count, &err), &err), 0);
        CHECK_INT_EQ(count, 1);
        CHECK(count == 1 && ids[0] == round);
        free(ids);
        if (round == 2) /* delivered: kept when the third summary comes */
            CHECK_INT_EQ(report(store_outbox_attempt(s, 2, 200, NULL, 1, 0, &err), &err), 0);
    }
    store_outbox_row row;
    CHECK_INT_EQ(report(store_outbox_read(s, 2, &row, &err), &err), 0);
    CHECK(row.id == 2 && row.delivered_at != NULL);
    store_outbox_row_clear(&row);
    CHECK_INT_EQ(report(store_outbox_read(s, 1, &row, &err), &err), 0);
    CHECK_INT_EQ(row.id, 0);
    store_close(s);
}

static void test_formats(void)
{
    summary_format f = SUMMARY_SLACK;
    CHECK_INT_EQ(summary_parse_format("generic", &f), 0);
    CHECK_INT_EQ(f, SUMMARY_GENERIC);
    CHECK_INT_EQ(summary_parse_format("slack", &f), 0);
    CHECK_INT_EQ(f, SUMMARY_SLACK);
    CHECK_INT_EQ(summary_parse_format("teams", &f), -1);
    CHECK_STR_EQ(summary_format_name(SUMMARY_GENERIC), "generic");
    CHECK_STR_EQ(summary_format_name(SUMMARY_SLACK), "slack");
}

int main(void)
{
    test_formats();
    test_generic_body();
    test_bytes_bounded();
    test_slack_body();
    test_failed_summary_keeps_the_sweep();
    test_attempts_recorded();
    test_resumed_sweep_replaces_waiting_summary();
    return check_done("test_summary");
}
