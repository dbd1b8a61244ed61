/* sweep_mpi_writer: rank 0's writer thread for a distributed section
 * (sweep_mpi.c). The thread that talks MPI takes each RESULTS message into
 * the reorder window and hands its points over; this thread stores them in
 * point order, a batch at a time, so storing overlaps receiving and handing
 * out chunks (before, a worker waited while rank 0 stored). It makes no MPI
 * call: every call stays on the thread that runs the section.
 *
 * Who touches a window slot: its owner, the MPI thread while the slot is
 * free or running, the writer once it is done; the state and index change
 * under job->lock, but for the writer's batch (slots it empties without the
 * lock, and which nobody else looks at until it frees them under the lock).
 * job->written and job->window_limit are the writer's, read under the lock. */
#include "sweep_int.h"

#include <signal.h>
#include <stdlib.h>

#include "base/bug.h"
#include "base/progress.h"
#include "base/stop_signals.h"
#include "base/util.h"

struct mpi_writer {
    section_job *job;
    int64_t section_id;
    table *result;
    progress *bar;
    pthread_t thread;
    /* Under job->lock: */
    int no_more;     /* nothing more will be handed over: write what is done, leave */
    int waiting;     /* the writer sleeps until the slot at job->written is done */
    uint64_t batch;  /* points it is writing, without the lock (their slots are its) */
    int left;        /* the writer is gone (all written, stopped, or failed) */
    int failed;      /* left on a store error, err says which */
    int interrupted; /* it met a point cut short by a stop request */
    char *err;       /* owned */
};

static int slot_done(const section_job *job, uint64_t index)
{
    const finished_point *f = &job->window[index % job->window_size];
    return f->state == SLOT_DONE && f->index == index;
}

/* Writes `ready` done points from the head of the window, without the lock.
 * *consumed counts the points taken (written or not); *stop_here is set at
 * an interrupted point or at a failed one that stops the sweep. Returns 0,
 * or -1 with *err. */
static int write_batch(mpi_writer *w, uint64_t ready, uint64_t *consumed, int *stop_here,
                       char **err)
{
    section_job *job = w->job;
    const runner_plugin *plugin = job->plugin;
    for (*consumed = 0; *consumed < ready && !*stop_here; (*consumed)++) {
        finished_point *f = &job->window[(job->written + *consumed) % job->window_size];
        job->values_written += plugin->param_count + (uint64_t)f->row_count * plugin->column_count;
        if (f->interrupted) {
            /* A worker's point was cut short: not a result, and the end. */
            w->interrupted = *stop_here = 1;
            sweepi_clear_finished(f, plugin);
            continue;
        }
        int stop = sweepi_write_in_turn(job, w->section_id, f, w->result, w->bar, err);
        if (stop < 0)
            return -1;
        *stop_here = stop;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    mpi_writer *w = arg;
    section_job *job = w->job;
    int stop_here = 0, failed = 0;
    char *err = NULL;
    pthread_mutex_lock(&job->lock);
    while (!stop_here && !failed) {
        while (job->written < job->count && !slot_done(job, job->written) && !w->no_more) {
            w->waiting = 1;
            pthread_cond_wait(&job->slot_done, &job->lock);
        }
        w->waiting = 0;
        /* The done points in a row, up to a quarter of the window: one
         * hand-off per batch, and room left for the next chunks. */
        uint64_t most = job->window_limit / 4 ? job->window_limit / 4 : 1;
        uint64_t ready = 0;
        while (job->written + ready < job->count && ready < most &&
               slot_done(job, job->written + ready))
            ready++;
        if (ready == 0)
            break; /* all written, or nothing more comes */
        w->batch = ready;
        pthread_mutex_unlock(&job->lock);
        uint64_t consumed = 0;
        failed = write_batch(w, ready, &consumed, &stop_here, &err) != 0;
        progress_update(w->bar, job->written + consumed);
        pthread_mutex_lock(&job->lock);
        for (uint64_t i = 0; i < consumed; i++)
            job->window[(job->written + i) % job->window_size].state = SLOT_FREE;
        job->written += consumed;
        w->batch = 0;
        job->window_limit = sweepi_window_limit(job);
        pthread_cond_signal(&job->slot_free);
    }
    w->left = 1;
    w->failed = failed;
    w->err = err;
    pthread_cond_signal(&job->slot_free);
    pthread_mutex_unlock(&job->lock);
    return NULL;
}

int sweepi_writer_start(section_job *job, int64_t section_id, table *result, progress *bar,
                        mpi_writer **writer, char **err)
{
    mpi_writer *w = calloc(1, sizeof *w);
    if (!w)
        return util_fail(err, "out of memory");
    *w = (mpi_writer){ .job = job, .section_id = section_id, .result = result, .bar = bar };
    /* The writer (it inherits this mask) never takes Ctrl-C or SIGTERM:
     * they go to another thread, such as the MPI thread, whose naps they
     * cut short so it sees the stop at once. */
    sigset_t stop_signals, old_mask;
    stop_signals_fill(&stop_signals);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);
    int created = pthread_create(&w->thread, NULL, writer_main, w);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (created != 0) {
        free(w);
        return util_fail(err, "cannot start rank 0's writer thread");
    }
    *writer = w;
    return 0;
}

