/* sweep: the point loop. Points run on `jobs` threads (or inline for one
 * job), or under MPI on the worker ranks; a reorder window hands them to the
 * single writer in point order, so rows, their order and their ids are the
 * same for any number of jobs or ranks. The workers' side of MPI is in
 * sweep_serve.c. */
#include "sweep_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/progress.h"
#include "base/util.h"
#include "base/wire.h"
#include "exec/exec.h"
#include "mpi/mpi_pool.h"
#include "plugin/plugin.h"

const char *const sweepi_status_names[4] = { "ok", "failed", "crashed", "timeout" };

int sweepi_stopping(const sweep_run *run)
{
    const volatile sig_atomic_t *stop = run->options->stop;
    return stop && *stop;
}

typedef struct section_job {
    sweep_run *run;
    const runner_plugin *plugin;
    const grid *grid;
    uint64_t count;
    finished_point *window;
    size_t window_size;
    /* Points in flight at most (<= window_size): small for points whose
     * rows are many (memory), large for quick small ones, where a small
     * window made threads sleep and wake for every few points. */
    size_t window_limit;
    size_t window_floor;       /* the limit never goes below this */
    uint64_t values_written;   /* parameter and row values of the points consumed */
    uint64_t next_index;       /* next point a worker may claim */
    uint64_t written;          /* points the writer has consumed */
    int cancel;                /* the writer failed: workers stop */
    store_identity_set *done;  /* identities to skip (resume), may be NULL */
    pthread_mutex_t done_lock; /* guards done */
    store_reuse_set *reuse;    /* --reuse: points other sweeps stored; read-only */
    pthread_mutex_t lock;
    /* Held by the writer inside the store while plugins may run, so that a
     * plugin calling exit() finds the store between calls (mark_exited). */
    pthread_mutex_t store_lock;
    pthread_cond_t slot_done; /* a worker finished a point */
    pthread_cond_t slot_free; /* the writer freed a slot */
} section_job;

/* The reorder window: slots per --jobs thread, at most and at least, and the
 * values (parameters and row cells, about 30 bytes each with their text)
 * that finished points may hold in it, about 8 MB. */
#define WINDOW_SLOTS_PER_JOB 128
#define WINDOW_FLOOR_PER_JOB 16
#define WINDOW_VALUE_BUDGET (1u << 18)

/* The window the points seen so far allow; the job's lock is held. */
static size_t window_limit(const section_job *job)
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

/* Frees what f owns and empties it, keeping its params array. */
void sweepi_clear_finished(finished_point *f, const runner_plugin *plugin)
{
    free(f->canonical);
    free(f->error);
    free(f->fatal);
    for (size_t i = 0; i < f->row_count * plugin->column_count; i++)
        value_clear(&f->rows[i]);
    free(f->rows);
    artifact_list_free(f->artifacts);
    value *params = f->params;
    memset(f, 0, sizeof *f);
    f->params = params;
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
static void prepare_point(section_job *job, finished_point *f)
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
    if (!shard_includes(&job->run->options->shard, f->identity))
        f->skipped = f->elsewhere = 1; /* another shard's (--shard): not run, not stored */
    else if (job->done && take_done(job, f->identity, &f->stored_point_id))
        f->skipped = 1;
    else if (job->reuse && (f->reused = store_reuse_lookup(job->reuse, f->identity, f->seed)))
        f->skipped = 1; /* not run; write_point copies it */
}

/* Runs the plugin on f->params and f->seed with the caller's point, in this
 * process or (isolate) a child, and records the outcome in f: status,
 * timing, error, rows. A failure caused by a stop request is marked
 * interrupted instead: not a result, so a resumed sweep runs it again. */
