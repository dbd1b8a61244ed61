/* sweep: the point loop of one section. The points run here (inline for
 * one job, or on --jobs threads: sweep_threads.c) or under MPI on the
 * worker ranks (rank 0's side: sweep_mpi.c; the workers': sweep_serve.c);
 * whichever runs them, one writer stores them in point order through the
 * same reorder window and write_point, so rows, their order and their ids
 * are the same for any number of jobs or ranks. */
#include "sweep_int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/progress.h"
#include "base/util.h"
#include "exec/exec.h"
#include "plugin/plugin.h"

const char *const sweepi_status_names[4] = { "ok", "failed", "crashed", "timeout" };

int sweepi_stopping(const sweep_run *run)
{
    const volatile sig_atomic_t *stop = run->options->stop;
    return stop && *stop;
}

/* The reorder window: slots per --jobs thread, at most and at least, and the
 * values (parameters and row cells, about 30 bytes each with their text)
 * that finished points may hold in it, about 8 MB. */
#define WINDOW_SLOTS_PER_JOB 128
#define WINDOW_FLOOR_PER_JOB 16
#define WINDOW_VALUE_BUDGET (1u << 18)

/* The window the points seen so far allow; the job's lock is held. */
size_t sweepi_window_limit(const section_job *job)
{
    uint64_t per_point = job->written ? job->values_written / job->written : 0;
    uint64_t limit = WINDOW_VALUE_BUDGET / (per_point ? per_point : 1);
    if (limit < job->window_floor)
        limit = job->window_floor;
    return limit < job->window_size ? (size_t)limit : job->window_size;
}

static int record_plugin(sweep_run *run, const loaded_plugin *lp, char **err)
{
    for (size_t i = 0; i < run->recorded_count; i++)
        if (strcmp(run->recorded_plugins[i], lp->desc->name) == 0)
            return 0;
    if (store_prepare_plugin(run->store, lp->desc, err) != 0)
        return -1;
    if (store_sweep_plugin(run->store, run->sweep_id, lp->desc->name, lp->desc->version, lp->path,
                           lp->sha256, err) != 0)
        return -1;
    if (exec_is_command(lp->desc)) {
        char *argv_json = exec_argv_json(lp->desc);
        int rc = argv_json
                     ? store_sweep_command(run->store, run->sweep_id, lp->desc->name, argv_json,
                                           exec_uses_shell(lp->desc), lp->path, lp->sha256, err)
                     : util_fail(err, "out of memory");
        free(argv_json);
        if (rc != 0)
            return -1;
    }
    char **names = realloc(run->recorded_plugins, (run->recorded_count + 1) * sizeof *names);
    if (!names)
        return util_fail(err, "out of memory");
    run->recorded_plugins = names;
    names[run->recorded_count++] = util_strdup(lp->desc->name);
    return 0;
}

/* Appends rows (column_count values each) with the parameters in front. */
static int append_rows(table *t, const runner_plugin *plugin, const value *params,
                       const value *rows, size_t row_count)
{
    size_t width = plugin->param_count + plugin->column_count;
    value *row = calloc(width, sizeof *row);
    if (!row)
        return -1;
    for (size_t r = 0; r < row_count; r++) {
        for (uint32_t i = 0; i < plugin->param_count; i++)
            if (value_copy(&row[i], &params[i]) != 0)
                goto fail;
        for (uint32_t i = 0; i < plugin->column_count; i++)
            if (value_copy(&row[plugin->param_count + i], &rows[r * plugin->column_count + i]) != 0)
                goto fail;
        if (table_append_row(t, row) != 0)
            goto fail;
    }
    free(row);
    return 0;
fail:
    for (size_t i = 0; i < width; i++)
        value_clear(&row[i]);
    free(row);
    return -1;
}

/* Frees what f owns and empties the fields after params, leaving state,
 * index and params (the struct's first fields) untouched: the writer may
 * read a claimed slot's state and index meanwhile, under the job's lock. */
void sweepi_release_finished(finished_point *f, const runner_plugin *plugin)
{
    free(f->canonical);
    free(f->error);
    free(f->fatal);
    for (size_t i = 0; i < f->row_count * plugin->column_count; i++)
        value_clear(&f->rows[i]);
    free(f->rows);
    artifact_list_free(f->artifacts);
    point_runs_free(f->runs);
    size_t kept = offsetof(finished_point, canonical);
    memset((char *)f + kept, 0, sizeof *f - kept);
}

/* Frees what f owns and empties it, keeping its params array. */
void sweepi_clear_finished(finished_point *f, const runner_plugin *plugin)
{
    sweepi_release_finished(f, plugin);
    f->state = SLOT_FREE;
    f->index = 0;
}

