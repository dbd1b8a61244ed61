/* sweep_threads: --jobs N in one process. N worker threads claim points in
 * order and run them into the reorder window; the calling thread is the
 * writer and takes them back in point order (sweep.c's write_point), one
 * hand-off per run of finished points, not per point, freeing slots a
 * quarter of the window at a time so the workers refill it while the
 * writer writes. The writer sleeps until a batch of about WAKE_BATCH_S of
 * the workers' time is done (one wake-up per batch: each one takes a core
 * from a worker), or the next point when points are slow.
 *
 * When points are cheaper than storing them, the writer is the bottleneck
 * and extra workers only take its core: it measures both sides and lets as
 * many workers claim points as keep it busy (ceil(worker time per point /
 * writer time per point), 1 to N). At one, two modes remain, and which is
 * faster depends on the machine (a second busy core may slow the first;
 * points cross caches): one worker beside the writer, or none, the writer
 * running the points itself as --jobs 1 does. The writer measures its own
 * cost per point written in each, its CPU time plus its waits for the
 * worker (what the other processes of a shared machine take from it is
 * in neither, so it does not decide), and keeps the cheaper, trying the
 * other again after RETRY_CHOICES choices, twice as many each time it
 * loses again (up to RETRY_CHOICES_MOST).
 *
 * The writer stores a point and leaves its slot as it is: the slot's next
 * claimer frees the rows, in the thread that allocated them. A worker that
 * filled the window is woken when half of it is free again, not per batch. */
#include "sweep_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/bug.h"
#include "base/progress.h"
#include "base/util.h"

/* The writer chooses the number of active workers again after this many
 * points written and this long: enough for the batch commits to average
 * out of the writer's time per point. */
#define CHOOSE_AFTER_POINTS 2048
#define CHOOSE_AFTER_S 0.05
/* Writer-bound, the slower of the two modes is tried again after this many
 * choices (a trial costs one choice's points at most), and after twice as
 * many each time it loses again, up to the most. */
#define RETRY_CHOICES 16
#define RETRY_CHOICES_MOST 256
/* The workers' time the writer lets pass between wake-ups. */
#define WAKE_BATCH_S 0.002

typedef struct worker {
    section_job *job;
    int id;               /* 0 ..; claims points while id < job->active_workers */
    pthread_cond_t *idle; /* where the others wait: not woken by each batch */
} worker;

/* Runs claimed point f (its index set) with the caller's point, after
 * freeing what the slot's last point left. */
static void run_claimed(section_job *job, runner_point *point, int ready, finished_point *f)
{
    sweepi_release_finished(f, job->plugin);
    if (ready && !sweepi_stopping(job->run))
        sweepi_compute_point(job, point, f);
    else if (!ready)
        f->fatal = util_strdup("out of memory starting a worker");
    else
        f->interrupted = 1;
}

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
        /* The window is a ring: a claim past written + window_size would
         * reuse the slot of a point the writer has not stored yet. */
        RUNNER_BUG_IF(index >= job->written + job->window_size,
                      "a worker claimed a slot of the reorder window still holding a point");
        finished_point *f = &job->window[index % job->window_size];
        f->state = SLOT_RUNNING;
        f->index = index;
        pthread_mutex_unlock(&job->lock);
        double started = util_monotonic();
        run_claimed(job, &point, ready, f);
        double spent_s = util_monotonic() - started;
        pthread_mutex_lock(&job->lock);
        job->work_s += spent_s;
        job->work_points++;
        f->state = SLOT_DONE;
        /* Only the point the writer waits for needs to wake it. */
        if (index == job->wake_at)
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
        int stop = sweepi_store_in_turn(job, section_id, f, result, bar, err);
        if (stop < 0)
            return -1;
        *stop_here = stop;
    }
    return 0;
}

/* The writer's measures, for choose_workers and its waits. */
typedef struct writer_clock {
    double write_s; /* the writer's seconds storing points since the last choice */
    uint64_t write_points;
    double since;           /* when the last choice was made */
    double cpu_since;       /* the writer's CPU seconds then (thread_cpu_s) */
    double wait_s;          /* seconds it waited for workers since */
    uint64_t since_written; /* job->written then */
    double point_s;         /* a worker's seconds per point, last measured; 0 before */
    double cost[2];         /* the writer's seconds per point written with 0 and 1
                             * active workers (writer_cost); 0: not known */
    int choices;            /* writer-bound choices since the last trial */
    int retry_after;        /* choices between trials (RETRY_CHOICES ..) */
    int trial;              /* the mode being tried again (0 or 1), or -1 */
    int can_run_here;       /* the writer has a point of its own (0 active workers) */
    pthread_cond_t *idle;   /* broadcast when more workers may claim points */
} writer_clock;

