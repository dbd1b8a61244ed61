/* sweep_mpi: rank 0's side of a section under MPI (docs/mpi.md; the
 * messages: sweep_int.h). A distributed section hands chunks of points to
 * the worker ranks and takes their results into the reorder window, which
 * a writer thread stores in point order meanwhile (sweep_mpi_writer.c); a
 * collective one runs every point on every rank at once. Every MPI call is
 * made on the calling thread. The workers' side is sweep_serve.c. */
#include "sweep_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/progress.h"
#include "base/util.h"
#include "base/wire.h"
#include "exec/exec.h"
#include "mpi/mpi_pool.h"
#include "plugin/plugin.h"

/* Points per POINTS message: enough of a worker's time (CHUNK_TARGET_S,
 * learnt from the durations workers report) that rank 0's naps between
 * polls (up to 1 ms) never leave a worker idle and that a message costs
 * little per point, but no more than a quarter of what is left per worker,
 * so a section's end stays balanced. A section starts at one point per
 * chunk, so slow points are never handed out in bulk before their time is
 * known. */
#define CHUNK_MAX 256
#define CHUNK_TARGET_S 0.004
/* Reorder-window slots: three chunks per worker (two out, one waiting to be
 * written behind a slower worker's), at most this many in all (about 0.5
 * KB each before rows), and never fewer than this per worker. */
#define DISTRIBUTED_WINDOW_MAX 16384
#define DISTRIBUTED_WINDOW_PER_WORKER 8
/* After a stop request (Ctrl-C, or the launcher's SIGTERM when a rank died)
 * rank 0 commits what it wrote at once, then waits this long for points
 * still out before it gives up on them. Open MPI's mpirun sends SIGKILL 1 s
 * after SIGTERM (odls_base_sigkill_timeout), so this stays under that. */
#define STOP_GRACE_S 0.5

/* Sizes job's window for a distributed section (see above). */
static void distributed_window(section_job *job)
{
    uint64_t workers = (uint64_t)mpi_pool_size() - 1;
    uint64_t window = workers * CHUNK_MAX * 3;
    uint64_t floor = workers * DISTRIBUTED_WINDOW_PER_WORKER;
    if (window > DISTRIBUTED_WINDOW_MAX)
        window = DISTRIBUTED_WINDOW_MAX > floor ? DISTRIBUTED_WINDOW_MAX : floor;
    if (window > job->count)
        window = job->count;
    if (floor > window)
        floor = window;
    job->window_size = window > 0 ? (size_t)window : 1;
    job->window_floor = floor > 0 ? (size_t)floor : 1;
}

/* Where a section's points run: here without MPI; under MPI a collective
 * plugin's on every rank at once (window of one), any other's, a command's
 * included, on the worker ranks (window sized for them). */
section_mode sweepi_remote_mode(section_job *job)
{
    if (mpi_pool_size() <= 1)
        return SECTION_LOCAL;
    if (plugin_flags(job->plugin) & RUNNER_PLUGIN_COLLECTIVE) {
        job->window_size = job->window_floor = 1;
        return SECTION_COLLECTIVE;
    }
    distributed_window(job);
    return SECTION_DISTRIBUTED;
}

/* Tells every worker about the section and waits until each says whether it
 * can run it. Returns 0; 1 when stopped meanwhile (a signal, or a rank
 * lost: MPI is abandoned); or -1 with *err naming the ranks that cannot
 * (the section is then closed on every rank). */
