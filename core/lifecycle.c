/* lifecycle: one sweep from its first section to its delivered summary. The
 * sweep row is begun lazily so that a script rejected up front leaves the
 * database untouched; see lifecycle.h. */
#include "lifecycle.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "digest.h"
#include "exit_status.h"
#include "output.h"
#include "provenance.h"
#include "store.h"
#include "summary.h"
#include "sweep.h"
#include "util.h"
#include "webhook.h"

struct lifecycle {
    lifecycle_config config;
    char script_sha256[DIGEST_HEX_SIZE];
    store *store;
    sweep_run run;
    int begun;
    int ended;                 /* lifecycle_end ran: nothing more is written */
    lifecycle_ending ending;
};

lifecycle *lifecycle_new(const lifecycle_config *config)
{
    lifecycle *lc = calloc(1, sizeof *lc);
    if (!lc)
        return NULL;
    lc->config = *config;
    const char *text = config->script_text ? config->script_text : "";
    if (digest_sha256_hex(text, config->script_text ? config->script_text_len : 0,
                          lc->script_sha256) != 0) {
        free(lc);
        return NULL;
    }
    return lc;
}

void lifecycle_free(lifecycle *lc)
{
    if (!lc)
        return;
    sweep_run_free(&lc->run);
    store_close(lc->store);
    free(lc);
}

int lifecycle_begun(const lifecycle *lc)
{
    return lc->begun;
}

int lifecycle_check_open(const lifecycle *lc, char **err)
{
    if (!lc->ended)
        return 0;
    if (lc->begun)
        *err = util_format("sweep %lld is closed", (long long)lc->run.sweep_id);
    else
        *err = util_strdup("the script has ended");
    return -1;
}

int64_t lifecycle_sweep_id(const lifecycle *lc)
{
    return lc->begun ? lc->run.sweep_id : 0;
}

static void start_run(lifecycle *lc, uint64_t seed)
{
    const lifecycle_config *c = &lc->config;
    lc->run.store = lc->store;
    lc->run.seed = seed;
    lc->run.stop = c->stop;
    lc->run.quiet = c->quiet;
    lc->run.jobs = c->jobs;
    lc->run.isolate = c->isolate;
    lc->run.point_timeout_s = c->point_timeout_s;
    lc->begun = 1;
}

