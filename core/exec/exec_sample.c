/* exec_sample: /proc read for the tree of one running command. One pass
 * over /proc/[pid]/stat finds the tree (descendants of the root by parent,
 * and the root's process group), the same pass sums its CPU time, memory
 * and threads; /proc/[pid]/io of its members adds the bytes. Dead members'
 * CPU and I/O are in their reaping parent's counts (cutime, and the
 * kernel's sum into the parent's io), so the sums do not drop when a child
 * ends. */
#include "exec_sample.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

#define SAMPLE_MAX_PROCS 65536 /* /proc entries looked at in one pass */

typedef struct proc_entry {
    pid_t pid, ppid, pgrp;
    double cpu_s; /* utime + stime + cutime + cstime */
    long threads;
    int64_t rss_bytes;
    int member;
} proc_entry;

static long clock_ticks, page_bytes;

/* Reads a small file whole; returns its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

/* /proc/pid/stat: the fields after the command name (which may hold
 * spaces and parentheses: it ends at the last ')'). */
static int read_stat(pid_t pid, proc_entry *e)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_small(path, buf, sizeof buf) <= 0)
        return -1;
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    char state;
    int ppid, pgrp;
    unsigned long long utime, stime;
    long long cutime, cstime, threads, rss;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
     * utime stime cutime cstime priority nice num_threads itrealvalue
     * starttime vsize rss */
    if (sscanf(p + 2,
               "%c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld %*d %*d %lld %*d "
               "%*u %*u %lld",
               &state, &ppid, &pgrp, &utime, &stime, &cutime, &cstime, &threads, &rss) != 9)
        return -1;
    e->pid = pid;
    e->ppid = ppid;
    e->pgrp = pgrp;
    e->cpu_s = (double)(utime + stime + (unsigned long long)(cutime + cstime)) / clock_ticks;
    e->threads = (long)threads;
    e->rss_bytes = (int64_t)rss * page_bytes;
    e->member = 0;
    return 0;
}

/* read_bytes and write_bytes of /proc/pid/io; 0 when unreadable. */
static void read_io(pid_t pid, int64_t *read_bytes, int64_t *written_bytes)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
    if (read_small(path, buf, sizeof buf) <= 0)
        return;
    const char *r = strstr(buf, "\nread_bytes: "), *w = strstr(buf, "\nwrite_bytes: ");
    if (r)
        *read_bytes += strtoll(r + 13, NULL, 10);
    if (w)
        *written_bytes += strtoll(w + 14, NULL, 10);
}

void exec_sample_begin(exec_sampler *s, runner_point *point, double interval_s)
{
    memset(s, 0, sizeof *s);
    s->point = point;
    s->interval_s = interval_s;
    s->rss_peak_bytes = 0;
    if (!clock_ticks) {
        clock_ticks = sysconf(_SC_CLK_TCK);
        page_bytes = sysconf(_SC_PAGESIZE);
    }
}

void exec_sample_run_begin(exec_sampler *s, double started)
{
    s->last_at = started;
    s->last_cpu_s = 0;
}

static void add(exec_sampler *s, const char *name, double value)
{
    host_series_add(s->point, name, (double)s->samples, value, 1);
}

void exec_sample_tick(exec_sampler *s, pid_t root, double now)
{
    DIR *dir = opendir("/proc");
    if (!dir)
        return;
    size_t cap = 64, n = 0;
    proc_entry *all = malloc(cap * sizeof *all);
    struct dirent *d;
    while (all && (d = readdir(dir)) && n < SAMPLE_MAX_PROCS) {
        if (!isdigit((unsigned char)d->d_name[0]))
            continue;
        if (n == cap) {
            proc_entry *grown = realloc(all, 2 * cap * sizeof *all);
            if (!grown)
                break;
            all = grown;
            cap *= 2;
        }
        if (read_stat((pid_t)atoi(d->d_name), &all[n]) == 0)
            n++;
    }
    closedir(dir);
    if (!all)
        return;
    /* Members: the root's group, then descendants until none is added. */
    for (size_t i = 0; i < n; i++)
        all[i].member = all[i].pid == root || all[i].pgrp == root;
    for (int added = 1; added;) {
        added = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; !all[i].member && k < n; k++)
                if (all[k].member && all[k].pid == all[i].ppid)
                    added = all[i].member = 1;
    }
    double cpu_s = 0;
    long threads = 0;
    int64_t rss = 0, read_bytes = 0, written_bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].member) {
            cpu_s += all[i].cpu_s;
            threads += all[i].threads;
            rss += all[i].rss_bytes;
            read_io(all[i].pid, &read_bytes, &written_bytes);
        }
    free(all);
    if (threads == 0) /* gone between the poll and this pass */
        return;
    double cores = now > s->last_at ? (cpu_s - s->last_cpu_s) / (now - s->last_at) : 0;
    if (cores < 0)
        cores = 0;
    s->last_at = now;
    s->last_cpu_s = cpu_s;
    if (cores > s->cores_peak || s->samples == 0)
        s->cores_peak = cores;
    if (rss > s->rss_peak_bytes)
        s->rss_peak_bytes = rss;
    add(s, "sys.cpu_cores", cores);
    add(s, "sys.rss_bytes", (double)rss);
    add(s, "sys.read_bytes", (double)(s->read_bytes + read_bytes));
    add(s, "sys.written_bytes", (double)(s->written_bytes + written_bytes));
    add(s, "sys.threads", (double)threads);
    exec_gpu_sample(s->point, (double)s->samples);
    s->samples++;
}

void exec_sample_run_end(exec_sampler *s, double wall_s, double cpu_s, long max_rss_kib,
                         int64_t read_bytes, int64_t written_bytes)
{
    s->wall_s += wall_s;
    s->cpu_s += cpu_s;
    if ((int64_t)max_rss_kib * 1024 > s->rss_peak_bytes)
        s->rss_peak_bytes = (int64_t)max_rss_kib * 1024;
    s->read_bytes += read_bytes;
    s->written_bytes += written_bytes;
}

void exec_sample_end(exec_sampler *s)
{
    s->point->system = (store_point_system){
        .wall_s = s->wall_s,
        .cpu_s = s->cpu_s,
        .cpu_cores_peak = s->cores_peak,
        .rss_peak_bytes = s->rss_peak_bytes,
        .read_bytes = s->read_bytes,
        .written_bytes = s->written_bytes,
        .samples = (int64_t)s->samples,
    };
    s->point->system_measured = 1;
}