static int open_remote_section(const section_job *job, const loaded_plugin *lp, int collective,
                               char **err)
{
    int size = mpi_pool_size(), not_ready = 0;
    char *why = NULL;
    wire_writer w = { 0 };
    wire_put_text(&w, lp->desc->name);
    wire_put_text(&w, lp->sha256);
    wire_put_u8(&w, (uint8_t)collective);
    wire_put_u8(&w, (uint8_t)(job->run->options->isolate && !collective));
    wire_put_f64(&w, job->run->options->point_timeout_s);
    /* The workers never ran the script: a command travels as declared. */
    int command = exec_is_command(lp->desc);
    wire_put_u8(&w, (uint8_t)command);
    if (command)
        exec_command_encode(lp->desc, &w);
    if (w.failed) {
        wire_writer_free(&w);
        return util_fail(err, "out of memory");
    }
    for (int r = 1; r < size; r++)
        if (mpi_pool_send(r, TAG_SECTION, w.data, w.len, err) != 0) {
            wire_writer_free(&w);
            mpi_pool_abandon();
            return -1;
        }
    wire_writer_free(&w);
    for (int i = 1; i < size; i++) {
        mpi_pool_message msg;
        int got = mpi_pool_receive(MPI_POOL_ANY, TAG_READY, job->run->options->stop, STOP_GRACE_S,
                                   &msg, err);
        if (got <= 0) {
            free(why);
            mpi_pool_abandon();
            return got < 0 ? -1 : 1;
        }
        wire_reader r = wire_reader_of(msg.data, msg.len);
        int ok = wire_get_u8(&r);
        char *reason = wire_get_text(&r);
        if (!ok || r.failed) {
            not_ready++;
            if (!why)
                why = reason ? reason : util_format("rank %d: malformed reply", msg.source);
            else
                free(reason);
        } else {
            free(reason);
        }
        free(msg.data);
    }
    if (!not_ready)
        return 0;
    job->run->ranks_not_ready = 1;
    char *none = NULL;
    if (collective) {
        size_t len = 0;
        mpi_pool_broadcast(&none, &len, NULL);
    } else {
        for (int r = 1; r < size; r++)
            mpi_pool_send(r, TAG_END, NULL, 0, NULL);
    }
    char more[48] = "";
    if (not_ready > 1)
        snprintf(more, sizeof more, " (and %d more rank%s)", not_ready - 1,
                 not_ready > 2 ? "s" : "");
    util_fail(err, "%s%s; every rank needs the same %s", why ? why : "a rank cannot run the plugin",
              more,
              command ? "programs (the same file at the same path or on PATH)"
                      : "plugins (same --plugin-dir, same build)");
    free(why);
    return -1;
}

/* Rank 0's bookkeeping for a distributed section. */
typedef struct dispatch {
    int workers;   /* ranks 1..workers run points */
    uint64_t *out; /* points out, per worker (index 1..workers) */
    /* Workers running low (at most a chunk out), first come first served,
     * so handing out a chunk never scans every worker. */
    int *hungry;     /* a ring of workers+1 */
    uint8_t *queued; /* per worker: in hungry */
    size_t hungry_head, hungry_count;
    uint64_t next;        /* the next point to hand out */
    uint64_t outstanding; /* points out in all */
    double point_s_sum;   /* the workers' durations of the points back */
    uint64_t points_back;
    int dispatching;   /* still handing out points */
    int broken;        /* a worker is gone or stuck: no clean end */
    double give_up_at; /* see await_message */
    wire_writer w;     /* the POINTS message being built */
    mpi_writer *writer;
    /* The writer's progress when last asked (sweepi_writer_progress). */
    uint64_t written;
    size_t window_limit;
    uint8_t *awaiting; /* per window slot: a result is due (this thread's) */
    uint64_t *handed;  /* a message's points, for sweepi_writer_hand_over */
} dispatch;

static void hungry_push(dispatch *d, int worker)
{
    if (d->queued[worker])
        return;
    d->queued[worker] = 1;
    d->hungry[(d->hungry_head + d->hungry_count++) % ((size_t)d->workers + 1)] = worker;
}

static int hungry_pop(dispatch *d)
{
    if (!d->hungry_count)
        return 0;
    int worker = d->hungry[d->hungry_head];
    d->hungry_head = (d->hungry_head + 1) % ((size_t)d->workers + 1);
    d->hungry_count--;
    d->queued[worker] = 0;
    return worker;
}

/* The size of the next chunk (see CHUNK_MAX). */
static uint64_t next_chunk(const section_job *job, const dispatch *d)
{
    uint64_t chunk = CHUNK_MAX;
    if (d->points_back && d->point_s_sum > 0) {
        double by_time = CHUNK_TARGET_S / (d->point_s_sum / (double)d->points_back);
        if (by_time < (double)chunk)
            chunk = by_time < 1 ? 1 : (uint64_t)by_time;
    } else {
        chunk = 1; /* nothing is known of the points' time yet */
    }
    uint64_t share = (job->count - d->next) / ((uint64_t)d->workers * 4);
    if (chunk > share)
        chunk = share;
    uint64_t room = d->window_limit / ((size_t)d->workers * 3);
    if (chunk > room)
        chunk = room;
    return chunk < 1 ? 1 : chunk;
}

