/* exec_int.h: what exec.c (the declaration), exec_point.c (running a
 * point) and exec_artifacts.c (keeping its files) share. Private to them;
 * exec.h is the public header. Shared functions are execi_*. */
#ifndef RUNNER_EXEC_INT_H
#define RUNNER_EXEC_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "base/artifact.h"
#include "base/strbuf.h"
#include "exec.h"
#include "exec_progress.h"
#include "exec_sample.h"
#include "exec_spawn.h"
#include "plugin/plugin.h"

#define EXEC_SPARE_DIRS 8 /* one per concurrent point is enough */

struct exec_command {
    runner_plugin desc; /* first: run() gets it as point->plugin */
    loaded_plugin lp;   /* desc, the executable's path and SHA-256 */
    char *name, *summary;
    exec_settings settings;
    runner_param *params; /* owned copies */
    size_t param_count;
    runner_column *columns; /* declared, then the measured ones */
    size_t declared_columns, column_count;
    char **argv; /* the template */
    size_t argc;
    char **artifact_files;
    size_t artifact_count;
    char **pattern_columns, **pattern_texts;
    size_t pattern_count;
    exec_parser *parser;
    char *path;                         /* the executable, resolved */
    char *argv_json;                    /* the template, for provenance */
    char *work_root;                    /* per-point directories live here */
    atomic_ullong sweep_artifact_bytes; /* kept by this process so far */
    atomic_ullong next_dir;
    /* Empty point directories a finished point left, renamed for the next
     * point instead of removed and made again (exec_scratch.c). */
    pthread_mutex_t spare_lock;
    char *spare[EXEC_SPARE_DIRS]; /* owned paths */
    size_t spare_count;
    pid_t owner_pid; /* spares only here: not in a --isolate child (its own
                        copy of the list, maybe of a lock held at fork) */
};

/* What watches a point's runs while they run (exec_watch.c): its
 * progress lines and, with --sample-interval, its process tree. */
typedef struct exec_watchers {
    exec_progress progress;
    exec_sampler sampler;
} exec_watchers;

/* Sets up w for point and points req at it; w must outlive the runs. */
void exec_watchers_begin(exec_watchers *w, exec_spawn_request *req, runner_point *point);
/* After each run (warm-up runs too: their resources are the point's):
 * point->system then holds the runs so far. */
void exec_watchers_run_end(exec_watchers *w, const exec_spawn_result *run);

/* The descriptor's run(): one point, all its runs (exec_point.c). */
int execi_run(const runner_host *host, runner_point *point);

/* Removes dir and everything under it (exec_scratch.c). */
void execi_remove_tree(const char *dir);

/* Makes the sweep's work directory from template_path (mkdtemp's
 * "TMP/runner-NAME-XXXXXX", rewritten in place) with a file naming this
 * process, after removing the runner-* directories in tmp whose recorded
 * process is gone (exec_scratch.c). 0, or -1 with errno. */
int execi_scratch_make(const char *tmp, char *template_path);

/* Makes dir (c's work root/pNNN) as a fresh, empty point directory: an
 * empty spare renamed to it, else a new one. 0, or -1 with errno. */
int execi_point_dir_make(exec_command *c, const char *dir);

/* Hands a finished point's directory back (dir is taken, freed here): kept
 * as a spare when it is still runner's own empty directory (mode 0700, not
 * a link), else removed with everything in it. */
void execi_point_dir_done(exec_command *c, char *dir);

/* The point's artifacts: the last run's stdout and stderr (when not empty)
 * and each declared file found in dir, within the per-point and per-sweep
 * caps (what is left out is said on stderr). Returns the list (NULL: none
 * or no memory). (exec_artifacts.c) */
artifact *execi_collect_artifacts(exec_command *c, const runner_host *host, runner_point *point,
                                  const char *dir, const exec_spawn_result *last);

#endif