/* 1 if an earlier run stored a point with this identity that no other
 * point of this run has claimed: a grid may hold the same point twice, and
 * each stored copy stands for one occurrence. */
static int take_done(section_job *job, const char *identity, int64_t *point_id)
{
    pthread_mutex_lock(&job->done_lock);
    int taken = store_identity_set_take(job->done, identity, point_id);
    pthread_mutex_unlock(&job->done_lock);
    return taken;
}

/* Fills f->params, f->canonical, f->identity and f->seed for point f->index,
 * and marks it skipped when an earlier run stored it (resume). Sets f->fatal
 * when memory runs out. */
void sweepi_prepare_point(section_job *job, finished_point *f)
{
    const runner_plugin *plugin = job->plugin;
    uint64_t ordinal = sweepi_ordinal(job, f->index);
    grid_point(job->grid, ordinal, f->params);
    char stack[1024];
    long len = grid_point_canonical(job->grid, ordinal, stack, sizeof stack);
    if (len >= 0 && (size_t)len < sizeof stack)
        f->canonical = util_strdup(stack);
    else
        f->canonical = param_canonical_json(plugin, f->params);
    if (!f->canonical ||
        param_point_identity(plugin, f->canonical, job->run->seed, f->identity, &f->seed) != 0) {
        f->fatal = util_strdup("out of memory computing a point's identity");
        return;
    }
    if (job->done && take_done(job, f->identity, &f->stored_point_id))
        f->skipped = 1;
    else if (job->reuse && (f->reused = store_reuse_lookup(job->reuse, f->identity, f->seed)))
        f->skipped = 1; /* not run; write_point copies it */
}

/* Runs the plugin on f->params and f->seed with the caller's point, in this
 * process or (isolate) a child, and records the outcome in f: status,
 * timing, error, rows. A failure caused by a stop request is marked
 * interrupted instead: not a result, so a resumed sweep runs it again. */
void sweepi_execute_point(runner_point *point, finished_point *f, uint64_t ordinal, int isolate,
                          double timeout_s, const volatile sig_atomic_t *stop)
{
    host_point_reset(point, f->params, f->seed);
    point->index = ordinal; /* named if the plugin calls exit() */
    point->canonical = f->canonical;
    f->started_at = util_now();
    double clock0 = util_monotonic();
    if (isolate) {
        isolate_status outcome = isolate_run_point(point, timeout_s);
        f->status = sweepi_status_names[outcome];
        f->failed = outcome != ISOLATE_OK;
    } else {
        f->failed = host_run_point(point) != 0;
        f->status = f->failed ? (point->timed_out ? "timeout" : "failed") : "ok";
    }
    /* A command's files are kept for failed points too: stderr says why. */
    f->artifacts = point->artifacts;
    point->artifacts = NULL;
    f->runs = point->runs;
    point->runs = NULL;
    f->duration_s = util_monotonic() - clock0;
    if (f->failed && stop && *stop) {
        f->interrupted = 1;
        return;
    }
    if (f->failed) {
        f->error = point->error;
        point->error = NULL;
    }
    /* Take the rows; the point gets fresh buffers on its next reset. */
    f->rows = point->rows;
    f->row_count = point->row_count;
    point->rows = NULL;
    point->row_count = point->row_capacity = 0;
}

/* Runs point f->index into f, using the caller's runner_point. */
void sweepi_compute_point(section_job *job, runner_point *point, finished_point *f)
{
    sweepi_prepare_point(job, f);
    if (f->fatal || f->skipped)
        return;
    /* Series go through this process's writer thread, which an --isolate
     * child does not have. */
    const sweep_options *o = job->run->options;
    point->series = o->isolate || o->point_timeout_s > 0 ? NULL : job->run->series;
    point->series_key = (store_series_key){ job->run->sweep_id, job->section_id,
                                            (int64_t)sweepi_ordinal(job, f->index) };
    point->sample_interval_s = o->sample_interval_s;
    sweepi_execute_point(point, f, sweepi_ordinal(job, f->index), job->run->options->isolate,
                         job->run->options->point_timeout_s, job->run->options->stop);
}

/* The store record of point f: what every stored point has; the caller adds
 * its status, times and rows. swept (size bytes) holds its swept parameters. */
