/* process_identity: which process a pid is, beyond its number. A pid is
 * reused (after a reboot, or once the counter wraps), so the sweep row
 * records the host, the boot (the kernel's random boot_id) and the process's
 * start time too, and resume compares them all before it calls a recorded
 * runner alive (docs/schema.md, sweep.pid). */
#ifndef RUNNER_PROCESS_IDENTITY_H
#define RUNNER_PROCESS_IDENTITY_H

#include <stdint.h>

typedef struct process_identity {
    int64_t pid;         /* 0: unknown */
    int64_t start_ticks; /* start, clock ticks after boot; 0: unknown */
    char host[256];      /* "": unknown */
    char boot_id[40];    /* "": unknown */
} process_identity;

typedef enum process_liveness {
    PROCESS_GONE,       /* not running: no such pid, another boot, another start */
    PROCESS_ALIVE,      /* that very process, running on this host */
    PROCESS_OTHER_HOST, /* recorded on another host: cannot be checked from here */
    PROCESS_UNSURE      /* its pid lives here, but nothing says it is the same process */
} process_liveness;

/* This process: pid, start time, boot id, host name. */
void process_identity_self(process_identity *out);
/* What can be said of the recorded process from this one (self). */
process_liveness process_identity_check(const process_identity *recorded,
                                        const process_identity *self);
/* Start time of pid in clock ticks after boot (/proc/PID/stat, field 22);
 * 0 when it cannot be read (no such process, no /proc). */
int64_t process_identity_start_ticks(int64_t pid);

#endif
