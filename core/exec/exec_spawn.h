/* exec_spawn: runs one program without a shell, in its own process group,
 * with stdout and stderr captured through pipes (each cut at a cap), an
 * optional time limit and a stop flag; both kill the whole group. Reaped
 * with wait4, so the run's CPU times and peak RSS come from the kernel.
 * runner is the child subreaper of what it spawns: what the program leaves
 * behind, in its group or marked (exec_orphans.h), is killed and reaped
 * when it ends. */
#ifndef RUNNER_EXEC_SPAWN_H
#define RUNNER_EXEC_SPAWN_H

#include <signal.h>
#include <stddef.h>

typedef struct exec_spawn_request {
    const char *path;                  /* the executable, resolved: no PATH search */
    char *const *argv;                 /* NULL-terminated */
    char *const *envp;                 /* NULL-terminated */
    const char *cwd;                   /* NULL: runner's own */
    double timeout_s;                  /* <= 0: none */
    size_t output_cap_bytes;           /* per stream; the rest is read and dropped */
    const volatile sig_atomic_t *stop; /* non-zero: kill the group and return */
    const char *marker;                /* an envp entry: processes holding it that left the
                         * group (setsid) are killed with it; NULL: none */
    struct exec_progress *progress;    /* takes progress lines out of stdout; NULL: none */
    struct exec_sampler *sampler;      /* samples the tree every interval; NULL: none */
} exec_spawn_request;

typedef struct exec_spawn_result {
    char *out, *err; /* captured, NUL-terminated, malloc'd */
    size_t out_len, err_len;
    int out_cut, err_cut; /* 1 when the stream went past the cap */
    int exited;           /* exit_status is valid */
    int exit_status;
    int signal;             /* the signal that ended it, or 0 */
    int timed_out, stopped; /* killed by the time limit / a stop request */
    double wall_s, user_s, sys_s;
    long max_rss_kib;
    long voluntary_switches, involuntary_switches; /* context switches (ru_nvcsw, ru_nivcsw) */
    long long read_bytes, written_bytes; /* storage I/O of the run and what it reaped */
} exec_spawn_result;

/* Runs the request to its end. Returns 0 when the program ran (whatever its
 * status: see *result), or -1 with *err when it could not be started or
 * watched (no memory, no pipe, exec failed). The caller frees the result
 * with exec_spawn_result_free, also after -1. */
int exec_spawn_run(const exec_spawn_request *req, exec_spawn_result *result, char **err);
void exec_spawn_result_free(exec_spawn_result *result);

#endif