static store_point point_record(const section_job *job, int64_t section_id, const finished_point *f,
                                char *swept, size_t size)
{
    uint64_t ordinal = sweepi_ordinal(job, f->index);
    long swept_len = grid_point_swept(job->grid, ordinal, swept, size);
    return (store_point){
        .sweep_id = job->run->sweep_id,
        .section_id = section_id,
        .ordinal = (int64_t)ordinal,
        .params_json = f->canonical,
        .params_swept = swept_len >= 0 && (size_t)swept_len < size ? swept : NULL,
        .identity = f->identity,
        .seed = f->seed,
        .params = f->params,
    };
}

/* --reuse: stores point f as a copy of the stored point f->reused (its
 * rows copied in SQL), and keeps those rows if asked. */
static int write_reused(section_job *job, int64_t section_id, finished_point *f, table *result,
                        char **err)
{
    sweep_run *run = job->run;
    char swept[512];
    store_point record = point_record(job, section_id, f, swept, sizeof swept);
    record.status = "ok";
    record.started_at = util_now();
    record.reused_from = f->reused->point_id;
    record.reused_sweep_id = f->reused->sweep_id;
    record.reused_section_id = f->reused->section_id;
    run->points_ok++;
    run->points_reused++;
    if (store_write_point(run->store, job->plugin, &record, err) != 0)
        return -1;
    if (result && store_point_rows(run->store, job->plugin, f->reused->section_id,
                                   f->reused->point_id, result, err) != 0)
        return -1;
    return 0;
}

/* The writer's side: store one finished point, keep its rows if asked. */
static int write_point(section_job *job, int64_t section_id, finished_point *f, table *result,
                       char **err)
{
    sweep_run *run = job->run;
    const runner_plugin *plugin = job->plugin;
    if (f->reused)
        return write_reused(job, section_id, f, result, err);
    if (f->skipped) {
        run->points_skipped++;
        if (result &&
            store_point_rows(run->store, plugin, section_id, f->stored_point_id, result, err) != 0)
            return -1;
        return 0;
    }
    char swept[512];
    store_point record = point_record(job, section_id, f, swept, sizeof swept);
    record.status = f->status;
    record.error = f->failed ? f->error : NULL;
    record.started_at = f->started_at;
    record.duration_s = f->duration_s;
    record.row_count = f->failed ? 0 : f->row_count;
    record.rows = f->rows;
    if (f->artifacts && exec_is_command(plugin))
        exec_keep_within_sweep_cap(plugin, sweepi_ordinal(job, f->index), &f->artifacts);
    record.artifacts = f->artifacts;
    record.runs = f->runs;
    if (f->failed)
        run->points_failed++;
    else
        run->points_ok++;
    if (store_write_point(run->store, plugin, &record, err) != 0)
        return -1;
    if (result && !f->failed && append_rows(result, plugin, f->params, f->rows, f->row_count) != 0)
        return util_fail(err,
                         "out of memory keeping the rows of section %d (use keep_rows = false "
                         "for very large sweeps)",
                         run->section_count);
    return 0;
}

static void report_failure(const section_job *job, const finished_point *f, progress *bar)
{
    char shown[1024]; /* stored as the plugin wrote it, shown on one line */
    progress_clear(bar);
    fprintf(stderr, "runner: %s point %llu %s %s: %s\n", job->plugin->name,
            (unsigned long long)sweepi_ordinal(job, f->index), f->canonical,
            strcmp(f->status, "timeout") == 0 ? "timed out" : f->status,
            util_printable(f->error, shown, sizeof shown));
}

/* After a failed point: whether the failed points so far stop the sweep
 * (no new point starts), saying why in run->failures_stopped. */
static int failures_stop(sweep_run *run)
{
    const sweep_options *o = run->options;
    if (o->fail_fast)
        snprintf(run->failures_stopped, sizeof run->failures_stopped, "%s",
                 "stopped at the first failed point (--fail-fast)");
    else if (o->max_failures && run->points_failed >= o->max_failures)
        snprintf(run->failures_stopped, sizeof run->failures_stopped,
                 "stopped after %llu failed point%s (--max-failures %llu)",
                 (unsigned long long)run->points_failed, run->points_failed == 1 ? "" : "s",
                 (unsigned long long)o->max_failures);
    return run->failures_stopped[0] != '\0';
}

/* The writer's step for each point in turn: reports it if it failed and
 * stores it. Returns 1 when the section stops here (failures_stop), 0 to
 * go on, -1 with *err. */
int sweepi_store_in_turn(section_job *job, int64_t section_id, finished_point *f, table *result,
                         progress *bar, char **err)
{
    pthread_mutex_lock(&job->store_lock);
    if (job->flush_err) {
        /* The lease thread's commit failed: say so before storing more. */
        *err = job->flush_err;
        job->flush_err = NULL;
        pthread_mutex_unlock(&job->store_lock);
        return -1;
    }
    if (f->failed)
        report_failure(job, f, bar);
    int rc = write_point(job, section_id, f, result, err);
    pthread_mutex_unlock(&job->store_lock);
    if (rc != 0)
        return -1;
    return f->failed && failures_stop(job->run);
}

