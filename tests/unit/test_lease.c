/* test_lease: the renewal period from RUNNER_LEASE_SECONDS, the Slurm ids,
 * the one judgement of a recorded process (this host, the scheduler, the
 * lease, in that order), and the bounded question to squeue/scontrol. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "base/lease.h"
#include "base/scheduler.h"
#include "base/util.h"

static void test_period_from_env(void)
{
    double period = 0;
    char *err = NULL;
    unsetenv("RUNNER_LEASE_SECONDS");
    CHECK_INT_EQ(lease_period_from_env(&period, &err), 0);
    CHECK(period == LEASE_PERIOD_DEFAULT_S);
    const char *good[] = { "1", "0.5", "2.25", "86400", ".5", "7." };
    const double want[] = { 1, 0.5, 2.25, 86400, 0.5, 7 };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        setenv("RUNNER_LEASE_SECONDS", good[i], 1);
        CHECK_INT_EQ(lease_period_from_env(&period, &err), 0);
        CHECK(period == want[i]);
    }
    const char *bad[] = { "",    "0",   "0.0", "-1",   "abc",   "5s", " 5",
                          "inf", "nan", "1e3", "0x10", "86401", "." };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("RUNNER_LEASE_SECONDS", bad[i], 1);
        err = NULL;
        CHECK_INT_EQ(lease_period_from_env(&period, &err), -1);
        CHECK(err != NULL);
        free(err);
    }
    setenv("RUNNER_LEASE_SECONDS", "abc", 1);
    err = NULL;
    lease_period_from_env(&period, &err);
    CHECK_STR_EQ(err, "RUNNER_LEASE_SECONDS='abc': expected the lease's renewal period, a "
                      "positive number of seconds up to 86400 (like 5 or 0.5)");
    free(err);
    unsetenv("RUNNER_LEASE_SECONDS");
}

static void test_scheduler_self(void)
{
    sweep_lease l = { 0 };
    setenv("SLURM_JOB_ID", "1234", 1);
    setenv("SLURM_ARRAY_JOB_ID", "1200", 1);
    setenv("SLURM_ARRAY_TASK_ID", "34", 1);
    setenv("SLURM_STEP_ID", "not a number", 1); /* not recorded */
    lease_scheduler_self(&l);
    CHECK_STR_EQ(l.slurm_job_id, "1234");
    CHECK_STR_EQ(l.slurm_array_job_id, "1200");
    CHECK_STR_EQ(l.slurm_array_task_id, "34");
    CHECK_STR_EQ(l.slurm_step_id, "");
    char text[64];
    lease_job_text(&l, text, sizeof text);
    CHECK_STR_EQ(text, "Slurm job 1200_34");
    l.slurm_array_job_id[0] = '\0';
    lease_job_text(&l, text, sizeof text);
    CHECK_STR_EQ(text, "Slurm job 1234");
    l.slurm_job_id[0] = '\0';
    lease_job_text(&l, text, sizeof text);
    CHECK_STR_EQ(text, "");
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_ARRAY_JOB_ID");
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("SLURM_STEP_ID");
}

static int asked;
static scheduler_answer answer_given;
static const char *expected_job = "77";
static scheduler_answer fake_ask(const char *job_id, void *ctx)
{
    (void)ctx;
    CHECK_STR_EQ(job_id, expected_job);
    asked++;
    return answer_given;
}

