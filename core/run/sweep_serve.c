/* sweep_serve.c: the whole life of an MPI worker rank (docs/mpi.md). It
 * runs the points rank 0 hands out, section after section, and answers
 * each with its result; it never opens the database. */
#include "sweep_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/exit_status.h"
#include "base/log.h"
#include "base/provenance.h"
#include "base/util.h"
#include "base/wire.h"
#include "exec/exec.h"
#include "mpi/mpi_pool.h"
#include "plugin/plugin.h"

/* "rank 2 on node7: <reason>", malloc'd. */
static char *rank_message(const char *reason)
{
    char host[256];
    provenance_host(host, sizeof host);
    return util_format("rank %d on %s: %s", mpi_pool_rank(), host,
                       reason ? reason : "out of memory");
}

/* Decodes one point (index, seed, parameter cells) into f, whose params
 * array it owns. Returns 0 or -1. */
static int read_point(wire_reader *r, const runner_plugin *plugin, finished_point *f)
{
    f->index = wire_get_u64(r);
    f->seed = wire_get_u64(r);
    return r->failed ? -1 : wire_get_cells(r, f->params, plugin->param_count);
}

static void clear_params(value *params, const runner_plugin *plugin)
{
    for (uint32_t i = 0; i < plugin->param_count; i++)
        value_clear(&params[i]);
}

void sweepi_put_artifacts(wire_writer *w, const artifact *list)
{
    uint32_t n = 0;
    for (const artifact *a = list; a; a = a->next)
        n++;
    wire_put_u32(w, n);
    for (const artifact *a = list; a; a = a->next) {
        wire_put_text(w, a->name);
        wire_put_text(w, a->sha256);
        wire_put_u64(w, a->size);
        if (a->size)
            wire_put(w, a->data, a->size);
    }
}

int sweepi_get_artifacts(wire_reader *r, artifact **list)
{
    *list = NULL;
    artifact **tail = list;
    uint32_t n = wire_get_u32(r);
    for (uint32_t i = 0; i < n && !r->failed; i++) {
        artifact *a = calloc(1, sizeof *a);
        if (!a) {
            r->failed = 1;
            break;
        }
        *tail = a;
        tail = &a->next;
        a->name = wire_get_text(r);
        char *sha256 = wire_get_text(r);
        uint64_t size = wire_get_u64(r);
        int bad = r->failed || !sha256 || strlen(sha256) != 64 || size > r->len - r->pos ||
                  !(a->data = malloc(size ? size : 1));
        if (!bad) {
            memcpy(a->sha256, sha256, sizeof a->sha256);
            memcpy(a->data, r->data + r->pos, size);
            a->size = size;
            r->pos += size;
        }
        free(sha256);
        if (bad)
            r->failed = 1;
    }
    if (!r->failed)
        return 0;
    artifact_list_free(*list);
    *list = NULL;
    return -1;
}

void sweepi_put_runs(wire_writer *w, const point_runs *runs)
{
    uint32_t n = runs ? (uint32_t)runs->count : 0;
    wire_put_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        const point_run *run = &runs->runs[i];
        wire_put_u8(w, (uint8_t)run->warmup);
        wire_put_u64(w, (uint64_t)(int64_t)run->exit_status);
        wire_put_f64(w, run->wall_s);
        wire_put_f64(w, run->user_s);
        wire_put_f64(w, run->sys_s);
        wire_put_u64(w, (uint64_t)run->max_rss_kib);
        wire_put_u64(w, (uint64_t)run->voluntary_switches);
        wire_put_u64(w, (uint64_t)run->involuntary_switches);
        wire_put_u8(w, run->values_json != NULL);
        if (run->values_json)
            wire_put_text(w, run->values_json);
    }
}

int sweepi_get_runs(wire_reader *r, point_runs **runs)
{
    *runs = NULL;
    uint32_t n = wire_get_u32(r);
    if (r->failed || n == 0)
        return r->failed ? -1 : 0;
    point_runs *list = calloc(1, sizeof *list);
    if (!list)
        r->failed = 1;
    for (uint32_t i = 0; i < n && !r->failed; i++) {
        point_run run = { .warmup = wire_get_u8(r) };
        run.exit_status = (int)(int64_t)wire_get_u64(r);
        run.wall_s = wire_get_f64(r);
        run.user_s = wire_get_f64(r);
        run.sys_s = wire_get_f64(r);
        run.max_rss_kib = (int64_t)wire_get_u64(r);
        run.voluntary_switches = (int64_t)wire_get_u64(r);
        run.involuntary_switches = (int64_t)wire_get_u64(r);
        if (wire_get_u8(r) && !r->failed && !(run.values_json = wire_get_text(r)))
            r->failed = 1;
        if (!r->failed && point_runs_append(list, &run) != 0)
            r->failed = 1;
        free(run.values_json);
    }
    if (!r->failed) {
        *runs = list;
        return 0;
    }
    point_runs_free(list);
    return -1;
}