/* sweepi_store_in_turn, then empties f's slot. */
int sweepi_write_in_turn(section_job *job, int64_t section_id, finished_point *f, table *result,
                         progress *bar, char **err)
{
    int rc = sweepi_store_in_turn(job, section_id, f, result, bar, err);
    if (rc >= 0)
        sweepi_clear_finished(f, job->plugin);
    return rc;
}

/* Sizes job's reorder window for *jobs threads (capped at the point count)
 * and says where the points run: here, or under MPI on the worker ranks
 * (sweepi_remote_mode). */
static section_mode plan_section(section_job *job, int *jobs)
{
    *jobs = job->run->options->jobs > 1 ? job->run->options->jobs : 1;
    /* A command may ask to run alone (exec.h, exec_max_jobs). */
    if (exec_is_command(job->plugin) && exec_max_jobs(job->plugin) > 0 &&
        *jobs > exec_max_jobs(job->plugin))
        *jobs = exec_max_jobs(job->plugin);
    if ((uint64_t)*jobs > job->count)
        *jobs = job->count > 0 ? (int)job->count : 1;
    job->window_size = *jobs == 1 ? 1 : (size_t)*jobs * WINDOW_SLOTS_PER_JOB;
    job->window_floor = *jobs == 1 ? 1 : (size_t)*jobs * WINDOW_FLOOR_PER_JOB;
    section_mode mode = sweepi_remote_mode(job);
    job->window_limit = job->window_floor;
    return mode;
}

/* Allocates the window's slots, each with room for a point's parameters. */
static int window_alloc(section_job *job)
{
    job->window = calloc(job->window_size, sizeof *job->window);
    if (!job->window)
        return -1;
    for (size_t i = 0; i < job->window_size; i++) {
        job->window[i].params =
            calloc(job->plugin->param_count ? job->plugin->param_count : 1, sizeof(value));
        if (!job->window[i].params)
            return -1;
    }
    return 0;
}

/* Frees what window_alloc, open_section and pthread_*_init gave job. */
static void section_job_free(section_job *job)
{
    for (size_t i = 0; job->window && i < job->window_size; i++) {
        sweepi_clear_finished(&job->window[i], job->plugin);
        free(job->window[i].params);
    }
    free(job->window);
    store_identity_set_free(job->done);
    store_reuse_set_free(job->reuse);
    free(job->flush_err);
    pthread_mutex_destroy(&job->lock);
    pthread_mutex_destroy(&job->store_lock);
    pthread_mutex_destroy(&job->done_lock);
    pthread_cond_destroy(&job->slot_done);
    pthread_cond_destroy(&job->slot_free);
}

/* Records the plugin with the sweep and begins the section, or with
 * --resume finds it again with the points it already holds (job->done). */
static int open_section(section_job *job, const loaded_plugin *lp,
                        const sweep_section_options *options, int64_t *section_id, char **err)
{
    sweep_run *run = job->run;
    if (record_plugin(run, lp, err) != 0)
        return -1;
    run->section_count++;
    if (run->options->reuse && store_reuse_find(run->store, lp->desc->name, lp->sha256,
                                                run->sweep_id, &job->reuse, err) != 0)
        return -1;
    if (run->options->resume)
        return store_section_resume(run->store, run->sweep_id, run->section_count,
                                    job->plugin->name, options->title, options->script_line,
                                    (int64_t)job->total, section_id, &job->done, err);
    return store_section_begin(run->store, run->sweep_id, run->section_count, job->plugin->name,
                               options->title, options->script_line, (int64_t)job->total,
                               section_id, err);
}

/* One job: every point in turn in this thread. Returns 0 (interrupted or
 * not), or -1 with *err. */
static int run_inline(section_job *job, int64_t section_id, table *result, progress *bar,
                      char **err)
{
    sweep_run *run = job->run;
    runner_point point;
    if (host_point_init(&point, job->plugin, run->options->stop) != 0)
        return util_fail(err, "out of memory");
    int rc = 0;
    finished_point *f = &job->window[0];
    for (uint64_t index = 0; index < job->count; index++) {
        if (sweepi_stopping(run)) {
            run->interrupted = 1;
            break;
        }
        f->index = index;
        sweepi_compute_point(job, &point, f);
        if (f->fatal) {
            rc = util_fail(err, "%s", f->fatal);
            break;
        }
        if (f->interrupted) {
            run->interrupted = 1;
            break;
        }
        int stop = sweepi_write_in_turn(job, section_id, f, result, bar, err);
        if (stop < 0) {
            rc = -1;
            break;
        }
        progress_update(bar, index + 1);
        if (stop)
            break;
    }
    host_point_free(&point);
    return rc;
}

