/* sweep_point: one point's way through a section, the same whichever way
 * the points run (inline and the section: sweep.c; --jobs threads:
 * sweep_threads.c; MPI: sweep_mpi.c, sweep_mpi_writer.c, sweep_serve.c):
 * prepared (identity, seed, skipped or not), run, and stored in point order
 * by the one writer through the reorder window. Every file of the point
 * loop calls down into this one, and this one into none of them. */
#include "sweep_int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/progress.h"
#include "base/util.h"
#include "exec/exec.h"
#include "plugin/plugin.h"
#include "run_int.h"

const char *const sweepi_status_names[4] = { "ok", "failed", "crashed", "timeout" };

int sweepi_stopping(const sweep_run *run)
{
    const volatile sig_atomic_t *stop = run->options->stop;
    return stop && *stop;
}

/* The values (parameters and row cells, about 30 bytes each with their
 * text) that finished points may hold in the reorder window, about 8 MB
 * (its slots per --jobs thread: sweep.c). */
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
    log_print(LOG_LEVEL_WARN, "runner: %s point %llu %s %s: %s\n", job->plugin->name,
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
