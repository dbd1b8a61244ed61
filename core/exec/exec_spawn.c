/* exec_spawn: one program, its own process group, pipes, a poll loop, a
 * time limit and wait4 (see exec_spawn.h). posix_spawn (a vfork-style clone
 * in glibc) keeps the cost per run near the kernel's. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np, pipe2, wait4 */
#include "exec_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "exec_orphans.h"
#include "exec_progress.h"
#include "exec_sample.h"

#define POLL_SLICE_MS 100 /* how often a stop request is noticed */

typedef struct stream {
    int fd;
    char **buf;
    size_t *len;
    size_t cap;
    int *cut;
    exec_progress *progress; /* stdout's progress lines; NULL: none */
} stream;

static int keep_bytes(stream *s, const char *chunk, size_t n);

/* Reads what is there; closes the fd at end of file. Returns 0 or -1. */
static int drain(stream *s)
{
    char chunk[65536], kept[sizeof chunk + EXEC_PROGRESS_PREFIX_LEN];
    ssize_t n = read(s->fd, chunk, sizeof chunk);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : -1;
    if (n == 0) {
        close(s->fd);
        s->fd = -1;
        return s->progress ? keep_bytes(s, kept, exec_progress_finish(s->progress, kept)) : 0;
    }
    if (s->progress)
        return keep_bytes(s, kept, exec_progress_filter(s->progress, chunk, (size_t)n, kept));
    return keep_bytes(s, chunk, (size_t)n);
}

/* Appends to the captured stream, within its cap. */
static int keep_bytes(stream *s, const char *chunk, size_t n)
{
    size_t keep = n;
    if (*s->len + keep > s->cap) {
        keep = s->cap - *s->len;
        *s->cut = 1;
    }
    if (keep == 0)
        return 0;
    char *grown = realloc(*s->buf, *s->len + keep + 1);
    if (!grown)
        return -1;
    memcpy(grown + *s->len, chunk, keep);
    *s->len += keep;
    grown[*s->len] = '\0';
    *s->buf = grown;
    return 0;
}

