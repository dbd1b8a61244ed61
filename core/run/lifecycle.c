/* lifecycle: one sweep from its first section to its delivered summary. The
 * sweep row is begun lazily so that a script rejected up front leaves the
 * database untouched; see lifecycle.h. */
#include "lifecycle.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <jansson.h>

#include "base/digest.h"
#include "base/exit_status.h"
#include "base/lease.h"
#include "base/log.h"
#include "base/machine.h"
#include "base/netfs.h"
#include "base/provenance.h"
#include "base/scheduler.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "exec/exec.h"
#include "machine_facts.h"
#include "notify/notify.h"
#include "render/render.h"
#include "store/store.h"
#include "sweep.h"
#include "run_int.h"

struct lifecycle {
    lifecycle_config config;
    char script_sha256[DIGEST_HEX_SIZE];
    store *store;
    sweep_run run;
    int begun;
    int ended; /* lifecycle_end ran: nothing more is written */
    lifecycle_ending ending;
    double resumed_ended_at; /* resume: the end the sweep had recorded; 0: none */
    store_lease *lease;      /* renews the sweep's lease from begin to end (owned) */
    machine_facts machine;   /* recorded when this run began the sweep; empty on resume */
    int machine_judged;      /* the first measured section judged the machine */
    char *printed;           /* what the script printed, kept at the end (owned) */
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

static void close_series(lifecycle *lc);

void lifecycle_free(lifecycle *lc)
{
    if (!lc)
        return;
    store_lease_stop(lc->lease);
    machine_facts_clear(&lc->machine);
    close_series(lc);
    sweep_run_free(&lc->run);
    store_close(lc->store);
    free(lc->printed);
    free(lc);
}

int lifecycle_begun(const lifecycle *lc) { return lc->begun; }

int lifecycle_keep_printed(lifecycle *lc, const char *text)
{
    char *copy = util_strdup(text ? text : "");
    if (!copy)
        return -1;
    free(lc->printed);
    lc->printed = copy;
    return 0;
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

int64_t lifecycle_sweep_id(const lifecycle *lc) { return lc->begun ? lc->run.sweep_id : 0; }

static void start_run(lifecycle *lc, uint64_t seed)
{
    lc->run.options = lc->config.options;
    lc->run.store = lc->store;
    lc->run.seed = seed;
    lc->begun = 1;
    /* Series are an addition: a writer that cannot open costs them only. */
    char *err = NULL;
    if (store_series_open(lc->config.options->db_path, &lc->run.series, &err) != 0) {
        log_print(LOG_LEVEL_WARN, "runner: warning: no series will be kept: %s\n",
                  err ? err : "out of memory");
        free(err);
    }
}

/* Writes the series still queued; says what a failed write lost. */
static void close_series(lifecycle *lc)
{
    char *err = NULL;
    if (store_series_close(lc->run.series, &err) != 0)
        log_print(LOG_LEVEL_WARN, "runner: warning: %s\n", err ? err : "cannot store series");
    free(err);
    lc->run.series = NULL;
}

/* Asks Slurm about the recorded job, except when it is this process's own
 * job: a requeued job runs again under its id, so "running" would be us. */
static scheduler_answer ask_scheduler(const char *job_id, void *arg)
{
    const sweep_lease *mine = arg;
    char own[72];
    lease_scheduler_id(mine, own, sizeof own);
    if (strcmp(job_id, own) == 0)
        return SCHEDULER_UNKNOWN;
    return scheduler_job_state(job_id, SCHEDULER_TIMEOUT_S);
}

/* Why the process recorded in sweep id may still be running it, or NULL
 * when it is not (or when --force settles a doubt). A process we can prove
 * is alive is never overridden; a lease that has not expired is a doubt
 * --force settles (a host whose clock is wrong keeps it fresh). */
static char *liveness_refusal(const lifecycle *lc, int64_t id, const process_identity *recorded,
                              const sweep_lease *lease, const process_identity *self,
                              const sweep_lease *mine, double *requeue_wait_s)
{
    *requeue_wait_s = 0;
    const char *db = lc->config.options->db_path;
    long long sweep = (long long)id, pid = (long long)recorded->pid;
    double now_s = util_now();
    sweep_liveness liveness =
        lease_judge(recorded, lease, self, now_s, ask_scheduler, (void *)mine);
    if (liveness == SWEEP_GONE)
        return NULL;
    if (liveness == SWEEP_ALIVE_HERE)
        return util_format("%s: sweep %lld is still running (pid %lld on this host); wait for "
                           "it or stop it first",
                           db, sweep, pid);
    if (lc->config.options->force)
        return NULL;
    if (liveness == SWEEP_LEASED) {
        char job[80] = "", text[72];
        lease_job_text(lease, text, sizeof text);
        if (text[0])
            snprintf(job, sizeof job, ", %s", text);
        double left_s = lease_expires_at(lease) - now_s;
        /* Slurm runs a requeued job again under its id once it holds the
         * earlier run ended (a node set DOWN): that run can only still be
         * alive if its node is cut off, and then it keeps renewing. */
        if (mine->slurm_job_id[0] && strcmp(lease->slurm_job_id, mine->slurm_job_id) == 0)
            *requeue_wait_s = left_s;
        long long left = (long long)left_s + ((double)(long long)left_s < left_s);
        return util_format("%s: sweep %lld is still running on host %s (pid %lld%s); its lease "
                           "expires in %lld s: resume it then, or stop it first",
                           db, sweep, recorded->host[0] ? recorded->host : "?", pid, job, left);
    }
    if (liveness == SWEEP_SUSPENDED) {
        char job[72];
        lease_job_text(lease, job, sizeof job);
        return util_format("%s: sweep %lld is suspended by its scheduler (%s on host %s, pid "
                           "%lld); it goes on when resumed: cancel it first, or take it over "
                           "with 'runner resume %lld --force' (the suspended process then stops "
                           "at its next batch)",
                           db, sweep, job, recorded->host[0] ? recorded->host : "?", pid, sweep);
    }
    if (liveness == SWEEP_OTHER_HOST)
        return util_format("%s: sweep %lld is still running on host %s (pid %lld) or was left "
                           "by a process that died; if it is not running, 'runner resume %lld "
                           "--force'",
                           db, sweep, recorded->host, pid, sweep);
    return util_format("%s: sweep %lld may still be running (pid %lld on this host is alive, "
                       "but the sweep does not record which process started it); if it is not "
                       "running, 'runner resume %lld --force'",
                       db, sweep, pid, sweep);
}

/* liveness_refusal for sweep id, after waiting once for the lease of an
 * earlier run of this very Slurm job (requeued) to expire: unattended, a
 * refusal would fail the requeued job for a lease that lapses in seconds.
 * A lease renewed meanwhile means that run lives on: refused. */
static char *requeue_refusal(const lifecycle *lc, int64_t id, const process_identity *self,
                             const sweep_lease *mine, char **err)
{
    for (int waited = 0;; waited = 1) {
        process_identity recorded;
        sweep_lease lease;
        if (store_sweep_process(lc->store, id, &recorded, &lease, err) != 0)
            return NULL;
        double wait_s;
        char *refusal = liveness_refusal(lc, id, &recorded, &lease, self, mine, &wait_s);
        if (!refusal || waited || !(wait_s > 0))
            return refusal;
        free(refusal);
        char job[72];
        lease_job_text(&lease, job, sizeof job);
        log_print(LOG_LEVEL_WARN,
                  "runner: sweep %lld: an earlier run of %s on host %s holds its lease; "
                  "waiting %.1f s for it to expire\n",
                  (long long)id, job, recorded.host[0] ? recorded.host : "?", wait_s);
        /* A little past the expiry, so that this host's clock agrees. */
        util_nap_s(wait_s + 0.05);
    }
}

/* Why a resume with c->shard cannot continue record, which ran another
 * shard (or none). */
static char *shard_refusal(const sweep_options *c, const store_sweep_record *record)
{
    long long id = (long long)record->id;
    if (!record->shard_count)
        return util_format("%s: sweep %lld is not sharded; resume it without --shard", c->db_path,
                           id);
    if (!c->shard.count)
        return util_format("%s: sweep %lld ran shard %u/%u; resume it with --shard %u/%u (or "
                           "'runner resume %lld')",
                           c->db_path, id, record->shard_index, record->shard_count,
                           record->shard_index, record->shard_count, id);
    return util_format("%s: sweep %lld ran shard %u/%u, not %u/%u; each shard resumes in its own "
                       "database",
                       c->db_path, id, record->shard_index, record->shard_count, c->shard.index,
                       c->shard.count);
}

/* overrides_json as the --set options that made it ("--set a=1 --set
 * b=2", or "no --set"), malloc'd. */
static char *overrides_shown(const char *overrides_json)
{
    json_t *overrides = json_loads(overrides_json ? overrides_json : "{}", 0, NULL);
    strbuf b = { 0 };
    const char *key;
    json_t *value;
    json_object_foreach(overrides, key, value)
    {
        char *text = json_is_string(value) ? NULL : json_dumps(value, JSON_ENCODE_ANY);
        strbuf_printf(&b, "%s--set %s=%s", b.len ? " " : "", key,
                      text ? text : json_string_value(value));
        free(text);
    }
    json_decref(overrides);
    if (!b.len)
        strbuf_str(&b, "no --set");
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data;
}

/* Why a resume of record with this run's --set values or seed cannot
 * continue it: its points came from another grid (two grids would mix in
 * one sweep, and a shard's merge would fail). NULL when they are the same. */
static char *grid_refusal(const lifecycle *lc, const store_sweep_record *record,
                          const char *overrides_json)
{
    const sweep_options *c = lc->config.options;
    long long id = (long long)record->id;
    const char *now = overrides_json ? overrides_json : "{}";
    int seed_differs = c->seed_given && c->seed != record->seed;
    if (strcmp(record->overrides_json ? record->overrides_json : "{}", now) == 0 && !seed_differs)
        return NULL;
    char *then_shown = seed_differs ? util_format("--seed %llu", (unsigned long long)record->seed)
                                    : overrides_shown(record->overrides_json);
    char *now_shown = seed_differs ? util_format("--seed %llu", (unsigned long long)c->seed)
                                   : overrides_shown(now);
    char *refusal =
        record->shard_count
            ? util_format("%s: the shard's database holds sweep %lld (shard %u/%u) made with %s; "
                          "this run has %s: use a new --db-dir (runner slurm) or remove %s",
                          c->db_path, id, record->shard_index, record->shard_count,
                          then_shown ? then_shown : "?", now_shown ? now_shown : "?", c->db_path)
            : util_format("%s: sweep %lld was made with %s; this run has %s: 'runner resume %lld' "
                          "finishes it as it began, or drop --resume to start a new sweep",
                          c->db_path, id, then_shown ? then_shown : "?",
                          now_shown ? now_shown : "?", id);
    free(then_shown);
    free(now_shown);
    return refusal;
}

/* Why record cannot be resumed by this process, or NULL when it can. */
static char *resume_refusal(const lifecycle *lc, const store_sweep_record *record,
                            const process_identity *self, const sweep_lease *mine,
                            const char *overrides_json, char **err)
{
    const sweep_options *c = lc->config.options;
    if (record->id == 0) {
        if (c->resume_sweep_id)
            return util_format("%s: no sweep %lld to resume; 'runner sweeps' lists them",
                               c->db_path, (long long)c->resume_sweep_id);
        return util_format("%s: no earlier sweep of %s to resume; run it without --resume",
                           c->db_path, lc->config.script_path);
    }
    if (strcmp(record->status, "running") == 0 && record->pid != self->pid) {
        char *refusal = requeue_refusal(lc, record->id, self, mine, err);
        if (refusal || *err)
            return refusal;
    }
    if (record->shard_index != c->shard.index || record->shard_count != c->shard.count)
        /* A shard's database holds that shard's points only. */
        return shard_refusal(c, record);
    if (record->shard_by_identity)
        /* Its points were chosen by identity: this runner would choose others. */
        return util_format("%s: sweep %lld is shard %u/%u as an older runner chose it (points by "
                           "identity, not ordinal); finish it with that runner, or run every "
                           "shard again with this one into new databases",
                           c->db_path, (long long)record->id, record->shard_index,
                           record->shard_count);
    if (strcmp(record->script_sha256, lc->script_sha256) != 0)
        /* Points of two different scripts must not merge into one sweep. */
        return util_format("%s: sweep %lld ran another version of %s (the text changed "
                           "since); 'runner resume %lld' finishes it with its own text, or "
                           "drop --resume to start a new sweep",
                           c->db_path, (long long)record->id, lc->config.script_path,
                           (long long)record->id);
    return grid_refusal(lc, record, overrides_json);
}

/* --resume: continue the sweep the config names (or the newest one of this
 * script) with its own seed. Points it stored are read back, not rerun. */
static int reopen_sweep(lifecycle *lc, const process_identity *self, const sweep_lease *mine,
                        const char *overrides_json, char **err)
{
    store_sweep_record record;
    if (store_find_sweep(lc->store, lc->config.options->resume_sweep_id, lc->config.script_path,
                         &record, err) != 0)
        return -1;
    char *read_err = NULL;
    char *refusal = resume_refusal(lc, &record, self, mine, overrides_json, &read_err);
    int64_t sweep_id = record.id;
    uint64_t seed = record.seed;
    lc->resumed_ended_at = record.ended_at;
    store_sweep_record_clear(&record);
    if (read_err) {
        free(refusal);
        *err = read_err;
        return -1;
    }
    if (refusal) {
        *err = refusal;
        return -1;
    }
    /* Claimed first: a reader never sees it 'running' with the new pid but
     * the dead process's start time (runner_sweep_status would call that
     * gone). */
    if (store_sweep_claim(lc->store, sweep_id, self, mine, err) != 0 ||
        store_sweep_reopen(lc->store, sweep_id, self->pid, err) != 0)
        return -1;
    lc->run.sweep_id = sweep_id;
    start_run(lc, seed);
    return 0;
}

/* Renews the lease of the sweep just begun or reopened until lifecycle_end. */
static int start_lease(lifecycle *lc, const process_identity *self, const sweep_lease *mine,
                       char **err)
{
    if (store_lease_start(lc->config.options->db_path, lc->run.sweep_id, self, mine->period_s,
                          &lc->lease, err) != 0)
        return -1;
    lc->run.lease = lc->lease;
    return 0;
}

int lifecycle_begin(lifecycle *lc, const char *options_json, const char *overrides_json, char **err)
{
    if (lifecycle_check_open(lc, err) != 0)
        return -1;
    if (lc->begun)
        return 0;
    const sweep_options *c = lc->config.options;
    if (!lc->store && store_open(c->db_path, &lc->store, err) != 0) {
        if (!*err)
            *err = util_strdup("cannot open the database");
        return -1;
    }
    /* Said, not refused: one process alone on such a file is fine. */
    const char *netfs = netfs_name(c->db_path);
    if (netfs)
        log_print(LOG_LEVEL_WARN,
                  "runner: warning: %s is on %s, where SQLite's locks do not hold between hosts: "
                  "if processes on several nodes write it, give each node its own database on "
                  "local disk and merge them, as 'runner slurm' does (docs/guarantees.md, "
                  "\"Where databases live\")\n",
                  c->db_path, netfs);
    process_identity self;
    process_identity_self(&self);
    sweep_lease mine = { .renewed_at_s = util_now(),
                         .period_s =
                             c->lease_period_s > 0 ? c->lease_period_s : LEASE_PERIOD_DEFAULT_S };
    lease_scheduler_self(&mine);
    if (c->resume)
        return reopen_sweep(lc, &self, &mine, overrides_json, err) == 0
                   ? start_lease(lc, &self, &mine, err)
                   : -1;
    char *git = provenance_git_commit(lc->config.script_path);
    store_sweep_info info = {
        .script_path = lc->config.script_path,
        .script_text = lc->config.script_text,
        .script_sha256 = lc->script_sha256,
        .options_json = options_json ? options_json : "{}",
        .overrides_json = overrides_json ? overrides_json : "{}",
        .runner_version = RUNNER_VERSION,
        .git_commit = git,
        .host = self.host,
        .command_line = c->command_line ? c->command_line : "",
        .seed = c->seed,
        .started_at = util_now(),
        .pid = self.pid,
        .name = c->sweep_name,
        .note = c->sweep_note,
        .tags = c->sweep_tags,
        .tag_count = c->sweep_tag_count,
    };
    int rc = store_sweep_begin(lc->store, &info, &lc->run.sweep_id, err);
    if (rc == 0 && machine_facts_read(&lc->machine, lc->config.lua_version) != 0)
        rc = util_fail(err, "out of memory");
    if (rc == 0)
        rc = store_sweep_machine_write(lc->store, lc->run.sweep_id, &lc->machine, err);
    if (rc == 0)
        rc = store_sweep_claim(lc->store, lc->run.sweep_id, &self, &mine, err);
    if (rc == 0 && c->shard.count)
        rc = store_sweep_shard(lc->store, lc->run.sweep_id, c->shard.index, c->shard.count, err);
    if (rc == 0)
        rc = start_lease(lc, &self, &mine, err);
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

/* 1 if the parameter named is one the grid sweeps (an axis), read from
 * the swept JSON of its first point; the others hold one value on every
 * row, so only these need reading back to know if they vary. */
static int param_is_swept(const json_t *swept, const char *name)
{
    return !swept || json_object_get(swept, name) != NULL;
}

/* Which of cols's parameters vary over the section's rows: the head's rows
 * say for most; an axis the head does not show varying is checked in SQL. */
static int find_varying(lifecycle *lc, const lifecycle_section *section, int64_t section_id,
                        output_text_layout *layout, char **err)
{
    json_t *swept = NULL;
    char buf[4096];
    long len =
        grid_point_count(section->grid) ? grid_point_swept(section->grid, 0, buf, sizeof buf) : -1;
    if (len >= 0 && (size_t)len < sizeof buf)
        swept = json_loads(buf, 0, NULL);
    const table *cols = layout->columns;
    int rc = 0;
    for (size_t c = 0; c < cols->column_count && rc == 0; c++)
        if (cols->columns[c].is_param && !layout->varies[c] && cols->row_count > 0 &&
            param_is_swept(swept, cols->columns[c].name))
            rc = store_section_column_varies(lc->store, section_id, section->plugin->desc->name,
                                             cols->columns[c].name, &layout->first[c],
                                             &layout->varies[c], err);
    json_decref(swept);
    return rc;
}

/* Reads up to LIFECYCLE_PRINTED_ROWS_MAX rows of the section into cols. */
static int read_head(lifecycle *lc, const char *plugin, int64_t section_id, table *cols, char **err)
{
    store_cursor *cursor = NULL;
    value *row = calloc(cols->column_count ? cols->column_count : 1, sizeof *row);
    if (!row)
        return util_fail(err, "out of memory");
    int rc = store_cursor_open(lc->store, section_id, plugin, cols, NULL, NULL, 0, &cursor, err);
    while (rc == 0 && cols->row_count < LIFECYCLE_PRINTED_ROWS_MAX) {
        int step = store_cursor_next(cursor, row, NULL, err);
        if (step <= 0) {
            rc = step;
            break;
        }
        if (table_append_row(cols, row) != 0)
            rc = util_fail(err, "out of memory");
    }
    for (size_t c = 0; c < cols->column_count; c++)
        value_clear(&row[c]);
    free(row);
    store_cursor_close(cursor);
    return rc;
}

/* At a terminal, where a person reads it: the section as `runner show`
 * shows it (section_view.h's rule over every stored row: what varies,
 * constants folded on one line, fitted to the terminal's width), with the
 * rows of cols (the head read back). A pipe keeps print_rows's own layout,
 * which scripts may parse. */
static int print_view(lifecycle *lc, const runner_plugin *plugin, int64_t section_id,
                      const table *cols, int64_t count, size_t width, char **err)
{
    table_facts facts = { 0 };
    section_view view = { 0 };
    output_text_layout layout = { 0 };
    char **settings = NULL;
    if (section_view_read_facts(lc->store, section_id, plugin->name, cols, &facts, err) != 0)
        return -1;
    int rc = -1;
    if (section_view_init(&view, cols, &facts, plugin->name) != 0 ||
        !(settings = section_view_settings(&view, cols, &facts)) ||
        output_text_layout_init(&layout, cols) != 0) {
        util_fail(err, "out of memory");
        goto done;
    }
    for (size_t r = 0; r < cols->row_count; r++)
        output_text_layout_widen(&layout, table_cell(cols, r, 0));
    layout.row_count = (size_t)count;
    layout.wide_hint = "runner show --wide";
    output_text_layout_set_view(&layout, view.shown, view.shown_count,
                                (const char *const *)settings, view.folded_count, width);
    output_text_layout_print_head(stdout, &layout);
    for (size_t r = 0; view.shown_count && r < cols->row_count; r++)
        output_text_layout_print_row(stdout, &layout, table_cell(cols, r, 0));
    if (view.shown_count && (int64_t)cols->row_count < count)
        output_text_more_rows(stdout, (size_t)count - cols->row_count);
    rc = 0;
done:
    output_text_layout_clear(&layout);
    section_view_free_settings(settings, view.folded_count);
    section_view_clear(&view);
    table_facts_clear(&facts);
    return rc;
}

/* Prints the section's first rows as output_table_text_head prints a table
 * holding them all, reading them back from the store: the head, the count
 * and which parameters vary are all the printing needs. */
static int print_rows(lifecycle *lc, const lifecycle_section *section, char **err)
{
    const runner_plugin *plugin = section->plugin->desc;
    int64_t section_id = 0, count = 0;
    /* Numbered by its place in the sweep, as the dashboard and report
     * number it, so the printed sections can be told apart and found. */
    char *numbered = section->title && section->title[0]
                         ? util_format("%lld. %s", (long long)lc->run.section_count, section->title)
                         : NULL;
    table *all = store_plugin_columns(plugin, numbered ? numbered : section->title);
    free(numbered);
    table *cols = all && section->shown_count
                      ? select_columns(all, section->shown, section->shown_count)
                      : all;
    output_text_layout layout = { 0 };
    int rc = -1;
    if (!cols || output_text_layout_init(&layout, cols) != 0) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (store_section_find(lc->store, lc->run.sweep_id, lc->run.section_count, &section_id, err) !=
            0 ||
        read_head(lc, plugin->name, section_id, cols, err) != 0 ||
        store_section_row_count(lc->store, section_id, plugin->name, &count, err) != 0)
        goto done;
    size_t width = output_terminal_width(stdout, 0);
    if (width) {
        if (print_view(lc, plugin, section_id, cols, count, width, err) != 0)
            goto done;
        fputc('\n', stdout);
        fflush(stdout);
        rc = 0;
        goto done;
    }
    for (size_t r = 0; r < cols->row_count; r++) {
        output_text_layout_note(&layout, table_cell(cols, r, 0));
        output_text_layout_widen(&layout, table_cell(cols, r, 0));
    }
    layout.row_count = (size_t)count;
    if (count > (int64_t)cols->row_count &&
        find_varying(lc, section, section_id, &layout, err) != 0)
        goto done;
    output_text_layout_print_head(stdout, &layout);
    for (size_t r = 0; r < cols->row_count; r++)
        output_text_layout_print_row(stdout, &layout, table_cell(cols, r, 0));
    if ((int64_t)cols->row_count < count)
        output_text_more_rows(stdout, (size_t)count - cols->row_count);
    fputc('\n', stdout);
    fflush(stdout);
    rc = 0;
done:
    output_text_layout_clear(&layout);
    if (cols != all)
        table_free(cols);
    table_free(all);
    return rc;
}

/* A measured section times its points to compare them: a command with
 * repeats (docs/command-experiments.md). The first one of a sweep judges
 * the machine once and warns, on one line, when it is not fit to measure
 * on; the sweep goes on. */
static void judge_machine(lifecycle *lc, const runner_plugin *plugin)
{
    if (lc->machine_judged || !exec_is_command(plugin) || exec_repeats(plugin) < 2)
        return;
    lc->machine_judged = 1;
    machine_facts here = { 0 };
    const machine_facts *m = &lc->machine;
    if (m->count == 0) { /* resumed: this run recorded nothing */
        if (machine_facts_read(&here, lc->config.lua_version) != 0)
            return;
        m = &here;
    }
    int jobs = lc->config.options->jobs, cap = exec_max_jobs(plugin);
    char *warning = machine_facts_warning(m, cap > 0 && cap < jobs ? cap : jobs);
    if (warning)
        log_print(LOG_LEVEL_WARN, "%s\n", warning);
    free(warning);
    machine_facts_clear(&here);
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
    judge_machine(lc, section->plugin->desc);
    sweep_section_options options = {
        .title = section->title,
        .script_line = section->script_line,
    };
    uint64_t failed_before = lc->run.points_failed;
    /* Rows are kept only when the caller asks: printing and the script's
     * view read them back from the store, so a sweep of millions of points
     * streams straight to the database. */
    table *kept = NULL;
    if (sweep_run_section(&lc->run, section->plugin, section->grid, &options, rows ? &kept : NULL,
                          err) != 0) {
        if (!*err)
            *err = util_strdup("storing failed");
        return -1;
    }
    if (lc->run.interrupted) {
        table_free(kept);
        result->interrupted = 1;
        return 0;
    }
    if (section->print_rows && print_rows(lc, section, err) != 0) {
        table_free(kept);
        return -1;
    }
    result->points_failed = lc->run.points_failed - failed_before;
    result->failures_stopped = lc->run.failures_stopped[0] ? lc->run.failures_stopped : NULL;
    result->section_ordinal = lc->run.section_count;
    if (rows)
        *rows = kept;
    return 0;
}

static int exit_status_of(const lifecycle *lc, lifecycle_ending ending)
{
    switch (ending) {
    case LIFECYCLE_FINISHED: return lc->run.points_failed > 0 ? EXIT_POINTS_FAILED : EXIT_OK;
    case LIFECYCLE_FAILED_FAST: return EXIT_POINTS_FAILED;
    case LIFECYCLE_INTERRUPTED: return EXIT_INTERRUPTED;
    default: return EXIT_USAGE;
    }
}

static const char *sweep_status_of(int exit_status)
{
    return exit_status == EXIT_OK              ? "ok"
           : exit_status == EXIT_POINTS_FAILED ? "failed"
           : exit_status == EXIT_INTERRUPTED   ? "interrupted"
                                               : "error";
}

char *lifecycle_summary_line(const lifecycle *lc)
{
    if (!lc->begun)
        return NULL;
    const sweep_run *run = &lc->run;
    if (lc->ending == LIFECYCLE_STORE_FAILED && run->ranks_not_ready)
        /* Nothing failed to store: a rank lacks the plugin, or has another
         * build of it (the line before says which). */
        return util_format("runner: sweep %lld stopped in %s before section %d ran: not every "
                           "rank can run its plugin; what was committed is kept, and once every "
                           "rank has the same plugins --resume finishes the sweep",
                           (long long)run->sweep_id, lc->config.options->db_path,
                           run->section_count);
    if (lc->ending == LIFECYCLE_STORE_FAILED)
        /* The batch that failed was rolled back: counts would overstate. */
        return util_format("runner: sweep %lld stopped in %s after a storage error; what was "
                           "committed is kept, and --resume finishes the sweep",
                           (long long)run->sweep_id, lc->config.options->db_path);
    char *line;
    if (run->points_skipped)
        line =
            util_format("runner: sweep %lld resumed in %s: %llu points ok, %llu failed, "
                        "%llu already stored",
                        (long long)run->sweep_id, lc->config.options->db_path,
                        (unsigned long long)run->points_ok, (unsigned long long)run->points_failed,
                        (unsigned long long)run->points_skipped);
    else
        line =
            util_format("runner: sweep %lld stored in %s: %llu points ok, %llu failed",
                        (long long)run->sweep_id, lc->config.options->db_path,
                        (unsigned long long)run->points_ok, (unsigned long long)run->points_failed);
    if (line && lc->config.options->reuse) {
        /* --reuse: how many of the ok points were copied, not run */
        char *with = util_format("%s, %llu reused", line, (unsigned long long)run->points_reused);
        free(line);
        line = with;
    }
    return line;
}

/* Sends the summary queued in outbox (or says why there is none). Returns 1
 * when it was delivered. */
static int deliver_summary(lifecycle *lc, store_outbox_request *outbox)
{
    if (outbox->error) {
        log_print(LOG_LEVEL_WARN, "runner: warning: no webhook summary for sweep %lld: %s\n",
                  (long long)lc->run.sweep_id, outbox->error);
        return 0;
    }
    if (!outbox->id)
        return 0;
    return webhook_send_summary(lc->store, outbox->id, lc->run.sweep_id,
                                lc->config.options->db_path,
                                lc->config.options->webhook) == WEBHOOK_DELIVERED;
}

int lifecycle_end(lifecycle *lc, lifecycle_ending ending)
{
    const sweep_options *c = lc->config.options;
    int status = exit_status_of(lc, ending);
    lc->ending = ending;
    lc->ended = 1;
    fflush(stdout); /* the script's own lines come before the summary on a terminal */
    if (!lc->begun)
        return status;
    /* Every series value is in the file before the sweep says it ended. */
    close_series(lc);
    /* No renewal contends with the end, and none follows it. */
    store_lease_stop(lc->lease);
    lc->lease = lc->run.lease = NULL;
    /* Taken over (fencing): the line is printed; the sweep is its new
     * owner's, so nothing is closed, counted or sent from here. */
    if (store_taken_over(lc->store))
        return EXIT_TAKEN_OVER;
    char *err = NULL;
    /* The script's own lines (its findings) stay with the sweep. */
    if (lc->printed &&
        store_sweep_printed_set(lc->store, lc->run.sweep_id, lc->printed, &err) != 0) {
        fprintf(stderr, "runner: warning: %s\n", err);
        free(err);
        err = NULL;
    }
    /* A webhook's summary is queued in the transaction that closes the
     * sweep, and sent once it is committed. */
    summary_options summary = { .format = (summary_format)c->webhook_format,
                                .db_path = c->db_path };
    store_outbox_request outbox = { .format = summary_format_name(summary.format),
                                    .build = summary_build,
                                    .ctx = &summary };
    /* A resume that ran no point leaves the sweep's times as they were. */
    double ended_at = c->resume && lc->resumed_ended_at > 0 && lc->run.points_ok == 0 &&
                              lc->run.points_failed == 0
                          ? lc->resumed_ended_at
                          : util_now();
    if (lc->machine.count > 0) {
        /* the load over the sweep's last minute, beside the one before it */
        char load[64];
        machine_load_average(load, sizeof load);
        if (store_sweep_machine_set(lc->store, lc->run.sweep_id, "load_end", load, &err) != 0) {
            log_print(LOG_LEVEL_WARN, "runner: warning: %s\n", err);
            free(err);
            err = NULL;
        }
    }
    if (store_sweep_end_with_outbox(lc->store, lc->run.sweep_id, sweep_status_of(status), ended_at,
                                    c->webhook ? &outbox : NULL, &err) != 0) {
        log_print(LOG_LEVEL_ERROR, "runner: %s\n", err);
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
