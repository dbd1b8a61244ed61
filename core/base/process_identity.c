/* process_identity: a process named by host, boot, pid and start time, read
 * from /proc (Linux). Where /proc is missing the start time and boot id are
 * unknown, and a live pid is reported as PROCESS_UNSURE, never as dead. */
#include "process_identity.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "provenance.h"

int64_t process_identity_start_ticks(int64_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    /* The command name (field 2) may hold spaces and parentheses: count
     * fields after its last ')'; field 3 follows it. */
    const char *p = strrchr(line, ')');
    if (!p)
        return 0;
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        return 0;
    long long ticks = strtoll(p + 1, NULL, 10);
    return ticks > 0 ? (int64_t)ticks : 0;
}

/* The kernel's id of this boot, or "" without /proc. */
static void read_boot_id(char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return;
    if (!fgets(out, (int)size, f))
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

void process_identity_self(process_identity *out)
{
    memset(out, 0, sizeof *out);
    out->pid = (int64_t)getpid();
    out->start_ticks = process_identity_start_ticks(out->pid);
    provenance_host(out->host, sizeof out->host);
    read_boot_id(out->boot_id, sizeof out->boot_id);
}

process_liveness process_identity_check(const process_identity *recorded,
                                        const process_identity *self)
{
    if (recorded->host[0] && strcmp(recorded->host, self->host) != 0)
        return PROCESS_OTHER_HOST;
    /* Same host, another boot: every process of that boot has ended. */
    if (recorded->boot_id[0] && self->boot_id[0] && strcmp(recorded->boot_id, self->boot_id) != 0)
        return PROCESS_GONE;
    pid_t pid = (pid_t)recorded->pid;
    if (recorded->pid <= 0 || (pid_t)recorded->pid != recorded->pid ||
        (kill(pid, 0) != 0 && errno != EPERM))
        return PROCESS_GONE;
    int64_t now_ticks = process_identity_start_ticks(recorded->pid);
    if (recorded->start_ticks <= 0 || now_ticks <= 0)
        return PROCESS_UNSURE; /* an older row, or no /proc */
    if (recorded->start_ticks != now_ticks)
        return PROCESS_GONE; /* the pid was reused */
    return recorded->boot_id[0] && self->boot_id[0] ? PROCESS_ALIVE : PROCESS_UNSURE;
}