/* Rebuilds a RESULTS message (one or more points) into the window slots its
 * points occupy and hands them to the writer. Returns the number of points,
 * or -1 with *err. */
static int64_t take_results(section_job *job, dispatch *d, const mpi_pool_message *msg, char **err)
{
    wire_reader r = wire_reader_of(msg->data, msg->len);
    uint32_t n = wire_get_u32(&r);
    size_t columns = job->plugin->column_count;
    for (uint32_t i = 0; i < n && !r.failed && i < job->window_size; i++) {
        uint64_t ordinal = wire_get_u64(&r);
        /* The grid's ordinal back to the job's count (--shard: one a run). */
        uint64_t index = shard_walk_index(&job->walk, ordinal);
        uint8_t status = wire_get_u8(&r);
        uint8_t interrupted = wire_get_u8(&r);
        double started_at = wire_get_f64(&r), duration_s = wire_get_f64(&r);
        size_t slot = (size_t)(index % job->window_size);
        finished_point *f = &job->window[slot];
        /* A slot not awaiting a result may be the writer's: not looked at. */
        if (r.failed || status > 3 || !d->awaiting[slot] || f->index != index)
            break;
        d->awaiting[slot] = 0;
        d->handed[i] = index;
        int failed;
        if (wire_get_outcome(&r, columns, &failed, &f->error, &f->rows, &f->row_count) != 0 ||
            sweepi_get_artifacts(&r, &f->artifacts) != 0 || sweepi_get_runs(&r, &f->runs) != 0)
            break;
        f->status = sweepi_status_names[status];
        f->failed = status != 0;
        f->interrupted = interrupted;
        f->started_at = started_at;
        f->duration_s = duration_s;
        if (f->failed && !f->error)
            f->error = util_strdup("failed without a message");
        if (duration_s > 0) {
            d->point_s_sum += duration_s;
            d->points_back++;
        }
        if (i + 1 == n && r.pos == r.len) {
            sweepi_writer_hand_over(d->writer, d->handed, n);
            return n;
        }
    }
    if (n == 0 && !r.failed && r.pos == r.len)
        return 0;
    mpi_pool_abandon();
    return util_fail(err,
                     "a malformed result message from rank %d (are all ranks the same "
                     "runner build?)",
                     msg->source);
}

/* Waits for a message with `tag` from any worker. Once *stop is set it
 * first commits what was written (the launcher may SIGKILL this rank soon),
 * then waits until *give_up_at (0: not stopping yet). The commit holds
 * store_lock, as the writer's and the lease thread's calls do (sweep.c,
 * flush_for_lease), so no two use the connection at once. Returns 1 with
 * *msg, 0 when it gave up, -1 with *err. */
static int await_message(sweep_run *run, pthread_mutex_t *store_lock, int tag, double *give_up_at,
                         mpi_pool_message *msg, char **err)
{
    for (;;) {
        int stopping = *give_up_at > 0;
        double grace = stopping ? *give_up_at - util_monotonic() : 0;
        int got = mpi_pool_receive(MPI_POOL_ANY, tag, run->options->stop, grace > 0 ? grace : 0,
                                   msg, err);
        if (got != 0 || stopping)
            return got;
        pthread_mutex_lock(store_lock);
        int flushed = store_flush(run->store, err);
        pthread_mutex_unlock(store_lock);
        if (flushed != 0)
            return -1;
        *give_up_at = util_monotonic() + STOP_GRACE_S;
    }
}

/* Hands out chunks to the workers running low while the window has room.
 * Points an earlier run stored are handed to the writer instead of sent.
 * Returns 0, or -1 with *err (d->broken when a send failed). */