static int spawn_child(const exec_spawn_request *req, int out_w, int err_w, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_w, 1);
    posix_spawn_file_actions_adddup2(&fa, err_w, 2);
    if (req->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, req->cwd);
    /* Its own group (killed as one), default signals and an empty mask:
     * runner's threads block signals the program must not inherit. */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_USEVFORK);
    int rc = posix_spawn(pid, req->path, &fa, &attr, req->argv, req->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

static void record_exit(exec_spawn_result *r, int status, const struct rusage *ru)
{
    if (WIFEXITED(status)) {
        r->exited = 1;
        r->exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->signal = WTERMSIG(status);
    }
    r->user_s = (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
    r->sys_s = (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
    r->max_rss_kib = ru->ru_maxrss;
    r->voluntary_switches = ru->ru_nvcsw;
    r->involuntary_switches = ru->ru_nivcsw;
    r->read_bytes = (long long)ru->ru_inblock * 512; /* the kernel counts 512-byte blocks */
    r->written_bytes = (long long)ru->ru_oublock * 512;
}

/* Watches the child until it is reaped and both pipes are closed. Once it
 * has exited, what is left of its group (background children holding the
 * pipes) is killed, so a run never outlives its command. */
static int watch(const exec_spawn_request *req, pid_t pid, stream s[2], exec_spawn_result *r,
                 double started, char **err)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int reaped = 0, killed = 0;
    double next_sample = req->sampler ? started + req->sampler->interval_s : 0;
    while (!reaped || s[0].fd >= 0 || s[1].fd >= 0) {
        double now = util_monotonic();
        if (req->sampler && !reaped && now >= next_sample) {
            exec_sample_tick(req->sampler, pid, now);
            while (next_sample <= now)
                next_sample += req->sampler->interval_s;
        }
        int want_kill = (req->stop && *req->stop)                                 ? 2
                        : (req->timeout_s > 0 && now - started >= req->timeout_s) ? 1
                                                                                  : 0;
        if (want_kill && !killed) {
            kill(-pid, SIGKILL);
            killed = 1;
            r->stopped = want_kill == 2;
            r->timed_out = want_kill == 1;
        }
        struct pollfd fds[3];
        int n = 0, slots[3];
        for (int i = 0; i < 2; i++)
            if (s[i].fd >= 0) {
                fds[n] = (struct pollfd){ .fd = s[i].fd, .events = POLLIN };
                slots[n++] = i;
            }
        int pid_slot = -1;
        if (!reaped && pidfd >= 0) {
            fds[n] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
            pid_slot = n++;
        }
        int wait_ms = POLL_SLICE_MS;
        if (req->timeout_s > 0 && !killed) {
            double left_ms = (req->timeout_s - (now - started)) * 1e3 + 1;
            if (left_ms < wait_ms)
                wait_ms = left_ms < 1 ? 1 : (int)left_ms;
        }
        if (req->sampler && !reaped) {
            double to_sample_ms = (next_sample - now) * 1e3 + 1;
            if (to_sample_ms < wait_ms)
                wait_ms = to_sample_ms < 1 ? 1 : (int)to_sample_ms;
        }
        if (!reaped && pidfd < 0 && s[0].fd < 0 && s[1].fd < 0)
            wait_ms = 5; /* no pidfd: poll the child's state */
        int ready = poll(fds, (nfds_t)n, wait_ms);
        if (ready < 0 && errno != EINTR) {
            if (pidfd >= 0)
                close(pidfd);
            return util_fail(err, "cannot watch the command: %s", strerror(errno));
        }
        for (int i = 0; ready > 0 && i < n; i++)
            if (i != pid_slot && fds[i].revents && drain(&s[slots[i]]) != 0) {
                if (pidfd >= 0)
                    close(pidfd);
                return util_fail(err, "cannot read the command's output: %s",
                                 errno ? strerror(errno) : "out of memory");
            }
        siginfo_t info = { 0 };
        if (!reaped && waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == pid) {
            /* Exited but not reaped: its pid still names the group, so
             * the rest of the group can be killed without hitting a
             * process that reused the number. */
            kill(-pid, SIGKILL);
            killed = 1;
            exec_orphans_kill(pid, req->marker, 1);
            int status;
            struct rusage ru;
            if (wait4(pid, &status, 0, &ru) == pid) {
                r->wall_s = util_monotonic() - started;
                record_exit(r, status, &ru);
                reaped = 1;
            }
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return 0;
}

int exec_spawn_run(const exec_spawn_request *req, exec_spawn_result *r, char **err)
{
    memset(r, 0, sizeof *r);
    int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
    /* Close-on-exec: a program started by another thread never holds
     * these pipes open (its dup2 onto 1 and 2 clears the flag there). */
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (out_pipe[i] >= 0)
                close(out_pipe[i]);
            if (err_pipe[i] >= 0)
                close(err_pipe[i]);
        }
        return util_fail(err, "cannot make a pipe for the command: %s", strerror(e));
    }
    pid_t pid;
    exec_orphans_adopt();
    double started = util_monotonic();
    int rc = spawn_child(req, out_pipe[1], err_pipe[1], &pid);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        return util_fail(err, "cannot run %s: %s", req->path, strerror(rc));
    }
    stream s[2] = {
        { out_pipe[0], &r->out, &r->out_len, req->output_cap_bytes, &r->out_cut, req->progress },
        { err_pipe[0], &r->err, &r->err_len, req->output_cap_bytes, &r->err_cut, NULL },
    };
    if (req->sampler)
        exec_sample_run_begin(req->sampler, started);
    rc = watch(req, pid, s, r, started, err);
    for (int i = 0; i < 2; i++)
        if (s[i].fd >= 0)
            close(s[i].fd);
    if (rc != 0) {
        kill(-pid, SIGKILL);
        exec_orphans_kill(pid, req->marker, 0);
        waitpid(pid, NULL, 0);
        return -1;
    }
    if (!r->out)
        r->out = util_strdup("");
    if (!r->err)
        r->err = util_strdup("");
    return r->out && r->err ? 0 : util_fail(err, "out of memory");
}

void exec_spawn_result_free(exec_spawn_result *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