/* 1 if pid is a live process on this host. */
static int process_alive(int64_t pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* Why record cannot be resumed by this process, or NULL when it can. */
static char *resume_refusal(const lifecycle *lc, const store_sweep_record *record,
                            const char *host)
{
    const lifecycle_config *c = &lc->config;
    if (record->id == 0) {
        if (c->resume_sweep_id)
            return util_format("%s: no sweep %lld to resume; 'runner sweeps' lists them",
                               c->db_path, (long long)c->resume_sweep_id);
        return util_format("%s: no earlier sweep of %s to resume; run it without --resume",
                           c->db_path, c->script_path);
    }
    if (strcmp(record->status, "running") == 0 && strcmp(record->host, host) == 0 &&
        record->pid != (int64_t)getpid() && process_alive(record->pid))
        return util_format("%s: sweep %lld is still running (pid %lld on this host); wait for "
                           "it or stop it first", c->db_path, (long long)record->id,
                           (long long)record->pid);
    if (strcmp(record->script_sha256, lc->script_sha256) != 0)
        /* Points of two different scripts must not merge into one sweep. */
        return util_format("%s: sweep %lld ran another version of %s (the text changed "
                           "since); 'runner resume %lld' finishes it with its own text, or "
                           "drop --resume to start a new sweep", c->db_path,
                           (long long)record->id, c->script_path, (long long)record->id);
    return NULL;
}

/* --resume: continue the sweep the config names (or the newest one of this
 * script) with its own seed. Points it stored are read back, not rerun. */
static int reopen_sweep(lifecycle *lc, const char *host, char **err)
{
    store_sweep_record record;
    if (store_find_sweep(lc->store, lc->config.resume_sweep_id, lc->config.script_path,
                         &record, err) != 0)
        return -1;
    char *refusal = resume_refusal(lc, &record, host);
    int64_t sweep_id = record.id;
    uint64_t seed = record.seed;
    store_sweep_record_clear(&record);
    if (refusal) {
        *err = refusal;
        return -1;
    }
    if (store_sweep_reopen(lc->store, sweep_id, (int64_t)getpid(), err) != 0)
        return -1;
    lc->run.sweep_id = sweep_id;
    lc->run.resume = 1;
    start_run(lc, seed);
    return 0;
}

int lifecycle_begin(lifecycle *lc, const char *options_json, const char *overrides_json,
                    char **err)
{
    if (lifecycle_check_open(lc, err) != 0)
        return -1;
    if (lc->begun)
        return 0;
    const lifecycle_config *c = &lc->config;
    if (!lc->store && store_open(c->db_path, &lc->store, err) != 0) {
        if (!*err)
            *err = util_strdup("cannot open the database");
        return -1;
    }
    char host[256];
    provenance_host(host, sizeof host);
    if (c->resume)
        return reopen_sweep(lc, host, err);
    char *git = provenance_git_commit(c->script_path);
    store_sweep_info info = {
        .script_path = c->script_path,
        .script_text = c->script_text,
        .script_sha256 = lc->script_sha256,
        .options_json = options_json ? options_json : "{}",
        .overrides_json = overrides_json ? overrides_json : "{}",
        .runner_version = RUNNER_VERSION,
        .git_commit = git,
        .host = host,
        .command_line = c->command_line ? c->command_line : "",
        .seed = c->seed,
        .started_at = util_now(),
        .pid = (int64_t)getpid(),
    };
    int rc = store_sweep_begin(lc->store, &info, &lc->run.sweep_id, err);
    free(git);
    if (rc != 0) {
        if (!*err)
            *err = util_strdup("cannot begin the sweep");
        return -1;
    }
    start_run(lc, c->seed);
    return 0;
}

/* A copy of t with only the named columns, in that order; NULL on no memory. */
static table *select_columns(const table *t, const char *const *names, size_t n)
{
    table *out = table_new(t->title);
    long *from = calloc(n, sizeof *from);
    value *row = calloc(n, sizeof *row);
    if (!out || !from || !row)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        from[i] = table_find_column(t, names[i]);
        if (from[i] < 0)
            goto fail;
        const table_column *c = &t->columns[from[i]];
        if (table_add_column(out, c->name, c->unit, c->type, c->is_param) != 0)
            goto fail;
    }
    for (size_t r = 0; r < t->row_count; r++) {
        for (size_t i = 0; i < n; i++)
            if (value_copy(&row[i], table_cell(t, r, (size_t)from[i])) != 0)
                goto fail;
        if (table_append_row(out, row) != 0)
            goto fail;
    }
    free(from);
    free(row);
    return out;
fail:
    free(from);
    free(row);
    table_free(out);
    return NULL;
}

static void print_rows(const lifecycle_section *section, const table *rows)
{
    table *printed = section->shown_count
                         ? select_columns(rows, section->shown, section->shown_count) : NULL;
    output_table_text_head(stdout, printed ? printed : rows, LIFECYCLE_PRINTED_ROWS_MAX);
    table_free(printed);
    fputc('\n', stdout);
    fflush(stdout);
}

int lifecycle_run_section(lifecycle *lc, const lifecycle_section *section, table **rows,
                          lifecycle_section_result *result, char **err)
{
    *result = (lifecycle_section_result){ 0 };
    if (rows)
        *rows = NULL;
    if (lifecycle_check_open(lc, err) != 0)
        return -1;
    if (!lc->begun)
        return util_fail(err, "the sweep was not begun");
    sweep_section_options options = {
        .title = section->title, .script_line = section->script_line,
        .fail_fast = lc->config.fail_fast,
    };
    uint64_t failed_before = lc->run.points_failed;
    /* Rows are kept only when someone reads them: a sweep of millions of
     * points streams straight to the database. */
    table *kept = NULL;
    int want_rows = rows || section->print_rows;
    if (sweep_run_section(&lc->run, section->plugin, section->grid, &options,
                          want_rows ? &kept : NULL, err) != 0) {
        if (!*err)
            *err = util_strdup("storing failed");
        return -1;
    }
    if (lc->run.interrupted) {
        table_free(kept);
        result->interrupted = 1;
        return 0;
    }
    if (section->print_rows && kept)
        print_rows(section, kept);
    result->points_failed = lc->run.points_failed - failed_before;
    if (rows)
        *rows = kept;
    else
        table_free(kept);
    return 0;
}