static int dispatch_points(section_job *job, dispatch *d, char **err)
{
    sweep_run *run = job->run;
    while (d->dispatching && d->next < job->count && d->hungry_count &&
           d->next < d->written + d->window_limit) {
        if (sweepi_stopping(run)) {
            d->dispatching = 0;
            break;
        }
        uint64_t chunk = next_chunk(job, d);
        if (chunk > d->written + d->window_limit - d->next)
            chunk = d->written + d->window_limit - d->next;
        uint32_t n = 0;
        size_t skipped = 0;
        d->w.len = 0;
        wire_put_u32(&d->w, 0); /* n, filled in below */
        sweepi_writer_claim(d->writer, d->next, chunk);
        for (uint64_t i = 0; i < chunk; i++, d->next++) {
            finished_point *f = &job->window[d->next % job->window_size];
            sweepi_prepare_point(job, f);
            if (f->fatal)
                return util_fail(err, "%s", f->fatal);
            if (f->skipped) {
                d->handed[skipped++] = f->index;
                continue;
            }
            d->awaiting[d->next % job->window_size] = 1;
            wire_put_u64(&d->w, sweepi_ordinal(job, f->index)); /* comes back with its result */
            wire_put_u64(&d->w, f->seed);
            wire_put_cells(&d->w, f->params, job->plugin->param_count);
            n++;
        }
        if (skipped)
            sweepi_writer_hand_over(d->writer, d->handed, skipped);
        if (d->w.failed)
            return util_fail(err, "out of memory");
        if (n == 0)
            continue; /* every point of the chunk was stored already */
        memcpy(d->w.data, &n, sizeof n);
        int worker = hungry_pop(d);
        if (mpi_pool_send(worker, TAG_POINTS, d->w.data, d->w.len, err) != 0) {
            d->broken = 1;
            return -1;
        }
        d->out[worker] += n;
        d->outstanding += n;
        if (d->out[worker] <= chunk)
            hungry_push(d, worker); /* starting up: one chunk is not enough */
    }
    return 0;
}

/* The number of points in a RESULTS message (0 when malformed). */
static uint32_t results_count(const mpi_pool_message *msg)
{
    wire_reader r = wire_reader_of(msg->data, msg->len);
    uint32_t n = wire_get_u32(&r);
    return r.failed ? 0 : n;
}

/* Counts n points of `worker` as back, and queues it when it runs low. */
static void points_back(const section_job *job, dispatch *d, int worker, uint64_t n)
{
    if (n > d->outstanding)
        n = d->outstanding;
    d->outstanding -= n;
    if (worker < 1 || worker > d->workers)
        return;
    d->out[worker] -= n < d->out[worker] ? n : d->out[worker];
    if (d->dispatching && d->out[worker] <= next_chunk(job, d))
        hungry_push(d, worker);
}

/* Waits for one RESULTS message and takes it into the window. Returns 1
 * with a result taken, 0 when it gave up waiting (stopped), -1 with *err;
 * d->broken unless 1. */
static int receive_results(section_job *job, dispatch *d, char **err)
{
    mpi_pool_message msg;
    int got = await_message(job->run, &job->store_lock, TAG_RESULTS, &d->give_up_at, &msg, err);
    if (got <= 0) {
        d->broken = 1;
        return got;
    }
    int64_t n = take_results(job, d, &msg, err);
    if (n >= 0)
        points_back(job, d, msg.source, (uint64_t)n);
    free(msg.data);
    if (n < 0) {
        d->broken = 1;
        return -1;
    }
    return 1;
}

/* Ends the section on the workers: waits for every point still out (or its
 * result would be taken for the next section's), then sends END; or, when
 * a worker is gone or stuck, abandons MPI. Returns rc, or -1 when END could
 * not be sent (with *err when rc was 0). */
static int end_distributed(section_job *job, dispatch *d, int rc, char **err)
{
    sweep_run *run = job->run;
    d->dispatching = 0;
    while (!d->broken && d->outstanding > 0) {
        mpi_pool_message msg;
        char *drain_err = NULL;
        int got =
            await_message(run, &job->store_lock, TAG_RESULTS, &d->give_up_at, &msg, &drain_err);
        free(drain_err);
        if (got <= 0) {
            d->broken = 1;
            break;
        }
        uint32_t n = results_count(&msg);
        points_back(job, d, msg.source, n ? n : 1);
        free(msg.data);
    }
    if (d->broken) {
        /* The job cannot end cleanly, but what was written is committed by
         * the caller (store_flush). */
        mpi_pool_abandon();
        if (sweepi_stopping(run))
            run->interrupted = 1;
        return rc;
    }
    for (int r = 1; r <= d->workers; r++)
        if (mpi_pool_send(r, TAG_END, NULL, 0, rc == 0 ? err : NULL) != 0 && rc == 0) {
            mpi_pool_abandon();
            return -1;
        }
    return rc;
}

