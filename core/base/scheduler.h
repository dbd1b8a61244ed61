/* scheduler: asks Slurm whether a job still runs, for the liveness of a
 * sweep that recorded its job (lease.h). squeue is asked first, scontrol
 * when there is no squeue; either is given a bounded time and killed past
 * it. A missing command, an error or a timeout is SCHEDULER_UNKNOWN, and
 * the caller falls back to the lease. */
#ifndef RUNNER_SCHEDULER_H
#define RUNNER_SCHEDULER_H

#include "lease.h"

/* How long one question may take, all told. */
#define SCHEDULER_TIMEOUT_S 2.0

/* What Slurm says of job_id (digits, maybe "_" and a task), within
 * timeout_s seconds. Runs a child process; safe with other threads
 * running. */
scheduler_answer scheduler_job_state(const char *job_id, double timeout_s);

/* The state word squeue or scontrol prints ("RUNNING", "PENDING", ...) as
 * an answer; exposed for the unit tests. */
scheduler_answer scheduler_state_answer(const char *state);

#endif