/* exit_guard's mark: a plugin called exit() in this process while the
 * section ran. Runs in the exiting thread, maybe a worker while the writer
 * is inside the store: store_lock waits for the writer to leave it (the
 * connection is used by one thread at a time, and between calls it holds
 * whole points only), then ends the sweep through it, committing the points
 * written so far. The lock is never given back: the process ends. */
static int mark_exited(void *context, char **err)
{
    section_job *job = context;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30; /* the writer waits at most the busy timeout in there */
    if (pthread_mutex_timedlock(&job->store_lock, &until) != 0)
        return util_fail(err, "the database stayed busy");
    return store_sweep_end(job->run->store, job->run->sweep_id, "failed", util_now(), err);
}

/* The lease thread's flush (store_lease_watch): commits the writer's open
 * batch between points, so a long point does not hold the write lock the
 * renewal needs. store_lock keeps the writer out meanwhile; it is waited
 * for briefly, as the writer only holds it to store a point. A failed
 * commit (its points are lost) is kept for the writer to report. */
static int flush_for_lease(void *context)
{
    section_job *job = context;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    if (pthread_mutex_timedlock(&job->store_lock, &until) != 0)
        return -1;
    char *err = NULL;
    int rc = job->flush_err ? -1 : store_flush(job->run->store, &err);
    if (rc != 0 && err)
        job->flush_err = err;
    pthread_mutex_unlock(&job->store_lock);
    return rc;
}

int sweep_run_section(sweep_run *run, const loaded_plugin *lp, const grid *g,
                      const sweep_section_options *options, table **rows, char **err)
{
    const runner_plugin *plugin = lp->desc;
    section_job job = { .run = run, .plugin = plugin, .grid = g, .total = grid_point_count(g) };
    /* Under --shard, only this shard's points: the others are not built. */
    shard_own(&run->options->shard, (uint32_t)run->section_count + 1, job.total, &job.walk,
              &job.count);
    int jobs;
    section_mode mode = plan_section(&job, &jobs);
    int64_t section_id = 0;
    table *result = rows ? store_plugin_columns(plugin, options->title) : NULL;
    int rc = -1;
    progress bar;
    progress_begin(&bar, plugin->name, job.count, run->options->quiet);
    run->failures_stopped[0] = '\0';

    pthread_mutex_init(&job.lock, NULL);
    pthread_mutex_init(&job.store_lock, NULL);
    pthread_mutex_init(&job.done_lock, NULL);
    pthread_cond_init(&job.slot_done, NULL);
    pthread_cond_init(&job.slot_free, NULL);
    if (window_alloc(&job) != 0 || (rows && !result)) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (open_section(&job, lp, options, &section_id, err) != 0)
        goto done;
    job.section_id = section_id;
    /* Armed while this process may run plugin code; disarmed once its
     * threads are joined. */
    exit_guard_watch(mark_exited, &job, jobs);
    /* Every store call of the section's writer holds store_lock (rank 0's
     * under MPI too, sweep_mpi.c), so the lease thread may commit between
     * them. */
    store_lease_watch(run->lease, flush_for_lease, &job);
    if (mode == SECTION_DISTRIBUTED)
        rc = sweepi_run_distributed(&job, lp, section_id, result, &bar, err);
    else if (mode == SECTION_COLLECTIVE)
        rc = sweepi_run_collective(&job, lp, section_id, result, &bar, err);
    else if (jobs == 1)
        rc = run_inline(&job, section_id, result, &bar, err);
    else
        rc = sweepi_run_threads(&job, jobs, section_id, result, &bar, err);
    exit_guard_watch(NULL, NULL, 0);
    store_lease_watch(run->lease, NULL, NULL);
    if (rc == 0 && job.flush_err) {
        *err = job.flush_err;
        job.flush_err = NULL;
        rc = -1;
    }
    if (rc == 0)
        rc = store_flush(run->store, err);
done:
    section_job_free(&job);
    progress_end(&bar);
    if (rc == 0 && rows)
        *rows = result;
    else
        table_free(result);
    return rc;
}

void sweep_run_free(sweep_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; i < run->recorded_count; i++)
        free(run->recorded_plugins[i]);
    free(run->recorded_plugins);
    run->recorded_plugins = NULL;
    run->recorded_count = 0;
}