static void test_judge(void)
{
    process_identity self, other;
    process_identity_self(&self);
    other = (process_identity){ .pid = 4242, .start_ticks = 5, .host = "node7", .boot_id = "b" };
    sweep_lease none = { 0 }, lease = { .renewed_at_s = 1000, .period_s = 5 };
    CHECK(lease_expires_at(&none) == 0);
    CHECK(lease_expires_at(&lease) == 1015);
    /* Another host without a lease (an older row): nothing to go by. */
    CHECK_INT_EQ(lease_judge(&other, &none, &self, 1e9, NULL, NULL), SWEEP_OTHER_HOST);
    /* With one: fresh until 3 periods after its renewal, then gone. */
    CHECK_INT_EQ(lease_judge(&other, &lease, &self, 1014.9, NULL, NULL), SWEEP_LEASED);
    CHECK_INT_EQ(lease_judge(&other, &lease, &self, 1015, NULL, NULL), SWEEP_GONE);
    /* A fresh lease is alive whatever the scheduler would say: it is not
     * even asked (PENDING, NODE_FAIL: a node cut off from the controller
     * goes on renewing). */
    snprintf(lease.slurm_job_id, sizeof lease.slurm_job_id, "77");
    const scheduler_answer answers[] = { SCHEDULER_UNKNOWN, SCHEDULER_ACTIVE, SCHEDULER_SUSPENDED,
                                         SCHEDULER_ENDED };
    for (size_t i = 0; i < sizeof answers / sizeof *answers; i++) {
        asked = 0;
        answer_given = answers[i];
        CHECK_INT_EQ(lease_judge(&other, &lease, &self, 1014.9, fake_ask, NULL), SWEEP_LEASED);
        CHECK_INT_EQ(asked, 0);
    }
    /* Expired: gone, unless the scheduler suspended it (its process is
     * stopped, and goes on when resumed). A running job with an expired
     * lease is a stopped or cut-off process: gone. */
    const sweep_liveness expired_verdict[] = { SWEEP_GONE, SWEEP_GONE, SWEEP_SUSPENDED,
                                               SWEEP_GONE };
    for (size_t i = 0; i < sizeof answers / sizeof *answers; i++) {
        asked = 0;
        answer_given = answers[i];
        CHECK_INT_EQ(lease_judge(&other, &lease, &self, 1015, fake_ask, NULL), expired_verdict[i]);
        CHECK_INT_EQ(asked, 1);
    }
    CHECK_INT_EQ(lease_judge(&other, &lease, &self, 1015, NULL, NULL), SWEEP_GONE);
    /* No lease (an older row): only an ended job settles it. */
    sweep_lease job_only = { 0 };
    snprintf(job_only.slurm_job_id, sizeof job_only.slurm_job_id, "77");
    const sweep_liveness unleased_verdict[] = { SWEEP_OTHER_HOST, SWEEP_OTHER_HOST, SWEEP_SUSPENDED,
                                                SWEEP_GONE };
    for (size_t i = 0; i < sizeof answers / sizeof *answers; i++) {
        answer_given = answers[i];
        CHECK_INT_EQ(lease_judge(&other, &job_only, &self, 1e9, fake_ask, NULL),
                     unleased_verdict[i]);
    }
    /* An array task is asked about as ARRAYID_TASK, never by the array's
     * id (which squeue answers with a sibling's state). */
    snprintf(lease.slurm_job_id, sizeof lease.slurm_job_id, "120");
    snprintf(lease.slurm_array_job_id, sizeof lease.slurm_array_job_id, "120");
    snprintf(lease.slurm_array_task_id, sizeof lease.slurm_array_task_id, "3");
    char id[72];
    lease_scheduler_id(&lease, id, sizeof id);
    CHECK_STR_EQ(id, "120_3");
    expected_job = "120_3";
    asked = 0;
    answer_given = SCHEDULER_SUSPENDED;
    CHECK_INT_EQ(lease_judge(&other, &lease, &self, 1020, fake_ask, NULL), SWEEP_SUSPENDED);
    CHECK_INT_EQ(asked, 1);
    expected_job = "77";
    lease.slurm_array_job_id[0] = lease.slurm_array_task_id[0] = '\0';
    snprintf(lease.slurm_job_id, sizeof lease.slurm_job_id, "77");
    if (!self.start_ticks || !self.boot_id[0]) {
        printf("test_judge: skipped the same-host part (no /proc)\n");
        return;
    }
    /* This host: its proof outranks any lease, alive or gone. */
    CHECK_INT_EQ(lease_judge(&self, &lease, &self, 1e9, fake_ask, NULL), SWEEP_ALIVE_HERE);
    process_identity reused = self;
    reused.start_ticks++;
    CHECK_INT_EQ(lease_judge(&reused, &lease, &self, 1010, fake_ask, NULL), SWEEP_GONE);
    /* A live pid here that cannot be told apart: the lease decides. */
    process_identity unsure = self;
    unsure.start_ticks = 0;
    CHECK_INT_EQ(lease_judge(&unsure, &none, &self, 1010, NULL, NULL), SWEEP_UNSURE);
    lease.slurm_job_id[0] = '\0';
    CHECK_INT_EQ(lease_judge(&unsure, &lease, &self, 1010, NULL, NULL), SWEEP_LEASED);
    CHECK_INT_EQ(lease_judge(&unsure, &lease, &self, 1016, NULL, NULL), SWEEP_GONE);
}

