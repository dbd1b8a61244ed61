/* exec_orphans: a command's processes outside its group, killed with the
 * run (see exec_orphans.h). Found by reading /proc: runner's descendants by
 * their parent links, then the group in /proc/PID/stat or the marker in
 * /proc/PID/environ (readable while the process lives). */
#define _GNU_SOURCE /* PR_SET_CHILD_SUBREAPER */
#include "exec_orphans.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

#define GIVE_UP_S 5.0

static void adopt_once(void) { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

void exec_orphans_adopt(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, adopt_once);
}

typedef struct proc_entry {
    pid_t pid, ppid, pgrp;
    char state;                     /* 'Z': a zombie */
    unsigned long long start_ticks; /* tells a reused pid from the one killed */
    int descendant;                 /* of runner */
} proc_entry;

/* /proc/PID/stat: state, parent, group and start time. 0 or -1 (gone). */
static int read_stat(pid_t pid, proc_entry *e)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    char *rest = strrchr(text, ')'); /* the name may hold blanks and ')' */
    int ppid, pgrp;
    if (!rest || sscanf(rest + 2, "%c %d %d", &e->state, &ppid, &pgrp) != 3)
        return -1;
    /* field 22, starttime, is the 20th after the name */
    char *field = rest + 2;
    for (int i = 0; i < 19 && field; i++)
        if ((field = strchr(field, ' ')))
            field++;
    e->start_ticks = field ? strtoull(field, NULL, 10) : 0;
    e->pid = pid;
    e->ppid = ppid;
    e->pgrp = pgrp;
    e->descendant = 0;
    return 0;
}

/* Every process, with runner's descendants marked. NULL when /proc cannot
 * be read or memory ran out. */
static proc_entry *read_processes(pid_t self, size_t *count)
{
    DIR *d = opendir("/proc");
    if (!d)
        return NULL;
    proc_entry *list = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            proc_entry *bigger = realloc(list, cap * sizeof *bigger);
            if (!bigger) {
                free(list);
                closedir(d);
                return NULL;
            }
            list = bigger;
        }
        if (read_stat((pid_t)pid, &list[n]) == 0)
            n++;
    }
    closedir(d);
    /* Mark children of marked processes until nothing changes (the depth
     * of runner's tree passes). */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (list[i].descendant)
                continue;
            int below = list[i].ppid == self;
            for (size_t k = 0; !below && k < n; k++)
                below = list[k].descendant && list[k].pid == list[i].ppid;
            if (below)
                changed = list[i].descendant = 1;
        }
    }
    *count = n;
    return list;
}

/* 1 when marker is one of the NUL-separated entries of pid's environment. */
static int has_marker(pid_t pid, const char *marker)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    char *env = NULL;
    size_t len = 0;
    if (util_read_file(path, &env, &len) != 0)
        return 0;
    size_t want = strlen(marker);
    int found = 0;
    for (size_t at = 0; at < len && !found; at += strlen(env + at) + 1)
        found = strlen(env + at) == want && memcmp(env + at, marker, want) == 0;
    free(env);
    return found;
}

typedef struct killed {
    pid_t pid;
    unsigned long long start_ticks;
} killed;

static int was_killed(const killed *list, size_t n, const proc_entry *e)
{
    for (size_t i = 0; i < n; i++)
        if (list[i].pid == e->pid && list[i].start_ticks == e->start_ticks)
            return 1;
    return 0;
}

void exec_orphans_kill(pid_t group, const char *marker)
{
    pid_t self = getpid();
    killed *dead = NULL;
    size_t dead_count = 0, dead_cap = 0;
    double give_up = util_monotonic() + GIVE_UP_S;
    long nap_ns = 200000;
    for (;;) {
        size_t n = 0;
        proc_entry *procs = read_processes(self, &n);
        if (!procs)
            break;
        int pending = 0;
        for (size_t i = 0; i < n; i++) {
            proc_entry *e = &procs[i];
            if (!e->descendant || e->pid == group)
                continue;
            int ours = e->pgrp == group || was_killed(dead, dead_count, e) ||
                       (e->state != 'Z' && marker && has_marker(e->pid, marker));
            if (!ours)
                continue;
            if (e->state == 'Z') {
                /* runner's child now: reaped here; another's: once its
                 * parent is killed it comes to runner */
                if (e->ppid == self)
                    waitpid(e->pid, NULL, WNOHANG);
                else
                    pending = 1;
                continue;
            }
            kill(e->pid, SIGKILL);
            pending = 1;
            if (!was_killed(dead, dead_count, e)) {
                if (dead_count == dead_cap) {
                    size_t cap = dead_cap ? dead_cap * 2 : 16;
                    killed *bigger = realloc(dead, cap * sizeof *bigger);
                    if (bigger) {
                        dead = bigger;
                        dead_cap = cap;
                    }
                }
                if (dead_count < dead_cap)
                    dead[dead_count++] = (killed){ e->pid, e->start_ticks };
            }
        }
        free(procs);
        if (!pending || util_monotonic() > give_up)
            break;
        struct timespec nap = { 0, nap_ns };
        nanosleep(&nap, NULL);
        if (nap_ns < 10000000)
            nap_ns *= 2;
    }
    free(dead);
}
