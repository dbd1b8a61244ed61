/* test_process_identity: which process a pid is, and what can be said of a
 * recorded one: gone, alive, on another host, or unsure. */
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "base/process_identity.h"

static void test_self(void)
{
    process_identity self;
    process_identity_self(&self);
    CHECK_INT_EQ(self.pid, (int64_t)getpid());
    CHECK(self.host[0] != '\0');
    if (access("/proc/self/stat", R_OK) != 0) {
        printf("test_self: skipped the /proc part (no /proc)\n");
        return;
    }
    CHECK(self.start_ticks > 0);
    CHECK_INT_EQ(strlen(self.boot_id), 36);
    /* The name in /proc/PID/stat may hold ") " and blanks. */
    prctl(PR_SET_NAME, "a) b (c d", 0, 0, 0);
    CHECK_INT_EQ(process_identity_start_ticks(self.pid), self.start_ticks);
    prctl(PR_SET_NAME, "test_process_id", 0, 0, 0);
    CHECK_INT_EQ(process_identity_start_ticks(0), 0);
}

static void test_check(void)
{
    process_identity self, r;
    process_identity_self(&self);
    if (!self.start_ticks || !self.boot_id[0]) {
        printf("test_check: skipped (no /proc)\n");
        return;
    }
    r = self;
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_ALIVE);
    r.start_ticks = self.start_ticks + 1; /* the pid was reused */
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_GONE);
    r = self;
    strcpy(r.boot_id, "another-boot"); /* the host rebooted since */
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_GONE);
    r = self;
    strcpy(r.host, "elsewhere");
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_OTHER_HOST);
    r = self;
    r.start_ticks = 0; /* a row an older runner wrote */
    r.boot_id[0] = '\0';
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_UNSURE);
    r.host[0] = '\0'; /* no host recorded: this one's */
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_UNSURE);
    /* A pid no process holds, whatever else the row says. */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    r = self;
    r.pid = child;
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_GONE);
    r.start_ticks = 0;
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_GONE);
    r.pid = 0;
    CHECK_INT_EQ(process_identity_check(&r, &self), PROCESS_GONE);
}

int main(void)
{
    test_self();
    test_check();
    return check_done("test_process_identity");
}
