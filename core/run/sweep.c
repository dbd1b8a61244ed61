/* sweep: the point loop of one section. The points run here (inline for
 * one job, or on --jobs threads: sweep_threads.c) or under MPI on the
 * worker ranks (rank 0's side: sweep_mpi.c; the workers': sweep_serve.c);
 * whichever runs them, one writer stores them in point order through the
 * same reorder window and the same steps (sweep_point.c), so rows, their
 * order and their ids are the same for any number of jobs or ranks. This
 * file opens the section, sizes the window and picks the way. */
#include "sweep_int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/progress.h"
#include "base/util.h"
#include "exec/exec.h"
#include "plugin/plugin.h"
#include "run_int.h"

/* The reorder window: slots per --jobs thread, at most and at least (the
 * values finished points may hold in it: sweep_point.c). */
#define WINDOW_SLOTS_PER_JOB 128
#define WINDOW_FLOOR_PER_JOB 16

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
    static const char *const mode_names[] = { "here", "distributed over the ranks",
                                              "collective on every rank" };
    log_print(LOG_LEVEL_DEBUG, "section %d: %s, %llu points, %s on %d job%s, window %zu slots\n",
              run->section_count + 1, plugin->name, (unsigned long long)job.count, mode_names[mode],
              jobs, jobs == 1 ? "" : "s", job.window_size);
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