/* This thread's CPU seconds, or -1 where there is no such clock. */
static double thread_cpu_s(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return -1;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The writer's seconds per point written since the last choice: its CPU
 * time and its waits for workers, not the time other processes ran on its
 * core, which would make the choice follow the machine's load; wall time
 * where there is no thread CPU clock. */
static double writer_cost(const writer_clock *clock, double now, double cpu_now, uint64_t points)
{
    double spent_s = cpu_now >= 0 && clock->cpu_since >= 0
                         ? cpu_now - clock->cpu_since + clock->wait_s
                         : now - clock->since;
    return spent_s / (double)(points ? points : 1);
}

/* Writer-bound: 0 or 1 active workers, whichever cost the writer less per
 * point when last measured, the one not measured yet first. */
static int writer_bound_choice(writer_clock *clock, int before, double cost)
{
    if (!clock->can_run_here)
        return 1;
    /* Smoothed: one measure is of 50 ms, batch commits included or not. */
    if (before <= 1 && cost > 0)
        clock->cost[before] = clock->cost[before] > 0 ? (clock->cost[before] + cost) / 2 : cost;
    if (clock->cost[1] == 0)
        return 1;
    if (clock->cost[0] == 0)
        return 0;
    int best = clock->cost[1] <= clock->cost[0];
    if (clock->trial >= 0) {
        if (best != clock->trial) /* lost again: try it less often */
            clock->retry_after = clock->retry_after < RETRY_CHOICES_MOST ? 2 * clock->retry_after
                                                                         : RETRY_CHOICES_MOST;
        else
            clock->retry_after = RETRY_CHOICES;
        clock->trial = -1;
    }
    if (++clock->choices >= clock->retry_after) {
        clock->choices = 0;
        clock->cost[!best] = 0;
        clock->trial = !best;
        return !best;
    }
    return best;
}

/* Lets as many workers claim points as the writer can keep up with, from
 * the time both sides spent per point since the last choice. The job's
 * lock is held. */
static void choose_workers(section_job *job, int jobs, writer_clock *clock)
{
    double now = util_monotonic();
    if (clock->write_points < CHOOSE_AFTER_POINTS || job->work_points == 0 ||
        now - clock->since < CHOOSE_AFTER_S)
        return;
    double work_per_point = job->work_s / (double)job->work_points;
    double write_per_point = clock->write_s / (double)clock->write_points;
    double wanted = write_per_point > 0 ? ceil(work_per_point / write_per_point) : jobs;
    int before = job->active_workers;
    double cpu_now = thread_cpu_s();
    double cost = writer_cost(clock, now, cpu_now, job->written - clock->since_written);
    if (wanted >= 2)
        job->active_workers = wanted > jobs ? jobs : (int)wanted;
    else
        job->active_workers = writer_bound_choice(clock, before, cost);
    if (job->active_workers > before)
        pthread_cond_broadcast(clock->idle);
    clock->point_s = work_per_point;
    job->work_s = clock->write_s = 0;
    job->work_points = clock->write_points = 0;
    clock->since = now;
    clock->cpu_since = cpu_now;
    clock->wait_s = 0;
    clock->since_written = job->written;
}

static int slot_done(const section_job *job, uint64_t index)
{
    const finished_point *f = &job->window[index % job->window_size];
    return f->state == SLOT_DONE && f->index == index;
}

/* Waits (the job's lock held) until the next point is done and, when the
 * workers are quick, the batch after it: the writer then wakes once per
 * batch, not once per point. */
static void wait_for_batch(section_job *job, writer_clock *clock, uint64_t most)
{
    uint64_t want = 1;
    double point_s =
        job->work_points >= 8 ? job->work_s / (double)job->work_points : clock->point_s;
    if (point_s > 0 && job->active_workers > 0) {
        double batch = ceil(WAKE_BATCH_S * job->active_workers / point_s);
        want = batch >= (double)most ? most : batch < 1 ? 1 : (uint64_t)batch;
    }
    if (want > job->count - job->written)
        want = job->count - job->written;
    uint64_t last = job->written + want - 1;
    if (slot_done(job, job->written) && slot_done(job, last))
        return;
    double started = util_monotonic();
    while (!slot_done(job, job->written) || !slot_done(job, last)) {
        job->wake_at = slot_done(job, last) ? job->written : last;
        pthread_cond_wait(&job->slot_done, &job->lock);
    }
    clock->wait_s += util_monotonic() - started;
}

/* No worker active and none running: the writer claims the next points,
 * at most `most`, and runs them itself, as --jobs 1 does. The job's lock
 * is held, and released while they run. */
static void run_here(section_job *job, runner_point *point, uint64_t most)
{
    uint64_t first = job->next_index, n = job->count - first;
    if (n > most)
        n = most;
    job->next_index += n;
    RUNNER_BUG_IF(first + n > job->written + job->window_size,
                  "the writer claimed more of the reorder window than is free");
    for (uint64_t i = 0; i < n; i++) {
        finished_point *f = &job->window[(first + i) % job->window_size];
        f->state = SLOT_RUNNING;
        f->index = first + i;
    }
    pthread_mutex_unlock(&job->lock);
    double started = util_monotonic();
    for (uint64_t i = 0; i < n; i++)
        run_claimed(job, point, 1, &job->window[(first + i) % job->window_size]);
    double spent_s = util_monotonic() - started;
    pthread_mutex_lock(&job->lock);
    job->work_s += spent_s;
    job->work_points += n;
    for (uint64_t i = 0; i < n; i++)
        job->window[(first + i) % job->window_size].state = SLOT_DONE;
}

/* Takes the points the workers finish, in point order, until all are
 * written or one says stop. point is the writer's own, for running points
 * itself (clock->can_run_here). Returns 0, or -1 with *err. */
static int write_in_order(section_job *job, int jobs, writer_clock *clock, runner_point *point,
                          int64_t section_id, table *result, progress *bar, char **err)
{
    int stop_here = 0;
    pthread_mutex_lock(&job->lock);
    while (job->written < job->count && !stop_here) {
        /* Take the finished points in a row, up to a quarter of the window,
         * then write them without the lock: one hand-off per batch, not per
         * point, and room left for the workers meanwhile. */
        uint64_t most = job->window_limit / 4 ? job->window_limit / 4 : 1;
        if (job->active_workers == 0 && job->next_index == job->written)
            run_here(job, point, most);
        else
            wait_for_batch(job, clock, most);
        uint64_t ready = 0;
        while (job->written + ready < job->count && ready < most &&
               slot_done(job, job->written + ready))
            ready++;
        pthread_mutex_unlock(&job->lock);
        uint64_t consumed = 0;
        double started = util_monotonic();
        if (write_ready(job, ready, section_id, result, bar, &consumed, &stop_here, err) != 0)
            return -1;
        progress_update(bar, job->written + consumed);
        clock->write_s += util_monotonic() - started;
        clock->write_points += consumed;
        pthread_mutex_lock(&job->lock);
        for (uint64_t i = 0; i < consumed; i++)
            job->window[(job->written + i) % job->window_size].state = SLOT_FREE;
        job->written += consumed;
        job->window_limit = sweepi_window_limit(job);
        choose_workers(job, jobs, clock);
        if (stop_here)
            job->cancel = 1;
        /* A worker waits on a full window: wake it once half is free, so
         * that it refills half a window per wake-up, not a batch. */
        if (job->cancel ||
            job->next_index + job->window_limit / 2 <= job->written + job->window_limit)
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
    runner_point point;
    writer_clock clock = { .since = util_monotonic(),
                           .cpu_since = thread_cpu_s(),
                           .retry_after = RETRY_CHOICES,
                           .trial = -1,
                           .idle = &idle };
    clock.can_run_here = host_point_init(&point, job->plugin, job->run->options->stop) == 0;
    int rc = started == 0
                 ? util_fail(err, "cannot start worker threads")
                 : write_in_order(job, started, &clock, &point, section_id, result, bar, err);
    if (clock.can_run_here)
        host_point_free(&point);
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
