/* exec_orphans: a command's processes outside its group, killed with the
 * run (see exec_orphans.h). Found by reading /proc: runner's descendants
 * down its children lists (or, without them, every process by its parent
 * link), then the group in /proc/PID/stat or the marker in
 * /proc/PID/environ (readable while the process lives). */
#define _GNU_SOURCE /* PR_SET_CHILD_SUBREAPER */
#include "exec_orphans.h"

#include <dirent.h>
#include <errno.h>
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
/* Scans made again for a process whose marker could not be read. */
#define UNSURE_SCANS 5

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

/* Appends pid's entry (none when it is gone); -1 when memory ran out. */
static int append_entry(proc_entry **list, size_t *n, size_t *cap, pid_t pid, int descendant)
{
    if (*n == *cap) {
        size_t bigger_cap = *cap ? *cap * 2 : 64;
        proc_entry *bigger = realloc(*list, bigger_cap * sizeof *bigger);
        if (!bigger)
            return -1;
        *list = bigger;
        *cap = bigger_cap;
    }
    if (read_stat(pid, &(*list)[*n]) == 0)
        (*list)[(*n)++].descendant = descendant;
    return 0;
}

/* A /proc children file ("PID PID ... "), read with plain read(2): a
 * malloc'd text (empty when none), or NULL when it cannot be opened
 * (errno says why) or memory ran out. */
static char *read_children(const char *file)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 256, n = 0;
    char *text = malloc(cap);
    while (text) {
        if (n + 1 >= cap) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, text + n, cap - n - 1);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (text)
        text[n] = '\0';
    return text;
}

/* runner's descendants, read down from runner through each thread's
 * /proc/PID/task/TID/children: the cost is the size of runner's own tree,
 * paid after every command run, not the number of processes on the host.
 * skip (the run's leader: a zombie whose children were already handed to
 * runner) is neither listed nor read down. Zombies are not read down
 * either, for the same reason. Returns 0, -1 when memory ran out, 1 when
 * the kernel has no children files (the caller scans every process
 * instead). */
static int read_descendants(pid_t self, pid_t skip, proc_entry **out, size_t *count)
{
    proc_entry *list = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    pid_t parent = self;
    for (size_t next = 0;; parent = list[next++].pid) {
        if (parent != self && list[next - 1].state == 'Z') {
            if (next >= n)
                break;
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)parent);
        DIR *tasks = opendir(path);
        struct dirent *de;
        while (tasks && rc == 0 && (de = readdir(tasks))) {
            if (de->d_name[0] == '.')
                continue;
            char file[320];
            snprintf(file, sizeof file, "/proc/%d/task/%s/children", (int)parent, de->d_name);
            char *text = read_children(file);
            if (!text) {
                if (errno == ENOMEM)
                    rc = -1;
                else if (parent == self && access(file, F_OK) != 0)
                    rc = 1; /* no children files here */
                continue;
            }
            for (char *at = text, *end; rc == 0 && *at; at = end) {
                long pid = strtol(at, &end, 10);
                if (end == at)
                    break;
                if (pid > 0 && pid != skip && append_entry(&list, &n, &cap, (pid_t)pid, 1) != 0)
                    rc = -1;
            }
            free(text);
        }
        if (tasks)
            closedir(tasks);
        if (rc != 0 || next >= n)
            break;
    }
    if (rc != 0) {
        free(list);
        return rc;
    }
    *out = list;
    *count = n;
    return 0;
}

/* Every process, with runner's descendants marked (the fallback without
 * children files). NULL when /proc cannot be read or memory ran out. */
static proc_entry *read_processes(pid_t self, pid_t skip, size_t *count)
{
    proc_entry *found = NULL;
    int rc = read_descendants(self, skip, &found, count);
    if (rc == 0)
        return found ? found : calloc(1, sizeof *found);
    if (rc < 0)
        return NULL;
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
        if (append_entry(&list, &n, &cap, (pid_t)pid, 0) != 0) {
            free(list);
            closedir(d);
            return NULL;
        }
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
/* 1 when the process's environment holds the marker, 0 when it does not,
 * -1 when it cannot tell: unreadable, or empty, as it reads while the
 * process is inside execve (its new memory is in place before its
 * environment is: a daemon that execs at that moment would pass for
 * someone else's). */
static int has_marker(pid_t pid, const char *marker)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    char *env = NULL;
    size_t len = 0;
    if (util_read_file(path, &env, &len) != 0)
        return -1;
    if (len == 0) {
        free(env);
        return -1;
    }
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

void exec_orphans_kill(pid_t group, const char *marker, int leader_exited)
{
    pid_t self = getpid();
    killed *dead = NULL;
    size_t dead_count = 0, dead_cap = 0;
    double give_up = util_monotonic() + GIVE_UP_S;
    long nap_ns = 200000;
    /* Scans again while a process's marker could not be read, a few
     * times: the window inside execve is short, and a process whose
     * environment is empty for good (env -i) must not hold the run. */
    int unsure_scans_left = UNSURE_SCANS;
    for (;;) {
        size_t n = 0;
        proc_entry *procs = read_processes(self, leader_exited ? group : 0, &n);
        if (!procs)
            break;
        int pending = 0, unsure = 0;
        for (size_t i = 0; i < n; i++) {
            proc_entry *e = &procs[i];
            if (!e->descendant || e->pid == group)
                continue;
            int ours = e->pgrp == group || was_killed(dead, dead_count, e);
            if (!ours && e->state != 'Z' && marker) {
                int marked = has_marker(e->pid, marker);
                ours = marked == 1;
                unsure |= marked < 0;
            }
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
        if (!pending && unsure && unsure_scans_left > 0) {
            unsure_scans_left--;
            pending = 1;
        }
        if (!pending || util_monotonic() > give_up)
            break;
        struct timespec nap = { 0, nap_ns };
        nanosleep(&nap, NULL);
        if (nap_ns < 10000000)
            nap_ns *= 2;
    }
    free(dead);
}
