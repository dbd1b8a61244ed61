/* scheduler: one bounded question to Slurm about a job (scheduler.h). */
#define _GNU_SOURCE /* pipe2 */
#include "scheduler.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

scheduler_answer scheduler_state_answer(const char *state)
{
    /* States in which a step of the job may run; every other one (PENDING
     * and REQUEUED among them: nothing of the job runs until it starts
     * again) means the recorded process has ended. */
    static const char *const active[] = { "RUNNING",   "COMPLETING", "CONFIGURING",  "RESIZING",
                                          "SIGNALING", "STAGE_OUT",  "POWER_UP_NODE" };
    /* Its processes are stopped (scontrol suspend, gang scheduling, a
     * stopped step): alive, and they go on when the job is resumed. */
    if (strcmp(state, "SUSPENDED") == 0 || strcmp(state, "STOPPED") == 0)
        return SCHEDULER_SUSPENDED;
    static const char *const ended[] = { "PENDING",       "REQUEUED",     "REQUEUE_HOLD",
                                         "REQUEUE_FED",   "COMPLETED",    "CANCELLED",
                                         "FAILED",        "TIMEOUT",      "NODE_FAIL",
                                         "PREEMPTED",     "BOOT_FAIL",    "DEADLINE",
                                         "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED" };
    for (size_t i = 0; i < sizeof active / sizeof *active; i++)
        if (strcmp(state, active[i]) == 0)
            return SCHEDULER_ACTIVE;
    for (size_t i = 0; i < sizeof ended / sizeof *ended; i++)
        if (strcmp(state, ended[i]) == 0)
            return SCHEDULER_ENDED;
    return SCHEDULER_UNKNOWN;
}

/* 1 when name is an executable file in a directory of PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        char file[4096];
        if (len > 0 && len + strlen(name) + 2 <= sizeof file) {
            snprintf(file, sizeof file, "%.*s/%s", (int)len, path, name);
            struct stat st;
            if (stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0)
                return 1;
        }
        path += len + (path[len] == ':');
    }
    return 0;
}

/* Runs argv (stdout and stderr into out, size bytes, NUL-terminated) for
 * at most timeout_s; returns its exit status, or -1 when it could not run,
 * was killed at the deadline or died of a signal. */
static int run_bounded(char *const argv[], char *out, size_t size, double timeout_s)
{
    out[0] = '\0';
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    pid_t pid;
    int spawned = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (!spawned) {
        close(fds[0]);
        return -1;
    }
    size_t got = 0;
    int timed_out = 0;
    double deadline = util_monotonic() + timeout_s;
    for (;;) {
        double left_s = deadline - util_monotonic();
        if (left_s <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = { .fd = fds[0], .events = POLLIN };
        int ready = poll(&p, 1, (int)(left_s * 1000) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue; /* the deadline check above ends it */
        char buf[512];
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* end of output: the child closed it (or exited) */
        size_t keep = got + 1 < size ? size - 1 - got : 0;
        if ((size_t)n < keep)
            keep = (size_t)n;
        memcpy(out + got, buf, keep);
        got += keep;
    }
    out[got] = '\0';
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* The state word after key (e.g. "JobState=") in text, or text's first
 * word when key is NULL, into state (size bytes). */
static void state_word(const char *text, const char *key, char *state, size_t size)
{
    state[0] = '\0';
    const char *p = text;
    if (key) {
        p = strstr(text, key);
        if (!p)
            return;
        p += strlen(key);
    }
    p += strspn(p, " \t\r\n");
    size_t len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
    if (len < size)
        snprintf(state, size, "%.*s", (int)len, p);
}

scheduler_answer scheduler_job_state(const char *job_id, double timeout_s)
{
    if (!job_id || !*job_id || strspn(job_id, "0123456789_") != strlen(job_id) ||
        strlen(job_id) > 40)
        return SCHEDULER_UNKNOWN;
    char id[48], out[4096], state[40];
    snprintf(id, sizeof id, "%s", job_id);
    int status;
    if (on_path("squeue")) {
        char *argv[] = { "squeue", "-h", "-j", id, "-o", "%T", NULL };
        status = run_bounded(argv, out, sizeof out, timeout_s);
        state_word(out, NULL, state, sizeof state);
        if (status == 0 && !state[0] && strspn(out, " \t\r\n") == strlen(out))
            return SCHEDULER_ENDED; /* no longer in the queue */
    } else if (on_path("scontrol")) {
        char *argv[] = { "scontrol", "show", "job", "-o", id, NULL };
        status = run_bounded(argv, out, sizeof out, timeout_s);
        state_word(out, "JobState=", state, sizeof state);
    } else {
        return SCHEDULER_UNKNOWN;
    }
    /* Both say so of a job the controller has forgotten. */
    if (status > 0 && strstr(out, "Invalid job id"))
        return SCHEDULER_ENDED;
    return status == 0 && state[0] ? scheduler_state_answer(state) : SCHEDULER_UNKNOWN;
}
