/* sweep: the point loop. Points run on `jobs` threads (or inline for one
 * job); a reorder window hands them to the single writer in point order, so
 * rows, their order and their ids are the same for any number of jobs. */
#include "sweep.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "isolate.h"
#include "param.h"
#include "progress.h"
#include "util.h"

/* A finished point waiting to be written. Owns everything but params. */
typedef struct finished_point {
    int state;                  /* SLOT_FREE, SLOT_RUNNING, SLOT_DONE */
    uint64_t index;
    value *params;              /* param_count values borrowing text from the grid */
    char *canonical;
    char identity[65];
    uint64_t seed;
    int skipped;                /* already stored by an earlier run (resume) */
    int failed;
    const char *status;         /* "ok", "failed", "crashed" or "timeout" */
    int interrupted;            /* cut short by a stop request: not a result */
    char *error;
    double started_at, duration_s;
    value *rows;                /* row_count * column_count, owned */
    size_t row_count;
    char *fatal;                /* out of memory and such: stops the sweep */
} finished_point;

enum { SLOT_FREE = 0, SLOT_RUNNING, SLOT_DONE };

typedef struct section_job {
    sweep_run *run;
    const runner_plugin *plugin;
    const grid *grid;
    uint64_t count;
    finished_point *window;
    size_t window_size;
    uint64_t next_index;        /* next point a worker may claim */
    uint64_t written;           /* points the writer has consumed */
    int cancel;                 /* the writer failed: workers stop */
    store_identity_set *done;   /* identities to skip (resume), may be NULL */
    pthread_mutex_t done_lock;  /* guards done */
    pthread_mutex_t lock;
    pthread_cond_t slot_done;   /* a worker finished a point */
    pthread_cond_t slot_free;   /* the writer freed a slot */
} section_job;

static int record_plugin(sweep_run *run, const loaded_plugin *lp, char **err)
{
    for (size_t i = 0; i < run->recorded_count; i++)
        if (strcmp(run->recorded_plugins[i], lp->desc->name) == 0)
            return 0;
    if (store_prepare_plugin(run->store, lp->desc, err) != 0)
        return -1;
    if (store_sweep_plugin(run->store, run->sweep_id, lp->desc->name, lp->desc->version,
                           lp->path, lp->sha256, err) != 0)
        return -1;
    char **names = realloc(run->recorded_plugins, (run->recorded_count + 1) * sizeof *names);
    if (!names)
        return util_fail(err, "out of memory");
    run->recorded_plugins = names;
    names[run->recorded_count++] = util_strdup(lp->desc->name);
    return 0;
}