static int exit_status_of(const lifecycle *lc, lifecycle_ending ending)
{
    switch (ending) {
    case LIFECYCLE_FINISHED:
        return lc->run.points_failed > 0 ? EXIT_POINTS_FAILED : EXIT_OK;
    case LIFECYCLE_FAILED_FAST:
        return EXIT_POINTS_FAILED;
    case LIFECYCLE_INTERRUPTED:
        return EXIT_INTERRUPTED;
    default:
        return EXIT_USAGE;
    }
}

static const char *sweep_status_of(int exit_status)
{
    return exit_status == EXIT_OK ? "ok"
         : exit_status == EXIT_POINTS_FAILED ? "failed"
         : exit_status == EXIT_INTERRUPTED ? "interrupted" : "error";
}

char *lifecycle_summary_line(const lifecycle *lc)
{
    if (!lc->begun)
        return NULL;
    const sweep_run *run = &lc->run;
    if (lc->ending == LIFECYCLE_STORE_FAILED)
        /* The batch that failed was rolled back: counts would overstate. */
        return util_format("runner: sweep %lld stopped in %s after a storage error; what was "
                           "committed is kept, and --resume finishes the sweep",
                           (long long)run->sweep_id, lc->config.db_path);
    if (run->points_skipped)
        return util_format("runner: sweep %lld resumed in %s: %llu points ok, %llu failed, "
                           "%llu already stored", (long long)run->sweep_id, lc->config.db_path,
                           (unsigned long long)run->points_ok,
                           (unsigned long long)run->points_failed,
                           (unsigned long long)run->points_skipped);
    return util_format("runner: sweep %lld stored in %s: %llu points ok, %llu failed",
                       (long long)run->sweep_id, lc->config.db_path,
                       (unsigned long long)run->points_ok,
                       (unsigned long long)run->points_failed);
}

/* Sends the summary queued in outbox (or says why there is none). Returns 1
 * when it was delivered. */
static int deliver_summary(lifecycle *lc, store_outbox_request *outbox)
{
    if (outbox->error) {
        fprintf(stderr, "runner: warning: no webhook summary for sweep %lld: %s\n",
                (long long)lc->run.sweep_id, outbox->error);
        return 0;
    }
    if (!outbox->id)
        return 0;
    return webhook_send_summary(lc->store, outbox->id, lc->run.sweep_id, lc->config.db_path,
                                lc->config.webhook) == WEBHOOK_DELIVERED;
}

int lifecycle_end(lifecycle *lc, lifecycle_ending ending)
{
    const lifecycle_config *c = &lc->config;
    int status = exit_status_of(lc, ending);
    lc->ending = ending;
    lc->ended = 1;
    fflush(stdout); /* the script's own lines come before the summary on a terminal */
    if (!lc->begun)
        return status;
    /* A webhook's summary is queued in the transaction that closes the
     * sweep, and sent once it is committed. */
    summary_options summary = { .format = (summary_format)c->webhook_format,
                                .db_path = c->db_path };
    store_outbox_request outbox = { .format = summary_format_name(summary.format),
                                    .build = summary_build, .ctx = &summary };
    char *err = NULL;
    if (store_sweep_end_with_outbox(lc->store, lc->run.sweep_id, sweep_status_of(status),
                                    util_now(), c->webhook ? &outbox : NULL, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        status = EXIT_USAGE;
    }
    char *line = lifecycle_summary_line(lc);
    if (line)
        fprintf(stderr, "%s\n", line);
    free(line);
    if (c->webhook) {
        int delivered = deliver_summary(lc, &outbox);
        free(outbox.error);
        if (!delivered && c->webhook_strict && status == EXIT_OK)
            status = EXIT_NOT_DELIVERED;
    }
    return status;
}
