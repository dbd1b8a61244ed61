/* exec_spawn: argv passed as it is, output captured and cut, exit status,
 * signals, the time limit killing the whole group, rusage. */
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "exec/exec_spawn.h"

static char *no_env[] = { NULL };

static int spawn(char **argv, double timeout_s, size_t cap, exec_spawn_result *r)
{
    exec_spawn_request req = { .path = "/bin/sh",
                               .argv = argv,
                               .envp = no_env,
                               .timeout_s = timeout_s,
                               .output_cap_bytes = cap };
    char *err = NULL;
    int rc = exec_spawn_run(&req, r, &err);
    if (err)
        fprintf(stderr, "exec_spawn_run: %s\n", err);
    free(err);
    return rc;
}

static void test_output_and_status(void)
{
    exec_spawn_result r;
    char *argv[] = { "sh",  "-c", "printf '%s|' \"$@\"; echo err >&2; exit 7", "sh", "a b", "$(x)",
                     "'q'", NULL };
    CHECK_INT_EQ(spawn(argv, 0, 1 << 20, &r), 0);
    CHECK_STR_EQ(r.out, "a b|$(x)|'q'|");
    CHECK_STR_EQ(r.err, "err\n");
    CHECK_INT_EQ(r.exited, 1);
    CHECK_INT_EQ(r.exit_status, 7);
    CHECK(r.wall_s > 0);
    CHECK(r.max_rss_kib > 0);
    exec_spawn_result_free(&r);
}

static void test_cap(void)
{
    exec_spawn_result r;
    char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 100 ]; do echo 0123456789; i=$((i+1)); done",
                     NULL };
    CHECK_INT_EQ(spawn(argv, 0, 25, &r), 0);
    CHECK_INT_EQ(r.out_len, 25);
    CHECK_INT_EQ(r.out_cut, 1);
    CHECK_INT_EQ(r.exit_status, 0);
    exec_spawn_result_free(&r);
}

static void test_signal_and_timeout(void)
{
    exec_spawn_result r;
    char *crash[] = { "sh", "-c", "kill -TERM $$", NULL };
    CHECK_INT_EQ(spawn(crash, 0, 1024, &r), 0);
    CHECK_INT_EQ(r.exited, 0);
    CHECK_INT_EQ(r.signal, SIGTERM);
    exec_spawn_result_free(&r);
    /* The background sleep holds the pipe: only killing the group ends it. */
    char *hang[] = { "sh", "-c", "sleep 30 & echo $!; wait", NULL };
    CHECK_INT_EQ(spawn(hang, 0.3, 1024, &r), 0);
    CHECK_INT_EQ(r.timed_out, 1);
    CHECK_INT_EQ(r.signal, SIGKILL);
    CHECK(r.wall_s >= 0.3 && r.wall_s < 10);
    pid_t child = (pid_t)atoi(r.out);
    CHECK(child > 0);
    /* Killed with its group: gone, or a zombie until init reaps it, never
     * running. SIGKILL is delivered at once but the state changes when the
     * kernel gets to it: wait for that (up to a minute on a loaded machine). */
    int dead = 0;
    for (int i = 0; i < 6000 && child > 0 && !dead; i++) {
        char path[64], state = 0;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)child);
        FILE *f = fopen(path, "r");
        dead = !f || (fscanf(f, "%*d %*s %c", &state) == 1 && state == 'Z');
        if (f)
            fclose(f);
        if (!dead)
            nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
    }
    CHECK(dead);
    exec_spawn_result_free(&r);
}

static void test_background_after_exit(void)
{
    /* The command exits at once, leaving a child holding stdout: the run
     * ends when the command does, the child killed with its group. */
    exec_spawn_result r;
    char *argv[] = { "sh", "-c", "sleep 30 & echo done", NULL };
    CHECK_INT_EQ(spawn(argv, 20, 1024, &r), 0);
    CHECK_INT_EQ(r.timed_out, 0);
    CHECK_INT_EQ(r.exit_status, 0);
    CHECK_STR_EQ(r.out, "done\n");
    CHECK(r.wall_s < 10);
    exec_spawn_result_free(&r);
}

static void test_missing_program(void)
{
    exec_spawn_result r;
    exec_spawn_request req = { .path = "/nonexistent/prog",
                               .argv = (char *[]){ "x", NULL },
                               .envp = no_env,
                               .output_cap_bytes = 16 };
    char *err = NULL;
    CHECK_INT_EQ(exec_spawn_run(&req, &r, &err), -1);
    CHECK_STR_EQ(err, "cannot run /nonexistent/prog: No such file or directory");
    free(err);
    exec_spawn_result_free(&r);
}

int main(void)
{
    test_output_and_status();
    test_cap();
    test_signal_and_timeout();
    test_background_after_exit();
    test_missing_program();
    return check_done("test_exec_spawn");
}