void sweepi_execute_point(runner_point *point, finished_point *f, int isolate, double timeout_s,
                          const volatile sig_atomic_t *stop)
{
    host_point_reset(point, f->params, f->seed);
    point->index = f->index; /* named if the plugin calls exit() */
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
static void compute_point(section_job *job, runner_point *point, finished_point *f)
{
    prepare_point(job, f);
    if (f->fatal || f->skipped)
        return;
    sweepi_execute_point(point, f, job->run->options->isolate, job->run->options->point_timeout_s,
                         job->run->options->stop);
}

static void *worker_main(void *arg)
{
    section_job *job = arg;
    runner_point point;
    int ready = host_point_init(&point, job->plugin, job->run->options->stop) == 0;
    pthread_mutex_lock(&job->lock);
    for (;;) {
        while (!job->cancel && job->next_index < job->count &&
               job->next_index >= job->written + job->window_limit)
            pthread_cond_wait(&job->slot_free, &job->lock);
        if (job->cancel || job->next_index >= job->count)
            break;
        uint64_t index = job->next_index++;
        finished_point *f = &job->window[index % job->window_size];
        f->state = SLOT_RUNNING;
        f->index = index;
        pthread_mutex_unlock(&job->lock);
        if (ready && !sweepi_stopping(job->run))
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

/* The store record of point f: what every stored point has; the caller adds
 * its status, times and rows. swept (size bytes) holds its swept parameters. */
static store_point point_record(const section_job *job, int64_t section_id, const finished_point *f,
                                char *swept, size_t size)
{
    long swept_len = grid_point_swept(job->grid, f->index, swept, size);
    return (store_point){
        .sweep_id = job->run->sweep_id,
        .section_id = section_id,
        .ordinal = (int64_t)f->index,
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
    if (f->elsewhere)
        return 0;
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
        exec_keep_within_sweep_cap(plugin, f->index, &f->artifacts);
    record.artifacts = f->artifacts;
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
            (unsigned long long)f->index, f->canonical,
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
    return run->failures_stopped[0] != '\0';
}

/* The writer's step for each point in turn: reports it if it failed,
 * stores it and empties its slot. Returns 1 when the section stops here
 * (failures_stop), 0 to go on, -1 with *err. */
static int write_in_turn(section_job *job, int64_t section_id, finished_point *f, table *result,
                         progress *bar, char **err)
{
    pthread_mutex_lock(&job->store_lock);
    if (f->failed)
        report_failure(job, f, bar);
    int rc = write_point(job, section_id, f, result, err);
    pthread_mutex_unlock(&job->store_lock);
    if (rc != 0)
        return -1;
    int failed = f->failed;
    sweepi_clear_finished(f, job->plugin);
    return failed && failures_stop(job->run);
}

/* ---- MPI: rank 0's side (docs/mpi.md; the messages: sweep_int.h) ---- */

typedef enum section_mode {
    SECTION_LOCAL,       /* this process: inline or --jobs threads */
    SECTION_DISTRIBUTED, /* each point on one worker rank */
    SECTION_COLLECTIVE   /* each point on every rank together */
} section_mode;

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

/* Tells every worker about the section and waits until each says whether it
 * can run it. Returns 0, or -1 with *err naming the ranks that cannot (the
 * section is then closed on every rank). */
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
        if (mpi_pool_receive(MPI_POOL_ANY, TAG_READY, NULL, 0, &msg, err) < 0) {
            free(why);
            mpi_pool_abandon();
            return -1;
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
    util_fail(err, "%s%s; every rank needs the same plugins (same --plugin-dir, same build)",
              why ? why : "a rank cannot run the plugin", more);
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
    int writing;       /* still writing results */
    int broken;        /* a worker is gone or stuck: no clean end */
    double give_up_at; /* see await_message */
    wire_writer w;     /* the POINTS message being built */
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
    uint64_t room = job->window_limit / ((size_t)d->workers * 3);
    if (chunk > room)
        chunk = room;
    return chunk < 1 ? 1 : chunk;
}

/* Rebuilds a RESULTS message (one or more points) into the window slots its
 * points occupy. Returns the number of points, or -1 with *err. */
static int64_t take_results(section_job *job, dispatch *d, const mpi_pool_message *msg, char **err)
{
    wire_reader r = wire_reader_of(msg->data, msg->len);
    uint32_t n = wire_get_u32(&r);
    size_t columns = job->plugin->column_count;
    for (uint32_t i = 0; i < n && !r.failed; i++) {
        uint64_t index = wire_get_u64(&r);
        uint8_t status = wire_get_u8(&r);
        uint8_t interrupted = wire_get_u8(&r);
        double started_at = wire_get_f64(&r), duration_s = wire_get_f64(&r);
        finished_point *f = &job->window[index % job->window_size];
        if (r.failed || status > 3 || f->state != SLOT_RUNNING || f->index != index)
            break;
        int failed;
        if (wire_get_outcome(&r, columns, &failed, &f->error, &f->rows, &f->row_count) != 0)
            break;
        f->status = sweepi_status_names[status];
        f->failed = status != 0;
        f->interrupted = interrupted;
        f->started_at = started_at;
        f->duration_s = duration_s;
        if (f->failed && !f->error)
            f->error = util_strdup("failed without a message");
        f->state = SLOT_DONE;
        if (duration_s > 0) {
            d->point_s_sum += duration_s;
            d->points_back++;
        }
        if (i + 1 == n && r.pos == r.len)
            return n;
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
 * then waits until *give_up_at (0: not stopping yet). Returns 1 with *msg,
 * 0 when it gave up, -1 with *err. */
static int await_message(sweep_run *run, int tag, double *give_up_at, mpi_pool_message *msg,
                         char **err)
{
    for (;;) {
        int stopping = *give_up_at > 0;
        double grace = stopping ? *give_up_at - util_monotonic() : 0;
        int got = mpi_pool_receive(MPI_POOL_ANY, tag, run->options->stop, grace > 0 ? grace : 0,
                                   msg, err);
        if (got != 0 || stopping)
            return got;
        if (store_flush(run->store, err) != 0)
            return -1;
        *give_up_at = util_monotonic() + STOP_GRACE_S;
    }
}

/* Hands out chunks to the workers running low while the window has room.
 * Points an earlier run stored are marked done instead of sent. Returns 0,
 * or -1 with *err (d->broken when a send failed). */
static int dispatch_points(section_job *job, dispatch *d, char **err)
{
    sweep_run *run = job->run;
    while (d->dispatching && d->next < job->count && d->hungry_count &&
           d->next < job->written + job->window_limit) {
        if (sweepi_stopping(run)) {
            d->dispatching = 0;
            break;
        }
        uint64_t chunk = next_chunk(job, d);
        if (chunk > job->written + job->window_limit - d->next)
            chunk = job->written + job->window_limit - d->next;
        uint32_t n = 0;
        d->w.len = 0;
        wire_put_u32(&d->w, 0); /* n, filled in below */
        for (uint64_t i = 0; i < chunk; i++, d->next++) {
            finished_point *f = &job->window[d->next % job->window_size];
            f->index = d->next;
            prepare_point(job, f);
            if (f->fatal)
                return util_fail(err, "%s", f->fatal);
            f->state = f->skipped ? SLOT_DONE : SLOT_RUNNING;
            if (f->skipped)
                continue;
            wire_put_u64(&d->w, f->index);
            wire_put_u64(&d->w, f->seed);
            wire_put_cells(&d->w, f->params, job->plugin->param_count);
            n++;
        }
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

/* Writes the finished points at the head of the window, in order, up to
 * the first one still out. Returns 0, or -1 with *err. */
static int write_finished(section_job *job, dispatch *d, int64_t section_id, table *result,
                          progress *bar, char **err)
{
    uint64_t before = job->written;
    while (d->writing && job->written < d->next) {
        finished_point *f = &job->window[job->written % job->window_size];
        if (f->state != SLOT_DONE)
            break;
        if (f->interrupted) {
            job->run->interrupted = 1; /* a worker's point was cut short */
            d->writing = d->dispatching = 0;
            break;
        }
        job->values_written +=
            job->plugin->param_count + (uint64_t)f->row_count * job->plugin->column_count;
        int stop = write_in_turn(job, section_id, f, result, bar, err);
        if (stop < 0)
            return -1;
        job->written++;
        if (stop)
            d->writing = d->dispatching = 0;
    }
    if (job->written != before) {
        job->window_limit = window_limit(job);
        progress_update(bar, job->written);
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
    int got = await_message(job->run, TAG_RESULTS, &d->give_up_at, &msg, err);
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
        int got = await_message(run, TAG_RESULTS, &d->give_up_at, &msg, &drain_err);
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
 * writes the results in point order through the same reorder window and
 * write_point as local threads. Returns 0 (interrupted or not), or -1 with
 * *err when communication or storing failed. */
static int run_distributed(section_job *job, const loaded_plugin *lp, int64_t section_id,
                           table *result, progress *bar, char **err)
{
    sweep_run *run = job->run;
    dispatch d = { .workers = mpi_pool_size() - 1, .dispatching = 1, .writing = 1 };
    int rc = -1;
    d.out = calloc((size_t)d.workers + 1, sizeof *d.out);
    d.hungry = calloc((size_t)d.workers + 1, sizeof *d.hungry);
    d.queued = calloc((size_t)d.workers + 1, 1);
    if (!d.out || !d.hungry || !d.queued) {
        rc = util_fail(err, "out of memory");
        goto freed;
    }
    if (open_remote_section(job, lp, 0, err) != 0)
        goto freed;
    for (int r = 1; r <= d.workers; r++)
        hungry_push(&d, r);
    for (;;) {
        if (dispatch_points(job, &d, err) != 0 ||
            write_finished(job, &d, section_id, result, bar, err) != 0)
            goto done;
        if (!d.writing || job->written == job->count)
            break;
        if (d.outstanding == 0) {
            if (d.dispatching && d.next < job->count && !sweepi_stopping(run))
                continue;
            break;
        }
        int got = receive_results(job, &d, err);
        if (got < 0)
            goto done;
        if (got == 0)
            break; /* stopped, and the points still out never came back */
        if (sweepi_stopping(run))
            d.dispatching = 0;
    }
    if (job->written < job->count && sweepi_stopping(run))
        run->interrupted = 1;
    rc = 0;
done:
    rc = end_distributed(job, &d, rc, err);
    /* Slots handed out but never written still hold their rows. */
    for (size_t i = 0; i < job->window_size; i++)
        sweepi_clear_finished(&job->window[i], job->plugin);
    wire_writer_free(&d.w);
freed:
    free(d.out);
    free(d.hungry);
    free(d.queued);
    return rc;
}

/* After a collective point: every worker's STATUS. A point that failed or
 * was interrupted on any rank is that for the sweep too. Returns 0, 1 when
 * the statuses never came (stopped), -1 with *err. */
static int collect_statuses(sweep_run *run, const runner_plugin *plugin, finished_point *f,
                            char **err)
{
    double give_up_at = 0;
    for (int i = 1; i < mpi_pool_size(); i++) {
        mpi_pool_message msg;
        int got = await_message(run, TAG_STATUS, &give_up_at, &msg, err);
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
static int run_collective(section_job *job, const loaded_plugin *lp, int64_t section_id,
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
    if (open_remote_section(job, lp, 1, err) != 0) {
        host_point_free(&point);
        return -1;
    }
    if (run->options->isolate)
        fprintf(stderr,
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
        prepare_point(job, f);
        if (f->fatal) {
            util_fail(err, "%s", f->fatal);
            goto done;
        }
        if (!f->skipped) {
            w.len = 0;
            wire_put_u64(&w, f->index);
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
            sweepi_execute_point(&point, f, 0, 0, run->options->stop);
            int got = collect_statuses(run, plugin, f, err);
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
        int stop = write_in_turn(job, section_id, f, result, bar, err);
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

/* Sizes job's reorder window for *jobs threads (capped at the point count)
 * and says where the points run. Under MPI the workers compute
 * (docs/mpi.md): rank 0 hands out points and writes; a collective plugin's
 * points run on every rank at once. */
static section_mode plan_section(section_job *job, int *jobs)
{
    *jobs = job->run->options->jobs > 1 ? job->run->options->jobs : 1;
    if ((uint64_t)*jobs > job->count)
        *jobs = job->count > 0 ? (int)job->count : 1;
    job->window_size = *jobs == 1 ? 1 : (size_t)*jobs * WINDOW_SLOTS_PER_JOB;
    job->window_floor = *jobs == 1 ? 1 : (size_t)*jobs * WINDOW_FLOOR_PER_JOB;
    section_mode mode = SECTION_LOCAL;
    /* Worker ranks never run the script, so they do not know a command it
     * declares: its points run here, --jobs at a time (command-experiments.md). */
    if (mpi_pool_size() > 1 && exec_is_command(job->plugin))
        fprintf(stderr,
                "runner: %s is a command: its points run on rank 0 (--jobs %d), not "
                "on the worker ranks\n",
                job->plugin->name, *jobs);
    else if (mpi_pool_size() > 1) {
        mode = plugin_flags(job->plugin) & RUNNER_PLUGIN_COLLECTIVE ? SECTION_COLLECTIVE
                                                                    : SECTION_DISTRIBUTED;
        if (mode == SECTION_COLLECTIVE)
            job->window_size = job->window_floor = 1;
        else
            distributed_window(job);
    }
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
                                    (int64_t)job->count, section_id, &job->done, err);
    return store_section_begin(run->store, run->sweep_id, run->section_count, job->plugin->name,
                               options->title, options->script_line, (int64_t)job->count,
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
        compute_point(job, &point, f);
        if (f->fatal) {
            rc = util_fail(err, "%s", f->fatal);
            break;
        }
        if (f->interrupted) {
            run->interrupted = 1;
            break;
        }
        int stop = write_in_turn(job, section_id, f, result, bar, err);
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
        int stop = write_in_turn(job, section_id, f, result, bar, err);
        if (stop < 0)
            return -1;
        *stop_here = stop;
    }
    return 0;
}

/* Takes the points the workers finish, in point order, until all are
 * written or one says stop. Returns 0, or -1 with *err. */
static int write_in_order(section_job *job, int64_t section_id, table *result, progress *bar,
                          char **err)
{
    int stop_here = 0;
    pthread_mutex_lock(&job->lock);
    while (job->written < job->count && !stop_here) {
        finished_point *first = &job->window[job->written % job->window_size];
        while (first->state != SLOT_DONE || first->index != job->written)
            pthread_cond_wait(&job->slot_done, &job->lock);
        /* Take every finished point in a row, then write them without the
         * lock: one hand-off per batch, not per point. */
        uint64_t ready = 0;
        while (job->written + ready < job->count && ready < job->window_size) {
            finished_point *f = &job->window[(job->written + ready) % job->window_size];
            if (f->state != SLOT_DONE || f->index != job->written + ready)
                break;
            ready++;
        }
        pthread_mutex_unlock(&job->lock);
        uint64_t consumed = 0;
        if (write_ready(job, ready, section_id, result, bar, &consumed, &stop_here, err) != 0)
            return -1;
        progress_update(bar, job->written + consumed);
        pthread_mutex_lock(&job->lock);
        for (uint64_t i = 0; i < consumed; i++)
            job->window[(job->written + i) % job->window_size].state = SLOT_FREE;
        job->written += consumed;
        job->window_limit = window_limit(job);
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
static int run_threads(section_job *job, int jobs, int64_t section_id, table *result, progress *bar,
                       char **err)
{
    pthread_t *threads = calloc((size_t)jobs, sizeof *threads);
    if (!threads)
        return util_fail(err, "out of memory");
    int started = 0;
    for (int t = 0; t < jobs; t++) {
        if (pthread_create(&threads[t], NULL, worker_main, job) != 0)
            break;
        started++;
    }
    int rc = started == 0 ? util_fail(err, "cannot start worker threads")
                          : write_in_order(job, section_id, result, bar, err);
    if (rc == 0) {
        pthread_mutex_lock(&job->store_lock);
        rc = store_flush(job->run->store, err);
        pthread_mutex_unlock(&job->store_lock);
    }
    pthread_mutex_lock(&job->lock);
    job->cancel = 1;
    pthread_cond_broadcast(&job->slot_free);
    pthread_mutex_unlock(&job->lock);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    free(threads);
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

int sweep_run_section(sweep_run *run, const loaded_plugin *lp, const grid *g,
                      const sweep_section_options *options, table **rows, char **err)
{
    const runner_plugin *plugin = lp->desc;
    section_job job = { .run = run, .plugin = plugin, .grid = g, .count = grid_point_count(g) };
    int jobs;
    section_mode mode = plan_section(&job, &jobs);
    int64_t section_id = 0;
    table *result = rows ? new_result_table(plugin, options->title) : NULL;
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
    /* Armed while this process may run plugin code; disarmed once its
     * threads are joined. */
    exit_guard_watch(mark_exited, &job, jobs);
    if (mode == SECTION_DISTRIBUTED)
        rc = run_distributed(&job, lp, section_id, result, &bar, err);
    else if (mode == SECTION_COLLECTIVE)
        rc = run_collective(&job, lp, section_id, result, &bar, err);
    else if (jobs == 1)
        rc = run_inline(&job, section_id, result, &bar, err);
    else
        rc = run_threads(&job, jobs, section_id, result, &bar, err);
    exit_guard_watch(NULL, NULL, 0);
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