/* Results go back in batches: at the end of each POINTS message, and
 * whenever the first unsent one is this old, so rank 0 writes slow points
 * as they finish while quick ones cost it one message per batch. */
#define RESULTS_HOLD_S 0.001

/* Runs a POINTS message, answering with RESULTS messages (see
 * RESULTS_HOLD_S). Returns 0 or -1 (*err). */
static int serve_points(const runner_plugin *plugin, runner_point *point, finished_point *f,
                        const mpi_pool_message *msg, int isolate, double timeout_s,
                        const volatile sig_atomic_t *stop, char **err)
{
    wire_reader r = wire_reader_of(msg->data, msg->len);
    wire_writer w = { 0 };
    uint32_t n = wire_get_u32(&r), batched = 0;
    double first_unsent = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (stop && *stop)
            break; /* leaving: rank 0 gets no more results from this rank */
        if (read_point(&r, plugin, f) != 0) {
            wire_writer_free(&w);
            return util_fail(err, "a malformed points message from rank 0");
        }
        sweepi_execute_point(point, f, f->index, isolate, timeout_s, stop); /* index: the ordinal */
        uint8_t status = 0;
        while (status < 3 && strcmp(sweepi_status_names[status], f->status) != 0)
            status++;
        if (batched == 0) {
            w.len = 0;
            wire_put_u32(&w, 0); /* the count, filled in when sent */
            first_unsent = util_monotonic();
        }
        wire_put_u64(&w, f->index);
        wire_put_u8(&w, status);
        wire_put_u8(&w, (uint8_t)f->interrupted);
        wire_put_f64(&w, f->started_at);
        wire_put_f64(&w, f->duration_s);
        wire_put_outcome(&w, f->failed, f->error, f->rows, f->interrupted ? 0 : f->row_count,
                         plugin->column_count);
        sweepi_put_artifacts(&w, f->interrupted ? NULL : f->artifacts);
        sweepi_put_runs(&w, f->interrupted ? NULL : f->runs);
        sweepi_clear_finished(f, plugin);
        clear_params(f->params, plugin);
        batched++;
        if (i + 1 < n && util_monotonic() - first_unsent < RESULTS_HOLD_S)
            continue;
        if (w.failed) {
            rc = util_fail(err, "out of memory sending results");
            break;
        }
        memcpy(w.data, &batched, sizeof batched);
        rc = mpi_pool_send(0, TAG_RESULTS, w.data, w.len, err);
        batched = 0;
    }
    wire_writer_free(&w);
    return rc;
}

/* The collective points of a section, until an empty broadcast. point is
 * NULL when this rank cannot run the plugin: rank 0 then only ends it. */
static int serve_collective(const runner_plugin *plugin, runner_point *point, finished_point *f,
                            const volatile sig_atomic_t *stop, char **err)
{
    for (;;) {
        char *data = NULL;
        size_t len = 0;
        if (mpi_pool_broadcast(&data, &len, err) != 0)
            return -1;
        if (len == 0)
            return 0;
        wire_reader r = wire_reader_of(data, len);
        int bad = !point || read_point(&r, plugin, f) != 0;
        free(data);
        if (bad)
            return util_fail(err, "a collective point this rank cannot run");
        sweepi_execute_point(point, f, f->index, 0, 0, stop);
        wire_writer w = { 0 };
        wire_put_u8(&w, (uint8_t)f->failed);
        wire_put_u8(&w, (uint8_t)f->interrupted);
        wire_put_text(&w, f->error);
        sweepi_clear_finished(f, plugin);
        clear_params(f->params, plugin);
        int rc = w.failed ? util_fail(err, "out of memory sending a status")
                          : mpi_pool_send(0, TAG_STATUS, w.data, w.len, err);
        wire_writer_free(&w);
        if (rc != 0)
            return -1;
    }
}

/* Serves a non-collective section's POINTS until rank 0 ends it. Returns
 * 0 at END, 1 at EXIT, 2 when this rank was stopped, -1 with *err. */
static int serve_distributed(const runner_plugin *plugin, runner_point *point, finished_point *f,
                             int isolate, double timeout_s, const volatile sig_atomic_t *stop,
                             char **err)
{
    for (;;) {
        mpi_pool_message msg;
        int got = mpi_pool_receive(0, MPI_POOL_ANY, stop, 0, &msg, err);
        if (got <= 0)
            return got < 0 ? -1 : 2; /* 2: stopped */
        int rc = 0;
        if (msg.tag == TAG_POINTS && point)
            rc = serve_points(plugin, point, f, &msg, isolate, timeout_s, stop, err);
        else if (msg.tag == TAG_END || msg.tag == MPI_POOL_TAG_EXIT)
            rc = msg.tag == MPI_POOL_TAG_EXIT;
        else
            rc = util_fail(err, "an unexpected message (tag %d) from rank 0", msg.tag);
        int tag = msg.tag;
        free(msg.data);
        if (rc != 0 || tag != TAG_POINTS)
            return rc;
    }
}

