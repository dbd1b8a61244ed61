/* serve_history: GET /api/history, `runner history` for the dashboard's
 * history page (docs/serve.md): y across the sweeps the filters pick
 * (name, script, tag, status, plugin, since, until, as `runner sweeps`
 * takes them), grouped by commit or by sweep, computed by
 * analysis/history.c as the command computes it. The answer is the
 * command's `--format json` (columns, rows, written by the same printer)
 * with the changes, their sentences and the regression flag added; bad
 * input a 400 with one line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/sweep_time.h"
#include "base/util.h"
#include "render/render.h"
#include "serve_int.h"

/* The statuses a sweep may have (`runner sweeps --status`). */
static const char *const statuses[] = { "running", "ok", "failed", "interrupted", "error" };

/* The query into q and f (since and until written into their buffers);
 * 0, or -1 with a 400 in reply. */
static int read_query(struct MHD_Connection *connection, history_query *q, store_sweep_filter *f,
                      char since[32], char until[32], servei_reply *reply)
{
    *q = (history_query){
        .y = servei_arg(connection, "y"), .section = 1, .by_commit = 1, .tolerance = 0.05
    };
    *f = (store_sweep_filter){ .name = servei_arg(connection, "name"),
                               .script = servei_arg(connection, "script"),
                               .tag = servei_arg(connection, "tag"),
                               .plugin = servei_arg(connection, "plugin"),
                               .status = servei_arg(connection, "status") };
    if (!q->y) {
        servei_reply_error(reply, 400, "history needs y=COLUMN");
        return -1;
    }
    const char *section = servei_arg(connection, "section");
    if (section) {
        char *end = NULL;
        long long n = strtoll(section, &end, 10);
        if (*end || n < 1 || n > 1000000000) {
            servei_reply_error(reply, 400, "section: expected a section number (1, 2, ...)");
            return -1;
        }
        q->section = (int)n;
    }
    const char *by = servei_arg(connection, "by");
    if (by && strcmp(by, "git_commit") != 0 && strcmp(by, "sweep") != 0) {
        servei_reply_error(reply, 400, "by: expected git_commit or sweep");
        return -1;
    }
    q->by_commit = !by || !strcmp(by, "git_commit");
    const char *tolerance = servei_arg(connection, "tolerance");
    if (tolerance) {
        char *end = NULL;
        double t = strtod(tolerance, &end);
        if (*end || !isfinite(t) || t <= 0 || t > 1e9) {
            servei_reply_error(reply, 400,
                               "tolerance: expected a positive relative tolerance (0.05)");
            return -1;
        }
        q->tolerance = t;
    }
    size_t k = 0, count = sizeof statuses / sizeof statuses[0];
    while (f->status && k < count && strcmp(f->status, statuses[k]) != 0)
        k++;
    if (f->status && k == count) {
        servei_reply_error(reply, 400,
                           "status: expected running, ok, failed, interrupted or error");
        return -1;
    }
    const char *names[2] = { "since", "until" };
    char *outs[2] = { since, until };
    for (int i = 0; i < 2; i++) {
        const char *text = servei_arg(connection, names[i]);
        int parsed = text ? sweep_time_parse(text, outs[i]) : 0;
        if (parsed != 0) {
            char *message = util_format("%s: %sexpected a UTC date (2026-12-01), date and time "
                                        "(2026-12-01T14:30) or an age (90m, 2h, 7d)",
                                        names[i], parsed == -2 ? "no such date or time; " : "");
            servei_reply_error(reply, 400, message ? message : "bad time");
            free(message);
            return -1;
        }
        if (i == 0)
            f->since = text ? since : NULL;
        else
            f->until = text ? until : NULL;
    }
    return 0;
}

/* The command's JSON of the rows (table_view_print, as `runner history
 * --format json` prints it), read back. NULL: out of memory. */
static json_t *rows_json(const table *rows)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return NULL;
    int rc = table_view_print(out, rows, OUTPUT_JSON, 0);
    json_t *root = fclose(out) == 0 && rc == 0 ? json_loadb(text, size, 0, NULL) : NULL;
    free(text);
    return json_is_object(root) ? root : (json_decref(root), NULL);
}

void servei_history(store *s, struct MHD_Connection *connection, servei_reply *reply)
{
    history_query q;
    store_sweep_filter f;
    char since[32], until[32], *err = NULL;
    if (read_query(connection, &q, &f, since, until, reply) != 0)
        return;
    history h;
    int rc = history_compute(s, &f, &q, &h, &err);
    if (rc == 1) {
        servei_reply_error(reply, 400, err);
        free(err);
        return;
    }
    if (rc != 0) {
        servei_reply_fail(reply, err);
        return;
    }
    json_t *root = rows_json(h.rows), *changes = json_array();
    for (size_t k = 0; root && changes && k < h.found; k++) {
        const changepoint *cp = &h.changes[k];
        json_array_append_new(changes,
                              json_pack("{s:I,s:s,s:f,s:f,s:f,s:f,s:s}", "row", (json_int_t)cp->at,
                                        "at", table_cell(h.rows, cp->at, 0)->as.text, "ratio",
                                        cp->ratio, "low", cp->low, "high", cp->high, "p_value",
                                        fmin(1, cp->p_value * (double)(h.rows->row_count - 1)),
                                        "sentence", h.sentences[k]));
    }
    if (!root || !changes) {
        json_decref(root);
        json_decref(changes);
        history_clear(&h);
        servei_reply_fail(reply, NULL);
        return;
    }
    json_object_set_new(root, "y", json_string(q.y));
    json_object_set_new(root, "by", json_string(q.by_commit ? "git_commit" : "sweep"));
    json_object_set_new(root, "tolerance", json_real(q.tolerance));
    json_object_set_new(root, "sweeps", json_integer((json_int_t)h.sweeps));
    json_object_set_new(root, "order", json_string(h.git ? "git" : "start_time"));
    json_object_set_new(root, "changes", changes);
    json_object_set_new(root, "regression", json_boolean(h.regression));
    history_clear(&h);
    servei_reply_json(reply, root);
}
