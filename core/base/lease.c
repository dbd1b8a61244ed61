/* lease: the renewal period, the scheduler's ids of this process, and the
 * one judgement of whether a recorded process still runs a sweep (lease.h). */
#include "lease.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int lease_period_from_env(double *period_s, char **err)
{
    *period_s = LEASE_PERIOD_DEFAULT_S;
    const char *text = getenv("RUNNER_LEASE_SECONDS");
    if (!text)
        return 0;
    double value = 0;
    if (util_positive_seconds(text, LEASE_PERIOD_MAX_S, &value) != 0) {
        char shown[64];
        return util_fail(err,
                         "RUNNER_LEASE_SECONDS='%s': expected the lease's renewal period, a "
                         "positive number of seconds up to %.0f (like 5 or 0.5)",
                         util_printable(text, shown, sizeof shown), LEASE_PERIOD_MAX_S);
    }
    *period_s = value;
    return 0;
}

/* Copies the environment variable name into out when it is set and fits
 * (an id is a short number; anything else is not recorded). */
static void copy_env(const char *name, char *out, size_t size)
{
    const char *v = getenv(name);
    out[0] = '\0';
    if (v && strlen(v) < size && strspn(v, "0123456789_") == strlen(v))
        snprintf(out, size, "%s", v);
}

void lease_scheduler_self(sweep_lease *lease)
{
    copy_env("SLURM_JOB_ID", lease->slurm_job_id, sizeof lease->slurm_job_id);
    copy_env("SLURM_ARRAY_JOB_ID", lease->slurm_array_job_id, sizeof lease->slurm_array_job_id);
    copy_env("SLURM_ARRAY_TASK_ID", lease->slurm_array_task_id, sizeof lease->slurm_array_task_id);
    copy_env("SLURM_STEP_ID", lease->slurm_step_id, sizeof lease->slurm_step_id);
}

double lease_expires_at(const sweep_lease *lease)
{
    if (!(lease->renewed_at_s > 0) || !(lease->period_s > 0) || !isfinite(lease->renewed_at_s) ||
        !isfinite(lease->period_s))
        return 0;
    return lease->renewed_at_s + LEASE_EXPIRY_PERIODS * lease->period_s;
}

void lease_scheduler_id(const sweep_lease *lease, char *out, size_t size)
{
    if (lease->slurm_array_job_id[0] && lease->slurm_array_task_id[0])
        snprintf(out, size, "%s_%s", lease->slurm_array_job_id, lease->slurm_array_task_id);
    else
        snprintf(out, size, "%s", lease->slurm_job_id);
}

void lease_job_text(const sweep_lease *lease, char *out, size_t size)
{
    if (!lease->slurm_job_id[0])
        snprintf(out, size, "%s", "");
    else if (lease->slurm_array_job_id[0] && lease->slurm_array_task_id[0])
        snprintf(out, size, "Slurm job %s_%s", lease->slurm_array_job_id,
                 lease->slurm_array_task_id);
    else
        snprintf(out, size, "Slurm job %s", lease->slurm_job_id);
}

sweep_liveness lease_judge(const process_identity *recorded, const sweep_lease *lease,
                           const process_identity *self, double now_s, lease_ask_fn ask,
                           void *ask_ctx)
{
    process_liveness here = process_identity_check(recorded, self);
    if (here == PROCESS_GONE)
        return SWEEP_GONE;
    if (here == PROCESS_ALIVE)
        return SWEEP_ALIVE_HERE; /* a live process here outranks its lease */
    double expires_at = lease_expires_at(lease);
    if (expires_at > 0 && now_s < expires_at)
        return SWEEP_LEASED; /* renewed within its period: alive */
    char job[72];
    lease_scheduler_id(lease, job, sizeof job);
    scheduler_answer said = job[0] && ask ? ask(job, ask_ctx) : SCHEDULER_UNKNOWN;
    if (expires_at > 0)
        /* Stopped by its scheduler, the writer cannot renew; it is not gone.
         * Anything else (RUNNING too: a stopped or cut-off process) is. */
        return said == SCHEDULER_SUSPENDED ? SWEEP_SUSPENDED : SWEEP_GONE;
    /* No lease (a row from before schema 12): only an ended job settles it;
     * a running one may be a requeued incarnation on another node. */
    if (said == SCHEDULER_ENDED)
        return SWEEP_GONE;
    if (said == SCHEDULER_SUSPENDED)
        return SWEEP_SUSPENDED;
    return here == PROCESS_OTHER_HOST ? SWEEP_OTHER_HOST : SWEEP_UNSURE;
}