/* One SECTION: find the plugin, say whether this rank can run it, then
 * serve its points until rank 0 ends it. Returns 0, 1 when rank 0 said
 * exit, 2 when this rank was stopped, -1 with *err. */
static int serve_section(const plugin_registry *reg, const char *registry_error,
                         const mpi_pool_message *section, const volatile sig_atomic_t *stop,
                         char **err)
{
    wire_reader r = wire_reader_of(section->data, section->len);
    char *name = wire_get_text(&r), *sha256 = wire_get_text(&r);
    int collective = wire_get_u8(&r), isolate = wire_get_u8(&r);
    double timeout_s = wire_get_f64(&r);
    int is_command = wire_get_u8(&r);
    const loaded_plugin *lp = NULL;
    exec_command *command = NULL; /* built here from rank 0's declaration */
    char *why = NULL, *lookup_err = NULL;
    runner_point point;
    finished_point f;
    int ready = 0, rc = -1;
    memset(&f, 0, sizeof f);
    if (!r.failed && is_command && (command = exec_command_decode(&r, &lookup_err)))
        lp = exec_command_plugin(command);
    if (r.failed || r.pos != r.len) {
        why = rank_message("a malformed section message from rank 0");
    } else if (is_command && !lp) {
        /* Its program is not here, say: what rank 0's check would say. */
        char *detail =
            util_format("command '%s': %s", name, lookup_err ? lookup_err : "out of memory");
        why = rank_message(detail);
        free(detail);
    } else if (!is_command && !reg) {
        why = rank_message(registry_error);
    } else if (!is_command && !(lp = plugin_registry_get(reg, name, &lookup_err))) {
        why = rank_message(lookup_err);
    } else if (strcmp(lp->sha256, sha256) != 0) {
        char detail[1024];
        snprintf(detail, sizeof detail,
                 is_command ? "its program for command %s (%s, sha256 %.16s...) is another file "
                              "than rank 0's (sha256 %.16s...)"
                            : "its plugin %s (%s, sha256 %.16s...) is another build "
                              "than rank 0's (sha256 %.16s...)",
                 name, lp->path, lp->sha256, sha256);
        why = rank_message(detail);
    } else if (!(f.params = calloc(lp->desc->param_count + 1, sizeof *f.params)) ||
               host_point_init(&point, lp->desc, stop) != 0) {
        why = rank_message("out of memory starting the section");
    } else {
        ready = 1;
        if (collective) {
            point.rank = mpi_pool_rank();
            point.size = mpi_pool_size();
        }
    }
    wire_writer w = { 0 };
    wire_put_u8(&w, (uint8_t)ready);
    wire_put_text(&w, why);
    if (w.failed)
        util_fail(err, "out of memory");
    else if (mpi_pool_send(0, TAG_READY, w.data, w.len, err) == 0)
        rc = collective
                 ? serve_collective(ready ? lp->desc : NULL, ready ? &point : NULL, &f, stop, err)
                 : serve_distributed(ready ? lp->desc : NULL, ready ? &point : NULL, &f, isolate,
                                     timeout_s, stop, err);
    wire_writer_free(&w);
    if (ready)
        host_point_free(&point);
    free(f.params);
    exec_command_free(command);
    free(why);
    free(lookup_err);
    free(name);
    free(sha256);
    return rc;
}

int sweep_serve(const char *const *plugin_dirs, const volatile sig_atomic_t *stop)
{
    plugin_registry *reg = NULL;
    char *registry_error = NULL, *err = NULL;
    if (plugin_registry_open(plugin_dirs, &reg, &registry_error) != 0)
        reg = NULL; /* each section says why, through rank 0 */
    int status = 0, rc = 0;
    for (;;) {
        mpi_pool_message msg;
        int got = mpi_pool_receive(0, MPI_POOL_ANY, stop, 0, &msg, &err);
        if (got <= 0) {
            rc = got < 0 ? -1 : 2;
            break;
        }
        rc = msg.tag == MPI_POOL_TAG_EXIT ? 1
             : msg.tag == TAG_SECTION
                 ? serve_section(reg, registry_error, &msg, stop, &err)
                 : util_fail(&err, "an unexpected message (tag %d) from rank 0", msg.tag);
        free(msg.data);
        if (rc != 0)
            break;
    }
    if (rc == 2 || (stop && *stop)) {
        /* Stopped (a signal, or rank 0 lost): a worker stores nothing, so
         * it leaves at once; rank 0 has been told (mpi_pool_start). */
        mpi_pool_abandon();
        status = EXIT_INTERRUPTED;
    } else if (err) {
        /* Rank 0 cannot go on without this rank: leave, and let the
         * launcher end the job (finalizing would wait for rank 0). */
        log_print(LOG_LEVEL_ERROR, "runner: rank %d: %s\n", mpi_pool_rank(), err);
        mpi_pool_abandon();
        status = 2;
    }
    free(err);
    free(registry_error);
    plugin_registry_free(reg);
    return status;
}