/* A section whose points run on the worker ranks, one rank per point: rank 0
 * prepares each point (identity, seed, resume), sends chunks of them, and
 * takes the results into the same reorder window as local threads, which
 * its writer thread empties in point order through write_point. Returns 0
 * (interrupted or not), or -1 with *err when communication or storing
 * failed. */
int sweepi_run_distributed(section_job *job, const loaded_plugin *lp, int64_t section_id,
                           table *result, progress *bar, char **err)
{
    sweep_run *run = job->run;
    dispatch d = { .workers = mpi_pool_size() - 1, .dispatching = 1 };
    int rc = -1, writer_interrupted = 0;
    d.out = calloc((size_t)d.workers + 1, sizeof *d.out);
    d.hungry = calloc((size_t)d.workers + 1, sizeof *d.hungry);
    d.queued = calloc((size_t)d.workers + 1, 1);
    d.awaiting = calloc(job->window_size, 1);
    d.handed = calloc(job->window_size, sizeof *d.handed);
    if (!d.out || !d.hungry || !d.queued || !d.awaiting || !d.handed) {
        rc = util_fail(err, "out of memory");
        goto freed;
    }
    int opened = open_remote_section(job, lp, 0, err);
    if (opened != 0) {
        if (opened > 0) {
            run->interrupted = 1;
            rc = 0;
        }
        goto freed;
    }
    if (sweepi_writer_start(job, section_id, result, bar, &d.writer, err) != 0)
        goto done;
    for (int r = 1; r <= d.workers; r++)
        hungry_push(&d, r);
    for (;;) {
        if (sweepi_writer_progress(d.writer, &d.written, &d.window_limit))
            break; /* all written, or it stopped at a point, or failed */
        if (dispatch_points(job, &d, err) != 0)
            goto done;
        /* The window full and the writer busy, results can wait (a worker
         * holds a chunk ahead): sleep until it has written a batch instead
         * of polling meanwhile, which took rank 0's cores from it. */
        if (d.dispatching && d.next < job->count && d.next >= d.written + d.window_limit &&
            sweepi_writer_wait(d.writer, d.written))
            continue;
        if (d.outstanding == 0)
            break; /* nothing out and nothing more to hand out */
        int got = receive_results(job, &d, err);
        if (got < 0)
            goto done;
        if (got == 0)
            break; /* stopped, and the points still out never came back */
        if (sweepi_stopping(run))
            d.dispatching = 0;
    }
    rc = 0;
done:
    /* What is done in a row is written first (a store error then stops
     * the run with its message), then the section ends on the workers. */
    if (sweepi_writer_finish(d.writer, &writer_interrupted, err) != 0)
        rc = -1;
    if (writer_interrupted)
        run->interrupted = 1; /* a worker's point was cut short */
    if (rc == 0 && job->written < job->count && sweepi_stopping(run))
        run->interrupted = 1;
    rc = end_distributed(job, &d, rc, err);
    /* Slots handed out but never written still hold their rows. */
    for (size_t i = 0; i < job->window_size; i++)
        sweepi_clear_finished(&job->window[i], job->plugin);
    wire_writer_free(&d.w);
freed:
    free(d.out);
    free(d.hungry);
    free(d.queued);
    free(d.awaiting);
    free(d.handed);
    return rc;
}

/* After a collective point: every worker's STATUS. A point that failed or
 * was interrupted on any rank is that for the sweep too. Returns 0, 1 when
 * the statuses never came (stopped), -1 with *err. */
