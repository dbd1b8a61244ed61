/* bench_spawn_floor: the floor under a command point. A bare C loop starts
 * the same program N times the way runner's command points do
 * (core/exec/exec_spawn.c): stdout and stderr on close-on-exec pipes,
 * stdin from /dev/null, its own process group, default signals and an
 * empty mask, posix_spawn with vfork; then it reads both pipes to their
 * end with poll and reaps the child with wait4. Nothing is parsed or
 * stored: what runner spends per point above this is its own. Not a test.
 *
 * usage: bench_spawn_floor N PROGRAM [ARG...]
 *   Prints "spawns: N in W s wall, C s CPU (with children) = w ms/point,
 *   c ms CPU/point" on stdout; exit 1 when a run fails. */
#define _GNU_SOURCE /* pipe2, wait4, POSIX_SPAWN_USEVFORK */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* One run: 0 when the program exited 0. */
static int run_once(char **argv)
{
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_USEVFORK);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(out_pipe[1]);
    close(err_pipe[1]);
    int fds[2] = { out_pipe[0], err_pipe[0] };
    while (rc == 0 && (fds[0] >= 0 || fds[1] >= 0)) {
        struct pollfd p[2];
        int n = 0, slot[2];
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0) {
                p[n] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
                slot[n++] = i;
            }
        if (poll(p, (nfds_t)n, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++)
            if (p[i].revents) {
                char chunk[4096];
                if (read(fds[slot[i]], chunk, sizeof chunk) <= 0) {
                    close(fds[slot[i]]);
                    fds[slot[i]] = -1;
                }
            }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (rc != 0)
        return -1;
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    long n = argc >= 3 ? strtol(argv[1], NULL, 10) : 0;
    if (n <= 0) {
        fprintf(stderr, "usage: bench_spawn_floor N PROGRAM [ARG...]\n");
        return 2;
    }
    double wall0 = now_s(), cpu0 = cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN);
    for (long i = 0; i < n; i++)
        if (run_once(argv + 2) != 0) {
            fprintf(stderr, "bench_spawn_floor: %s failed: %s\n", argv[2], strerror(errno));
            return 1;
        }
    double wall_s = now_s() - wall0;
    double used_s = cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN) - cpu0;
    printf("spawns: %ld in %.3f s wall, %.3f s CPU (with children) = %.4f ms/point, %.4f ms "
           "CPU/point\n",
           n, wall_s, used_s, 1e3 * wall_s / (double)n, 1e3 * used_s / (double)n);
    return 0;
}