void sweepi_writer_hand_over(mpi_writer *w, const uint64_t *indices, size_t count)
{
    section_job *job = w->job;
    pthread_mutex_lock(&job->lock);
    int wakes = 0;
    for (size_t i = 0; i < count; i++) {
        finished_point *f = &job->window[indices[i] % job->window_size];
        /* Slot ownership (docs/architecture.md, "Who owns what"): only a
         * slot the MPI thread claimed for this point becomes the writer's. */
        RUNNER_BUG_IF(f->state != SLOT_RUNNING || f->index != indices[i],
                      "the MPI thread handed over a slot it does not hold");
        f->state = SLOT_DONE;
        wakes |= indices[i] == job->written;
    }
    if (wakes && w->waiting)
        pthread_cond_signal(&job->slot_done);
    pthread_mutex_unlock(&job->lock);
}

void sweepi_writer_claim(mpi_writer *w, uint64_t first, uint64_t count)
{
    section_job *job = w->job;
    pthread_mutex_lock(&job->lock);
    for (uint64_t i = first; i < first + count; i++) {
        finished_point *f = &job->window[i % job->window_size];
        /* The reorder window is a ring: a claim past written + window_size,
         * or of a slot not yet emptied, would take one the writer holds. */
        RUNNER_BUG_IF(i >= job->written + job->window_size || f->state != SLOT_FREE,
                      "the MPI thread claimed a slot of the reorder window still held");
        f->index = i;
        f->state = SLOT_RUNNING;
    }
    pthread_mutex_unlock(&job->lock);
}

int sweepi_writer_progress(mpi_writer *w, uint64_t *written, size_t *window_limit)
{
    section_job *job = w->job;
    pthread_mutex_lock(&job->lock);
    *written = job->written;
    *window_limit = job->window_limit;
    int left = w->left;
    pthread_mutex_unlock(&job->lock);
    return left;
}

int sweepi_writer_wait(mpi_writer *w, uint64_t written)
{
    section_job *job = w->job;
    pthread_mutex_lock(&job->lock);
    /* Busy: writing a batch (whose slots are not looked at meanwhile), or
     * the point at the head is done. */
    while (!w->left && job->written == written && (w->batch || slot_done(job, written)))
        pthread_cond_wait(&job->slot_free, &job->lock);
    int moved = w->left || job->written != written;
    pthread_mutex_unlock(&job->lock);
    return moved;
}

int sweepi_writer_finish(mpi_writer *w, int *interrupted, char **err)
{
    if (!w)
        return 0;
    section_job *job = w->job;
    pthread_mutex_lock(&job->lock);
    w->no_more = 1;
    pthread_cond_signal(&job->slot_done);
    pthread_mutex_unlock(&job->lock);
    pthread_join(w->thread, NULL);
    *interrupted = w->interrupted;
    int rc = 0;
    if (w->failed) {
        if (err && !*err) {
            *err = w->err;
            w->err = NULL;
        }
        rc = -1;
    }
    free(w->err);
    free(w);
    return rc;
}
