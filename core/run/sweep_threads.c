/* sweep_threads: --jobs N in one process. N worker threads claim points in
 * order and run them into the reorder window; the calling thread is the
 * writer and takes them back in point order (sweep.c's write_point), one
 * hand-off per run of finished points, not per point, freeing slots a
 * quarter of the window at a time so the workers refill it while the
 * writer writes. When points are cheaper than storing them, the writer is
 * the bottleneck and extra workers only take its core: it measures both
 * sides and lets as many workers claim points as keep it busy
 * (ceil(worker time per point / writer time per point), 1 to N). */
#include "sweep_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/progress.h"
#include "base/util.h"

/* The writer chooses the number of active workers again after this many
 * points written and this long: enough for the batch commits to average
 * out of the writer's time per point. */
#define CHOOSE_AFTER_POINTS 2048
#define CHOOSE_AFTER_S 0.05

typedef struct worker {
    section_job *job;
    int id;               /* 0 ..; claims points while id < job->active_workers */
    pthread_cond_t *idle; /* where the others wait: not woken by each batch */
} worker;

static void *worker_main(void *arg)
{
    section_job *job = ((worker *)arg)->job;
    int id = ((worker *)arg)->id;
    runner_point point;
    int ready = host_point_init(&point, job->plugin, job->run->options->stop) == 0;
    pthread_mutex_lock(&job->lock);
    for (;;) {
        while (!job->cancel && job->next_index < job->count) {
            if (id >= job->active_workers)
                pthread_cond_wait(((worker *)arg)->idle, &job->lock);
            else if (job->next_index >= job->written + job->window_limit)
                pthread_cond_wait(&job->slot_free, &job->lock);
            else
                break;
        }
        if (job->cancel || job->next_index >= job->count)
            break;
        uint64_t index = job->next_index++;
        finished_point *f = &job->window[index % job->window_size];
        f->state = SLOT_RUNNING;
        f->index = index;
        pthread_mutex_unlock(&job->lock);
        double started = util_monotonic();
        if (ready && !sweepi_stopping(job->run))
            sweepi_compute_point(job, &point, f);
        else if (!ready)
            f->fatal = util_strdup("out of memory starting a worker");
        else
            f->interrupted = 1;
        double spent_s = util_monotonic() - started;
        pthread_mutex_lock(&job->lock);
        job->work_s += spent_s;
        job->work_points++;
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

/* The writer's side of --jobs: writes `ready` finished points from the head
 * of the window, without the lock. *consumed counts the points taken
 * (written or not); *stop_here is set at an interrupted point or at a
 * failed one that stops the sweep (failures_stop). Returns 0, or -1 with *err. */
static int write_ready(section_job *job, uint64_t ready, int64_t section_id, table *result,
                       progress *bar, uint64_t *consumed, int *stop_here, char **err)
{
    const runner_plugin *plugin = job->plugin;
    for (*consumed = 0; *consumed < ready && !*stop_here; (*consumed)++) {
        finished_point *f = &job->window[(job->written + *consumed) % job->window_size];
        if (f->fatal)
            return util_fail(err, "%s", f->fatal);
        job->values_written += plugin->param_count + (uint64_t)f->row_count * plugin->column_count;
        if (f->interrupted) {
            job->run->interrupted = 1;
            *stop_here = 1;
            sweepi_clear_finished(f, plugin);
            continue;
        }
        int stop = sweepi_write_in_turn(job, section_id, f, result, bar, err);
        if (stop < 0)
            return -1;
        *stop_here = stop;
    }
    return 0;
}

/* The writer's measure of its own time, for choose_workers. */
typedef struct writer_clock {
    double write_s;
    uint64_t write_points;
    double since;         /* when the last choice was made */
    pthread_cond_t *idle; /* broadcast when more workers may claim points */
} writer_clock;

/* Lets as many workers claim points as the writer can keep up with, from
 * the time both sides spent per point since the last choice. The job's
 * lock is held. */
static void choose_workers(section_job *job, int jobs, writer_clock *clock)
{
    if (clock->write_points < CHOOSE_AFTER_POINTS || job->work_points == 0 ||
        util_monotonic() - clock->since < CHOOSE_AFTER_S)
        return;
    double work_per_point = job->work_s / (double)job->work_points;
    double write_per_point = clock->write_s / (double)clock->write_points;
    double wanted = write_per_point > 0 ? ceil(work_per_point / write_per_point) : jobs;
    int before = job->active_workers;
    job->active_workers = wanted < 1 ? 1 : wanted > jobs ? jobs : (int)wanted;
    if (job->active_workers > before)
        pthread_cond_broadcast(clock->idle);
    job->work_s = clock->write_s = 0;
    job->work_points = clock->write_points = 0;
    clock->since = util_monotonic();
}

/* Takes the points the workers finish, in point order, until all are
 * written or one says stop. Returns 0, or -1 with *err. */
static int write_in_order(section_job *job, int jobs, pthread_cond_t *idle, int64_t section_id,
                          table *result, progress *bar, char **err)
{
    int stop_here = 0;
    writer_clock clock = { .since = util_monotonic(), .idle = idle };
    pthread_mutex_lock(&job->lock);
    while (job->written < job->count && !stop_here) {
        finished_point *first = &job->window[job->written % job->window_size];
        while (first->state != SLOT_DONE || first->index != job->written)
            pthread_cond_wait(&job->slot_done, &job->lock);
        /* Take the finished points in a row, up to a quarter of the window,
         * then write them without the lock: one hand-off per batch, not per
         * point, and room left for the workers meanwhile. */
        uint64_t most = job->window_limit / 4 ? job->window_limit / 4 : 1;
        uint64_t ready = 0;
        while (job->written + ready < job->count && ready < most) {
            finished_point *f = &job->window[(job->written + ready) % job->window_size];
            if (f->state != SLOT_DONE || f->index != job->written + ready)
                break;
            ready++;
        }
        pthread_mutex_unlock(&job->lock);
        uint64_t consumed = 0;
        double started = util_monotonic();
        if (write_ready(job, ready, section_id, result, bar, &consumed, &stop_here, err) != 0)
            return -1;
        progress_update(bar, job->written + consumed);
        clock.write_s += util_monotonic() - started;
        clock.write_points += consumed;
        pthread_mutex_lock(&job->lock);
        choose_workers(job, jobs, &clock);
        for (uint64_t i = 0; i < consumed; i++)
            job->window[(job->written + i) % job->window_size].state = SLOT_FREE;
        job->written += consumed;
        job->window_limit = sweepi_window_limit(job);
        if (stop_here)
            job->cancel = 1;
        pthread_cond_broadcast(&job->slot_free);
    }
    pthread_mutex_unlock(&job->lock);
    return 0;
}

/* --jobs N: N worker threads compute, this thread writes in point order.
 * What was written is committed before waiting for points still running
 * (a stop or failures_stop leaves some), which may take long. Returns 0
 * (interrupted or not), or -1 with *err. */
int sweepi_run_threads(section_job *job, int jobs, int64_t section_id, table *result, progress *bar,
                       char **err)
{
    pthread_t *threads = calloc((size_t)jobs, sizeof *threads);
    worker *workers = calloc((size_t)jobs, sizeof *workers);
    if (!threads || !workers) {
        free(threads);
        free(workers);
        return util_fail(err, "out of memory");
    }
    pthread_cond_t idle;
    pthread_cond_init(&idle, NULL);
    job->active_workers = jobs;
    int started = 0;
    for (int t = 0; t < jobs; t++) {
        workers[t] = (worker){ .job = job, .id = t, .idle = &idle };
        if (pthread_create(&threads[t], NULL, worker_main, &workers[t]) != 0)
            break;
        started++;
    }
    pthread_mutex_lock(&job->lock);
    job->active_workers = started; /* those that failed to start claim nothing */
    pthread_mutex_unlock(&job->lock);
    int rc = started == 0 ? util_fail(err, "cannot start worker threads")
                          : write_in_order(job, started, &idle, section_id, result, bar, err);
    if (rc == 0) {
        pthread_mutex_lock(&job->store_lock);
        rc = store_flush(job->run->store, err);
        pthread_mutex_unlock(&job->store_lock);
    }
    pthread_mutex_lock(&job->lock);
    job->cancel = 1;
    pthread_cond_broadcast(&job->slot_free);
    pthread_cond_broadcast(&idle);
    pthread_mutex_unlock(&job->lock);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    pthread_cond_destroy(&idle);
    free(threads);
    free(workers);
    return rc;
}