static table *new_result_table(const runner_plugin *plugin, const char *title)
{
    table *t = table_new(title ? title : plugin->name);
    if (!t)
        return NULL;
    for (uint32_t i = 0; i < plugin->param_count; i++)
        if (table_add_column(t, plugin->params[i].name, plugin->params[i].unit,
                             plugin->params[i].type, 1) != 0)
            goto fail;
    for (uint32_t i = 0; i < plugin->column_count; i++)
        if (table_add_column(t, plugin->columns[i].name, plugin->columns[i].unit,
                             plugin->columns[i].type, 0) != 0)
            goto fail;
    return t;
fail:
    table_free(t);
    return NULL;
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

static void clear_finished(finished_point *f, const runner_plugin *plugin)
{
    free(f->canonical);
    free(f->error);
    free(f->fatal);
    for (size_t i = 0; i < f->row_count * plugin->column_count; i++)
        value_clear(&f->rows[i]);
    free(f->rows);
    value *params = f->params;
    memset(f, 0, sizeof *f);
    f->params = params;
}

/* 1 if an earlier run stored a point with this identity that no other
 * point of this run has claimed: a grid may hold the same point twice, and
 * each stored copy stands for one occurrence. */
static int take_done(section_job *job, const char *identity)
{
    pthread_mutex_lock(&job->done_lock);
    int taken = store_identity_set_take(job->done, identity);
    pthread_mutex_unlock(&job->done_lock);
    return taken;
}

/* Runs point f->index into f, using the caller's runner_point. */
static void compute_point(section_job *job, runner_point *point, finished_point *f)
{
    const runner_plugin *plugin = job->plugin;
    grid_point(job->grid, f->index, f->params);
    char stack[1024];
    long len = grid_point_canonical(job->grid, f->index, stack, sizeof stack);
    if (len >= 0 && (size_t)len < sizeof stack)
        f->canonical = util_strdup(stack);
    else
        f->canonical = param_canonical_json(plugin, f->params);
    if (!f->canonical ||
        param_point_identity(plugin, f->canonical, job->run->seed, f->identity, &f->seed) != 0) {
        f->fatal = util_strdup("out of memory computing a point's identity");
        return;
    }
    if (job->done && take_done(job, f->identity)) {
        f->skipped = 1;
        return;
    }
    host_point_reset(point, f->params, f->seed);
    f->started_at = util_now();
    double clock0 = util_monotonic();
    if (job->run->isolate) {
        isolate_status outcome = isolate_run_point(point, job->run->point_timeout_s);
        static const char *const names[] = { "ok", "failed", "crashed", "timeout" };
        f->status = names[outcome];
        f->failed = outcome != ISOLATE_OK;
    } else {
        f->failed = host_run_point(point) != 0;
        f->status = f->failed ? "failed" : "ok";
    }
    f->duration_s = util_monotonic() - clock0;
    if (f->failed && job->run->stop && *job->run->stop) {
        /* Cut short by Ctrl-C: not a result. Left unstored, so a resumed
         * sweep runs it again. */
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

static void *worker_main(void *arg)
{
    section_job *job = arg;
    runner_point point;
    int ready = host_point_init(&point, job->plugin, job->run->stop) == 0;
    pthread_mutex_lock(&job->lock);
    for (;;) {
        while (!job->cancel && job->next_index < job->count &&
               job->next_index >= job->written + job->window_size)
            pthread_cond_wait(&job->slot_free, &job->lock);
        if (job->cancel || job->next_index >= job->count)
            break;
        uint64_t index = job->next_index++;
        finished_point *f = &job->window[index % job->window_size];
        f->state = SLOT_RUNNING;
        f->index = index;
        pthread_mutex_unlock(&job->lock);
        if (ready && !(job->run->stop && *job->run->stop))
            compute_point(job, &point, f);
        else if (!ready)
            f->fatal = util_strdup("out of memory starting a worker");
        else
            f->interrupted = 1;
        pthread_mutex_lock(&job->lock);
        f->state = SLOT_DONE;
        /* Only the point the writer waits for needs to wake it. */
        if (index == job->written)
            pthread_cond_signal(&job->slot_done);
    }
    pthread_mutex_unlock(&job->lock);
    if (ready)
        host_point_free(&point);
    return NULL;
}

/* The writer's side: store one finished point, keep its rows if asked. */
static int write_point(section_job *job, int64_t section_id, finished_point *f,
                       table *result, char **err)
{
    sweep_run *run = job->run;
    const runner_plugin *plugin = job->plugin;
    if (f->skipped) {
        run->points_skipped++;
        if (result && store_point_rows(run->store, plugin, section_id, f->identity, result, err) != 0)
            return -1;
        return 0;
    }
    store_point record = {
        .sweep_id = run->sweep_id,
        .section_id = section_id,
        .ordinal = (int64_t)f->index,
        .params_json = f->canonical,
        .identity = f->identity,
        .seed = f->seed,
        .status = f->status,
        .error = f->failed ? f->error : NULL,
        .started_at = f->started_at,
        .duration_s = f->duration_s,
        .params = f->params,
        .row_count = f->failed ? 0 : f->row_count,
        .rows = f->rows,
    };
    if (f->failed)
        run->points_failed++;
    else
        run->points_ok++;
    if (store_write_point(run->store, plugin, &record, err) != 0)
        return -1;
    if (result && !f->failed && append_rows(result, plugin, f->params, f->rows, f->row_count) != 0)
        return util_fail(err, "out of memory keeping the rows of section %d (use keep_rows = false "
                         "for very large sweeps)", run->section_count);
    return 0;
}

static void report_failure(const section_job *job, const finished_point *f, progress *bar)
{
    progress_clear(bar);
    fprintf(stderr, "runner: %s point %llu %s %s: %s\n", job->plugin->name,
            (unsigned long long)f->index, f->canonical,
            strcmp(f->status, "timeout") == 0 ? "timed out" : f->status, f->error);
}

int sweep_run_section(sweep_run *run, const loaded_plugin *lp, const grid *g,
                      const sweep_section_options *options, table **rows, char **err)
{
    const runner_plugin *plugin = lp->desc;
    section_job job = { .run = run, .plugin = plugin, .grid = g, .count = grid_point_count(g) };
    int jobs = run->jobs > 1 ? run->jobs : 1;
    if ((uint64_t)jobs > job.count)
        jobs = job.count > 0 ? (int)job.count : 1;
    job.window_size = jobs == 1 ? 1 : (size_t)jobs * 16;
    int64_t section_id = 0;
    table *result = rows ? new_result_table(plugin, options->title) : NULL;
    store_identity_set *done = NULL;
    pthread_t *threads = NULL;
    int started_threads = 0, rc = -1, locked = 0;
    runner_point inline_point;
    int inline_ready = 0;
    progress bar;
    progress_begin(&bar, plugin->name, job.count, run->quiet);

    pthread_mutex_init(&job.lock, NULL);
    pthread_mutex_init(&job.done_lock, NULL);
    pthread_cond_init(&job.slot_done, NULL);
    pthread_cond_init(&job.slot_free, NULL);
    job.window = calloc(job.window_size, sizeof *job.window);
    if (!job.window || (rows && !result)) {
        util_fail(err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < job.window_size; i++) {
        job.window[i].params = calloc(plugin->param_count ? plugin->param_count : 1,
                                      sizeof(value));
        if (!job.window[i].params) {
            util_fail(err, "out of memory");
            goto done;
        }
    }
    if (record_plugin(run, lp, err) != 0)
        goto done;
    run->section_count++;
    if (run->resume) {
        if (store_section_resume(run->store, run->sweep_id, run->section_count, plugin->name,
                                 options->title, options->script_line, (int64_t)job.count,
                                 &section_id, &done, err) != 0)
            goto done;
        job.done = done;
    } else if (store_section_begin(run->store, run->sweep_id, run->section_count, plugin->name,
                                   options->title, options->script_line, (int64_t)job.count,
                                   &section_id, err) != 0) {
        goto done;
    }

    if (jobs == 1) {
        if (host_point_init(&inline_point, plugin, run->stop) != 0) {
            util_fail(err, "out of memory");
            goto done;
        }
        inline_ready = 1;
        finished_point *f = &job.window[0];
        for (uint64_t index = 0; index < job.count; index++) {
            if (run->stop && *run->stop) {
                run->interrupted = 1;
                break;
            }
            f->index = index;
            compute_point(&job, &inline_point, f);
            if (f->fatal) {
                util_fail(err, "%s", f->fatal);
                goto done;
            }
            if (f->interrupted) {
                run->interrupted = 1;
                break;
            }
            if (f->failed)
                report_failure(&job, f, &bar);
            if (write_point(&job, section_id, f, result, err) != 0)
                goto done;
            int failed = f->failed;
            clear_finished(f, plugin);
            progress_update(&bar, index + 1);
            if (failed && options->fail_fast)
                break;
        }
    } else {
        threads = calloc((size_t)jobs, sizeof *threads);
        if (!threads) {
            util_fail(err, "out of memory");
            goto done;
        }
        for (int t = 0; t < jobs; t++) {
            if (pthread_create(&threads[t], NULL, worker_main, &job) != 0)
                break;
            started_threads++;
        }
        if (started_threads == 0) {
            util_fail(err, "cannot start worker threads");
            goto done;
        }
        pthread_mutex_lock(&job.lock);
        locked = 1;
        int stop_here = 0;
        while (job.written < job.count && !stop_here) {
            finished_point *first = &job.window[job.written % job.window_size];
            while (first->state != SLOT_DONE || first->index != job.written)
                pthread_cond_wait(&job.slot_done, &job.lock);
            /* Take every finished point in a row, then write them without
             * the lock: one hand-off per batch, not per point. */
            uint64_t ready = 0;
            while (job.written + ready < job.count && ready < job.window_size) {
                finished_point *f = &job.window[(job.written + ready) % job.window_size];
                if (f->state != SLOT_DONE || f->index != job.written + ready)
                    break;
                ready++;
            }
            pthread_mutex_unlock(&job.lock);
            locked = 0;
            uint64_t consumed = 0;
            for (; consumed < ready && !stop_here; consumed++) {
                finished_point *f = &job.window[(job.written + consumed) % job.window_size];
                if (f->fatal) {
                    util_fail(err, "%s", f->fatal);
                    goto done;
                }
                if (f->interrupted) {
                    run->interrupted = 1;
                    stop_here = 1;
                } else {
                    if (f->failed)
                        report_failure(&job, f, &bar);
                    if (write_point(&job, section_id, f, result, err) != 0)
                        goto done;
                    stop_here = f->failed && options->fail_fast;
                }
                clear_finished(f, plugin);
            }
            progress_update(&bar, job.written + consumed);
            pthread_mutex_lock(&job.lock);
            locked = 1;
            for (uint64_t i = 0; i < consumed; i++)
                job.window[(job.written + i) % job.window_size].state = SLOT_FREE;
            job.written += consumed;
            if (stop_here)
                job.cancel = 1;
            pthread_cond_broadcast(&job.slot_free);
        }
        if (locked) {
            pthread_mutex_unlock(&job.lock);
            locked = 0;
        }
    }
    if (store_flush(run->store, err) != 0)
        goto done;
    rc = 0;
done:
    if (locked)
        pthread_mutex_unlock(&job.lock);
    if (started_threads) {
        pthread_mutex_lock(&job.lock);
        job.cancel = 1;
        pthread_cond_broadcast(&job.slot_free);
        pthread_mutex_unlock(&job.lock);
        for (int t = 0; t < started_threads; t++)
            pthread_join(threads[t], NULL);
    }
    free(threads);
    if (inline_ready)
        host_point_free(&inline_point);
    for (size_t i = 0; job.window && i < job.window_size; i++) {
        clear_finished(&job.window[i], plugin);
        free(job.window[i].params);
    }
    free(job.window);
    store_identity_set_free(done);
    pthread_mutex_destroy(&job.lock);
    pthread_mutex_destroy(&job.done_lock);
    pthread_cond_destroy(&job.slot_done);
    pthread_cond_destroy(&job.slot_free);
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
