/* lease: whether a sweep left 'running' still has a process running it, as
 * any host can tell. The process that owns a sweep renews a lease in its
 * row every period (RUNNER_LEASE_SECONDS, default 5 s); the lease expires
 * LEASE_EXPIRY_PERIODS periods after its last renewal. The same host's
 * proof (process_identity: pid, boot id, start time) comes first, then the
 * lease: a fresh one means alive whatever the scheduler says; only once it
 * has expired (or where none is recorded) is the scheduler asked, and then
 * only about the task itself (scheduler.h; docs/guarantees.md, "Liveness"). */
#ifndef RUNNER_LEASE_H
#define RUNNER_LEASE_H

#include <stddef.h>

#include "process_identity.h"

#define LEASE_PERIOD_DEFAULT_S 5.0
#define LEASE_PERIOD_MAX_S 86400.0
/* A reader calls a lease expired this many periods after its renewal: a
 * writer late by a period or two (a busy disk, a loaded node) keeps it. */
#define LEASE_EXPIRY_PERIODS 3

/* A sweep's lease and who runs it, as its row records them. Slurm's ids are
 * "" outside Slurm (or in a row an older runner wrote). */
typedef struct sweep_lease {
    double renewed_at_s; /* Unix s of the last renewal; 0: no lease recorded */
    double period_s;     /* the writer's renewal period; 0: no lease recorded */
    char slurm_job_id[32];
    char slurm_array_job_id[32];
    char slurm_array_task_id[32];
    char slurm_step_id[32];
} sweep_lease;

/* The renewal period this process uses: RUNNER_LEASE_SECONDS, a positive
 * decimal number of seconds up to LEASE_PERIOD_MAX_S, or the default. 0, or
 * -1 with a one-line message in *err (caller frees). */
int lease_period_from_env(double *period_s, char **err);

/* Fills the scheduler's ids of this process from Slurm's environment
 * (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID, SLURM_STEP_ID);
 * leaves renewed_at_s and period_s alone. */
void lease_scheduler_self(sweep_lease *lease);

/* When the lease expires (Unix s), or 0 when none is recorded. */
double lease_expires_at(const sweep_lease *lease);

/* The id to ask the scheduler about: "120_3" for task 3 of array job 120
 * (its own SLURM_JOB_ID would name the whole array when it is the array's
 * first task, and squeue would answer with a sibling's state), else the job
 * id; "" without one. */
void lease_scheduler_id(const sweep_lease *lease, char *out, size_t size);

/* "Slurm job 123" or "Slurm job 120_3" (array job and task), or "" without
 * one, in out (size bytes). */
void lease_job_text(const sweep_lease *lease, char *out, size_t size);

typedef enum sweep_liveness {
    SWEEP_GONE,       /* not running: proven on this host, by the scheduler, or
                       * its lease expired */
    SWEEP_ALIVE_HERE, /* that very process, on this host */
    SWEEP_LEASED,     /* its lease has not expired (another host, or in doubt here) */
    SWEEP_OTHER_HOST, /* another host and no lease recorded (an older runner's row) */
    SWEEP_UNSURE,     /* its pid lives here, no start time and no lease say more */
    SWEEP_SUSPENDED   /* its lease expired, but its scheduler suspended it (scontrol
                       * suspend, gang scheduling): it runs on once resumed */
} sweep_liveness;

/* What the scheduler says of a job (scheduler.h). */
typedef enum scheduler_answer {
    SCHEDULER_UNKNOWN,   /* no scheduler, no job recorded, or it could not answer */
    SCHEDULER_ACTIVE,    /* the job is running (maybe another incarnation of it) */
    SCHEDULER_SUSPENDED, /* the job is suspended: its processes are stopped, not gone */
    SCHEDULER_ENDED      /* the job is gone or pending again: nothing of it runs */
} scheduler_answer;

/* Asks the scheduler about job_id (lease_scheduler_id); may be NULL (never
 * asked). */
typedef scheduler_answer (*lease_ask_fn)(const char *job_id, void *ctx);

/* The liveness of the process recorded for a sweep, judged from self at
 * now_s (Unix s), the one judgement every reader's status, resume's refusal
 * and a requeued job's wait use:
 *   1. this host's proof: the pid gone (or reused) -> GONE; alive -> ALIVE_HERE;
 *   2. a lease that has not expired -> LEASED, whatever the scheduler says
 *      (a node cut off from the controller keeps renewing; Slurm's PENDING,
 *      NODE_FAIL or "node down" then say nothing of the process);
 *   3. an expired lease -> GONE, unless ask says the task is SUSPENDED;
 *   4. no lease (an older row): ask; an ended job -> GONE, else OTHER_HOST
 *      or UNSURE. */
sweep_liveness lease_judge(const process_identity *recorded, const sweep_lease *lease,
                           const process_identity *self, double now_s, lease_ask_fn ask,
                           void *ask_ctx);

#endif
