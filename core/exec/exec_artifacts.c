/* exec_artifacts: what a command's point leaves behind, read into memory
 * for the writer to store with the point (store_artifact.c): stdout,
 * stderr, the declared files, within a per-point and a per-sweep cap. */
#include "exec_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "base/log.h"
#include "base/util.h"

/* Adds name's bytes (taken: data is freed on failure too) unless the
 * point's cap says no (the sweep's is applied in point order by the writer:
 * exec_keep_within_sweep_cap). Returns 0, or -1 when it was left out. */
static int keep(exec_command *c, const runner_host *host, runner_point *point, artifact ***tail,
                uint64_t *point_bytes, const char *name, unsigned char *data, size_t size)
{
    const exec_settings *s = &c->settings;
    const char *why = NULL;
    if (*point_bytes + size > s->artifact_point_max_bytes)
        why = "the point's artifacts would pass artifact_point_max_bytes";
    artifact *a = why ? NULL : calloc(1, sizeof *a);
    if (!a || !(a->name = util_strdup(name)) || digest_sha256_hex(data, size, a->sha256) != 0) {
        host->log(point, RUNNER_LOG_WARNING, "point %llu: artifact '%s' (%zu bytes) not kept: %s",
                  (unsigned long long)point->index, name, size, why ? why : "out of memory");
        if (a)
            free(a->name);
        free(a);
        free(data);
        return -1;
    }
    a->data = data;
    a->size = size;
    *point_bytes += size;
    **tail = a;
    *tail = &a->next;
    return 0;
}

static void keep_copy(exec_command *c, const runner_host *host, runner_point *point,
                      artifact ***tail, uint64_t *point_bytes, const char *name, const char *bytes,
                      size_t size)
{
    if (size == 0)
        return;
    unsigned char *copy = malloc(size);
    if (copy)
        memcpy(copy, bytes, size);
    keep(c, host, point, tail, point_bytes, name, copy, copy ? size : 0);
}

artifact *execi_collect_artifacts(exec_command *c, const runner_host *host, runner_point *point,
                                  const char *dir, const exec_spawn_result *last)
{
    artifact *list = NULL, **tail = &list;
    uint64_t point_bytes = 0;
    if (last->out)
        keep_copy(c, host, point, &tail, &point_bytes, "stdout", last->out, last->out_len);
    if (last->err)
        keep_copy(c, host, point, &tail, &point_bytes, "stderr", last->err, last->err_len);
    for (size_t i = 0; i < c->artifact_count; i++) {
        char *path = util_format("%s/%s", dir, c->artifact_files[i]);
        struct stat st;
        if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            /* A failed point may not have written it; only say so for one
             * that succeeded. */
            if (path && !point->error)
                host->log(point, RUNNER_LOG_WARNING,
                          "point %llu: artifact '%s' was not "
                          "written (no regular file %s)",
                          (unsigned long long)point->index, c->artifact_files[i], path);
            free(path);
            continue;
        }
        if ((uint64_t)st.st_size + point_bytes > c->settings.artifact_point_max_bytes) {
            host->log(point, RUNNER_LOG_WARNING,
                      "point %llu: artifact '%s' (%lld bytes) not "
                      "kept: the point's artifacts would pass artifact_point_max_bytes",
                      (unsigned long long)point->index, c->artifact_files[i],
                      (long long)st.st_size);
            free(path);
            continue;
        }
        char *data = NULL;
        size_t len = 0;
        if (util_read_file(path, &data, &len) != 0)
            host->log(point, RUNNER_LOG_WARNING, "point %llu: artifact '%s' not kept: %s",
                      (unsigned long long)point->index, c->artifact_files[i], strerror(errno));
        else
            keep(c, host, point, &tail, &point_bytes, c->artifact_files[i], (unsigned char *)data,
                 len);
        free(path);
    }
    return list;
}

void exec_keep_within_sweep_cap(const runner_plugin *plugin, uint64_t index, artifact **list)
{
    exec_command *c = (exec_command *)plugin;
    uint64_t cap = c->settings.artifact_sweep_max_bytes;
    uint64_t kept = atomic_load(&c->sweep_artifact_bytes);
    for (artifact **at = list; *at;) {
        artifact *a = *at;
        if (kept + a->size <= cap) {
            kept += a->size;
            at = &a->next;
            continue;
        }
        log_print(LOG_LEVEL_WARN,
                  "runner: %s: warning: point %llu: artifact '%s' (%zu bytes) not kept: "
                  "the sweep's artifacts would pass artifact_sweep_max_bytes\n",
                  plugin->name, (unsigned long long)index, a->name, a->size);
        *at = a->next;
        a->next = NULL;
        artifact_list_free(a);
    }
    atomic_store(&c->sweep_artifact_bytes, kept);
}
