/* isolate: fork per point, outcome over a pipe, timeout with poll(). The
 * child sends its outcome in wire.c's format (both ends are this binary). */
/* close_range() is a GNU extension of <unistd.h>. */
#define _GNU_SOURCE
#include "isolate.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "base/wire.h"

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The child's side: run, then send the outcome. Never returns. */
static void child_main(runner_point *point, int fd)
{
    /* The parent handles Ctrl-C and a closed terminal's SIGHUP (both sent
     * to the whole foreground group); the child just finishes or is killed. */
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    int failed = host_run_point(point) != 0;
    wire_writer w = { 0 };
    wire_put_outcome(&w, failed, failed ? point->error : NULL, point->rows, point->row_count,
                     point->plugin->column_count);
    int bad = w.failed || write_all(fd, w.data, w.len) != 0;
    _exit(bad ? 3 : 0);
}

/* A growing buffer the parent reads the pipe into. */
typedef struct inbox {
    char *data;
    size_t len, cap;
} inbox;

static int inbox_read(inbox *b, int fd)
{
    if (b->cap - b->len < 65536) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        char *bigger = realloc(b->data, cap);
        if (!bigger)
            return -1;
        b->data = bigger;
        b->cap = cap;
    }
    ssize_t n = read(fd, b->data + b->len, b->cap - b->len);
    if (n < 0)
        return errno == EINTR ? 1 : -1;
    b->len += (size_t)n;
    return n == 0 ? 0 : 1;
}

/* Rebuilds the child's outcome in the parent's point. */
static int decode(const inbox *b, runner_point *point)
{
    wire_reader r = wire_reader_of(b->data, b->len);
    int failed;
    char *error;
    value *rows;
    size_t row_count;
    if (wire_get_outcome(&r, point->plugin->column_count, &failed, &error, &rows, &row_count) != 0)
        return -1;
    if (failed) {
        point->error = error ? error : util_strdup("failed without a message");
        return 0;
    }
    free(error);
    free(point->rows);
    point->rows = rows;
    point->row_count = point->row_capacity = row_count;
    return 0;
}

/* Closes every descriptor above stderr but keep: one close_range call where
 * the kernel has it (Linux 5.9), else a loop up to the descriptor limit. */
static void close_other_fds(int keep)
{
    if ((keep == 3 || close_range(3, (unsigned)keep - 1, 0) == 0) &&
        close_range((unsigned)keep + 1, ~0U, 0) == 0)
        return;
    long max_fd = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max_fd > 0 && max_fd < 65536 ? max_fd : 65536); fd++)
        if (fd != keep)
            close((int)fd);
}

isolate_status isolate_run_point(runner_point *point, double timeout_s)
{
    int fds[2];
    if (pipe(fds) != 0) {
        point->error = util_format("cannot isolate the point: pipe: %s", strerror(errno));
        return ISOLATE_CRASHED;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        point->error = util_format("cannot isolate the point: fork: %s", strerror(errno));
        return ISOLATE_CRASHED;
    }
    if (pid == 0) {
        /* The child dies with runner, whatever ends it (kill -9, a second
         * Ctrl-C): the kernel sends SIGKILL, which no plugin can ignore, when
         * the forking thread is gone. Workers wait for their child before
         * they exit, so only runner's death ends a child this way. If runner
         * died before prctl took effect, the child was already re-parented. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(4);
        /* Other threads' pipes leaked into this child: close them, or their
         * readers would wait for this child to exit before seeing EOF. */
        close_other_fds(fds[1]);
        child_main(point, fds[1]);
    }
    close(fds[1]);
    inbox box = { 0 };
    double deadline = timeout_s > 0 ? util_monotonic() + timeout_s : 0;
    int timed_out = 0, read_failed = 0;
    for (;;) {
        int wait_ms = -1;
        if (deadline) {
            double left = deadline - util_monotonic();
            if (left <= 0) {
                timed_out = 1;
                break;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
        int ready = poll(&pfd, 1, wait_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            continue; /* the deadline check above ends it */
        int got = inbox_read(&box, fds[0]);
        if (got == 0)
            break;
        if (got < 0) {
            read_failed = 1;
            break;
        }
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    isolate_status outcome;
    if (timed_out) {
        point->error = util_format("no result after %g s (--point-timeout); the point's process "
                                   "was killed",
                                   timeout_s);
        outcome = ISOLATE_TIMEOUT;
    } else if (WIFSIGNALED(status)) {
        point->error = util_format("the point's process died of signal %d (%s)", WTERMSIG(status),
                                   strsignal(WTERMSIG(status)));
        outcome = ISOLATE_CRASHED;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || read_failed ||
               decode(&box, point) != 0) {
        point->error = util_format("the point's process exited with status %d before reporting",
                                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        outcome = ISOLATE_CRASHED;
    } else {
        outcome = point->error ? ISOLATE_FAILED : ISOLATE_OK;
    }
    free(box.data);
    return outcome;
}
