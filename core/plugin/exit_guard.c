/* exit_guard: the exit handler armed while plugins run in runner's process;
 * see exit_guard.h. */
/* on_exit(), which passes the exit status to the handler, is a glibc
 * extension; elsewhere atexit() and the message lacks the status. */
#define _GNU_SOURCE
#include "exit_guard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/exit_status.h"
#include "base/util.h"
#include "host.h"
#include "host_int.h"

/* A plugin may call exit() in several threads at once (every --jobs worker
 * running a point that exits). exit() takes each registered handler off
 * the list before running it, so a second exit() running at the same time
 * finds the handler gone and ends the process with the plugin's status
 * while the first is still marking the sweep. So the handler is registered
 * once per thread that may exit, and the first call that reports claims
 * the exit: any later one waits in its handler for the process to end. */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_registered;     /* handlers registered so far */
static atomic_int guard_claimed; /* a handler is reporting a plugin's exit */
static pid_t guard_pid;          /* the process that armed it, not a fork */
static exit_guard_mark_fn guard_mark;
static void *guard_context;

static void write_stderr(const char *text)
{
    size_t len = strlen(text);
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, text, len);
        if (n <= 0)
            return;
        text += n;
        len -= (size_t)n;
    }
}

/* "exit(0)", or "exit()" when the status is unknown (status < 0). */
static void describe_exit(int status, char *buf, size_t size)
{
    if (status >= 0)
        snprintf(buf, size, "exit(%d)", status);
    else
        snprintf(buf, size, "exit()");
}

static void on_plugin_exit(int status, void *unused)
{
    (void)unused;
    /* An --isolate child inherits the handler: it must not touch the store,
     * and the parent reports the point as crashed with this status. It ends
     * here, as _exit() would: the rest of exit() would run the parent's
     * handlers on state copied mid-use by other threads (a sanitizer's leak
     * check waits forever there for a lock held by a thread that is gone). */
    if (getpid() != guard_pid) {
        if (status >= 0)
            _exit(status);
        return;
    }
    const runner_point *p = host_running_point();
    const char *plugin = p ? p->plugin->name : host_last_plugin_name();
    if (!p && host_points_running() == 0)
        return; /* runner's own exit: no plugin code is running */
    if (atomic_exchange(&guard_claimed, 1))
        for (;;)
            pause(); /* another thread's exit() reports and ends the process */
    char call[32];
    describe_exit(status, call, sizeof call);
    char *why = NULL;
    int marked = guard_mark && guard_mark(guard_context, &why) == 0;
    char *outcome = marked ? util_strdup("the sweep is marked failed")
                    : guard_mark
                        ? util_format("the sweep could not be marked failed (%s) and stays "
                                      "running",
                                      why ? why : "out of memory")
                        : util_strdup("the sweep is not marked");
    char *line;
    if (p)
        line = util_format("runner: plugin %s called %s during point %llu %s; %s; run untrusted "
                           "plugins with --isolate\n",
                           plugin, call, (unsigned long long)p->index,
                           p->canonical ? p->canonical : "{}", outcome ? outcome : "");
    else
        line = util_format("runner: plugin %s called %s from a thread of its own while points "
                           "ran; %s; run untrusted plugins with --isolate\n",
                           plugin ? plugin : "(unknown)", call, outcome ? outcome : "");
    write_stderr(line ? line : "runner: a plugin called exit() while points ran\n");
    /* What exit() would have flushed; stderr is unbuffered. */
    fflush(stdout);
    _exit(EXIT_PLUGIN_EXITED);
}

#ifndef __GLIBC__
static void on_plugin_exit_any(void) { on_plugin_exit(-1, NULL); }
#endif

/* Registers the handler once more. */
static void install(void)
{
    guard_pid = getpid();
#ifdef __GLIBC__
    on_exit(on_plugin_exit, NULL);
#else
    atexit(on_plugin_exit_any);
#endif
}

void exit_guard_watch(exit_guard_mark_fn mark, void *context, int threads)
{
    pthread_mutex_lock(&guard_lock);
    /* One more than the threads: a thread of the plugin's own may exit too. */
    while (guard_registered < threads + 1) {
        install();
        guard_registered++;
    }
    guard_mark = mark;
    guard_context = context;
    pthread_mutex_unlock(&guard_lock);
}