static void test_state_words(void)
{
    CHECK_INT_EQ(scheduler_state_answer("RUNNING"), SCHEDULER_ACTIVE);
    CHECK_INT_EQ(scheduler_state_answer("COMPLETING"), SCHEDULER_ACTIVE);
    CHECK_INT_EQ(scheduler_state_answer("SUSPENDED"), SCHEDULER_SUSPENDED);
    CHECK_INT_EQ(scheduler_state_answer("STOPPED"), SCHEDULER_SUSPENDED);
    CHECK_INT_EQ(scheduler_state_answer("PENDING"), SCHEDULER_ENDED);
    CHECK_INT_EQ(scheduler_state_answer("NODE_FAIL"), SCHEDULER_ENDED);
    CHECK_INT_EQ(scheduler_state_answer("CANCELLED"), SCHEDULER_ENDED);
    CHECK_INT_EQ(scheduler_state_answer("SOMETHING_NEW"), SCHEDULER_UNKNOWN);
    CHECK_INT_EQ(scheduler_state_answer(""), SCHEDULER_UNKNOWN);
}

/* A fake command name in dir printing body (a shell script). */
static void fake_command(const char *dir, const char *name, const char *body)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    chmod(path, 0755);
}

static void test_ask_slurm(void)
{
    char dir[] = "/tmp/test_lease.XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    char *old_path = util_strdup(getenv("PATH"));
    setenv("PATH", dir, 1); /* only the fakes: no real Slurm here */
    CHECK_INT_EQ(scheduler_job_state("77", 1.0), SCHEDULER_UNKNOWN); /* none on PATH */
    fake_command(dir, "squeue", "[ \"$3\" = 77 ] && echo RUNNING");
    CHECK_INT_EQ(scheduler_job_state("77", 2.0), SCHEDULER_ACTIVE);
    fake_command(dir, "squeue", ""); /* no line: no longer in the queue */
    CHECK_INT_EQ(scheduler_job_state("77", 2.0), SCHEDULER_ENDED);
    fake_command(dir, "squeue",
                 "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
    CHECK_INT_EQ(scheduler_job_state("77", 2.0), SCHEDULER_ENDED);
    fake_command(dir, "squeue",
                 "echo 'slurm_load_jobs error: Unable to contact slurm controller' >&2; exit 1");
    CHECK_INT_EQ(scheduler_job_state("77", 2.0), SCHEDULER_UNKNOWN);
    /* A scheduler that does not answer is given up on in bounded time. */
    fake_command(dir, "squeue", "exec sleep 30");
    double t0 = util_monotonic();
    CHECK_INT_EQ(scheduler_job_state("77", 0.3), SCHEDULER_UNKNOWN);
    CHECK(util_monotonic() - t0 < 10);
    CHECK_INT_EQ(scheduler_job_state("77; rm -rf /", 1.0), SCHEDULER_UNKNOWN); /* not an id */
    /* scontrol when there is no squeue. */
    char squeue[600];
    snprintf(squeue, sizeof squeue, "%s/squeue", dir);
    unlink(squeue);
    fake_command(dir, "scontrol", "echo 'JobId=77 JobName=x JobState=NODE_FAIL Reason=None'");
    CHECK_INT_EQ(scheduler_job_state("77", 2.0), SCHEDULER_ENDED);
    fake_command(dir, "scontrol", "echo 'JobId=77 JobName=x JobState=RUNNING Reason=None'");
    CHECK_INT_EQ(scheduler_job_state("77", 2.0), SCHEDULER_ACTIVE);
    char scontrol[600];
    snprintf(scontrol, sizeof scontrol, "%s/scontrol", dir);
    unlink(scontrol);
    rmdir(dir);
    setenv("PATH", old_path ? old_path : "/usr/bin:/bin", 1);
    free(old_path);
}

int main(void)
{
    test_period_from_env();
    test_scheduler_self();
    test_judge();
    test_state_words();
    test_ask_slurm();
    return check_done("test_lease");
}