static int collect_statuses(sweep_run *run, pthread_mutex_t *store_lock,
                            const runner_plugin *plugin, finished_point *f, char **err)
{
    double give_up_at = 0;
    for (int i = 1; i < mpi_pool_size(); i++) {
        mpi_pool_message msg;
        int got = await_message(run, store_lock, TAG_STATUS, &give_up_at, &msg, err);
        if (got <= 0)
            return got < 0 ? -1 : 1;
        wire_reader r = wire_reader_of(msg.data, msg.len);
        int failed = wire_get_u8(&r), interrupted = wire_get_u8(&r);
        char *error = wire_get_text(&r);
        if (r.failed) {
            free(error);
            free(msg.data);
            return util_fail(err, "a malformed status message from rank %d", msg.source);
        }
        if (interrupted)
            f->interrupted = 1;
        else if (failed && !f->failed) {
            f->failed = 1;
            f->status = "failed";
            f->error = util_format("rank %d: %s", msg.source,
                                   error && *error ? error : "failed without a message");
            for (size_t c = 0; c < f->row_count * plugin->column_count; c++)
                value_clear(&f->rows[c]);
            free(f->rows);
            f->rows = NULL;
            f->row_count = 0;
        }
        free(error);
        free(msg.data);
    }
    return 0;
}

/* A collective section: every rank runs every point together (the plugin
 * may call allreduce_sum), in point order; rank 0 broadcasts each point and
 * stores its own rows. Returns 0 (interrupted or not), or -1 with *err. */
int sweepi_run_collective(section_job *job, const loaded_plugin *lp, int64_t section_id,
                          table *result, progress *bar, char **err)
{
    sweep_run *run = job->run;
    const runner_plugin *plugin = job->plugin;
    runner_point point;
    wire_writer w = { 0 };
    int rc = -1, broken = 0;
    if (host_point_init(&point, plugin, run->options->stop) != 0)
        return util_fail(err, "out of memory");
    point.rank = 0;
    point.size = mpi_pool_size();
    int opened = open_remote_section(job, lp, 1, err);
    if (opened != 0) {
        host_point_free(&point);
        if (opened < 0)
            return -1;
        run->interrupted = 1;
        return 0;
    }
    if (run->options->isolate)
        log_print(LOG_LEVEL_WARN,
                  "runner: %s is a collective plugin: on %d ranks its points run in the "
                  "ranks' own processes, not isolated\n",
                  plugin->name, point.size);
    finished_point *f = &job->window[0];
    for (uint64_t index = 0; index < job->count; index++) {
        if (sweepi_stopping(run)) {
            run->interrupted = 1;
            break;
        }
        f->index = index;
        sweepi_prepare_point(job, f);
        if (f->fatal) {
            util_fail(err, "%s", f->fatal);
            goto done;
        }
        if (!f->skipped) {
            w.len = 0;
            wire_put_u64(&w, sweepi_ordinal(job, f->index)); /* the worker ranks name it */
            wire_put_u64(&w, f->seed);
            wire_put_cells(&w, f->params, plugin->param_count);
            if (w.failed) {
                util_fail(err, "out of memory");
                goto done;
            }
            char *data = w.data;
            size_t len = w.len;
            if (mpi_pool_broadcast(&data, &len, err) != 0) {
                broken = 1;
                goto done;
            }
            sweepi_execute_point(&point, f, sweepi_ordinal(job, f->index), 0, 0,
                                 run->options->stop);
            int got = collect_statuses(run, &job->store_lock, plugin, f, err);
            if (got != 0) {
                broken = 1;
                if (got < 0)
                    goto done;
                f->interrupted = 1;
            }
        }
        if (f->interrupted) {
            run->interrupted = 1;
            break;
        }
        int stop = sweepi_write_in_turn(job, section_id, f, result, bar, err);
        if (stop < 0)
            goto done;
        progress_update(bar, index + 1);
        if (stop)
            break;
    }
    rc = 0;
done:
    if (broken) {
        mpi_pool_abandon();
    } else {
        char *none = NULL;
        size_t len = 0;
        if (mpi_pool_broadcast(&none, &len, rc == 0 ? err : NULL) != 0) {
            mpi_pool_abandon();
            rc = -1;
        }
    }
    sweepi_clear_finished(f, plugin);
    wire_writer_free(&w);
    host_point_free(&point);
    return rc;
}
