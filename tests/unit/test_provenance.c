/* test_provenance: what a sweep records about where it ran: the command line
 * (quoted so it can be pasted back into a shell), the git commit of the
 * script (with "-dirty" when the script has uncommitted changes), the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "base/provenance.h"
#include "base/util.h"

static char tmp_dir[512];

static char *command_line(int argc, const char *const *argv)
{
    return provenance_command_line(argc, (char **)argv);
}

static void test_command_line(void)
{
    const char *plain[] = { "runner",         "run", "scripts/sweep.lua",
                            "--max-points=5", "a,b", "user@host:1%+" };
    char *line = command_line(6, plain);
    CHECK_STR_EQ(line, "runner run scripts/sweep.lua --max-points=5 a,b user@host:1%+");
    free(line);

    const char *space[] = { "runner", "run", "my sweep.lua" };
    line = command_line(3, space);
    CHECK_STR_EQ(line, "runner run 'my sweep.lua'");
    free(line);

    /* A single quote cannot appear inside '...': close, escape, reopen. */
    const char *quote[] = { "runner", "--set", "label=it's" };
    line = command_line(3, quote);
    CHECK_STR_EQ(line, "runner --set 'label=it'\\''s'");
    free(line);

    const char *shell[] = { "runner", "$HOME", "a\"b", "", "x;y" };
    line = command_line(5, shell);
    CHECK_STR_EQ(line, "runner '$HOME' 'a\"b' '' 'x;y'");
    free(line);

    /* The worst case for the buffer: nothing but single quotes. */
    const char *quotes[] = { "''''" };
    line = command_line(1, quotes);
    CHECK_STR_EQ(line, "''\\'''\\'''\\'''\\'''");
    free(line);

    line = command_line(0, NULL);
    CHECK_STR_EQ(line, "");
    free(line);
}

static void test_host(void)
{
    char buf[256], expected[256];
    provenance_host(buf, sizeof buf);
    CHECK(buf[0] != '\0');
    if (gethostname(expected, sizeof expected) == 0 && expected[0]) {
        expected[sizeof expected - 1] = '\0';
        CHECK_STR_EQ(buf, expected);
    }
    char small[3];
    provenance_host(small, sizeof small);
    CHECK(strlen(small) < sizeof small); /* terminated, whatever it says */
}

/* Runs argv (argv[0] found on PATH) with output discarded; returns the exit
 * status, or -1 when it could not run. */
static int run(const char *const *argv)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static int write_file(const char *dir, const char *name, const char *text)
{
    char *path = util_format("%s/%s", dir, name);
    FILE *f = path ? fopen(path, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    free(path);
    return rc;
}

/* HEAD of the repository at dir, as git itself prints it. */
static char *git_head(const char *dir)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execlp("git", "git", "-C", dir, "rev-parse", "HEAD", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[128] = "";
    ssize_t got = pid > 0 ? read(fds[0], buf, sizeof buf - 1) : -1;
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    if (got <= 0)
        return NULL;
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return util_strdup(buf);
}

static void remove_tree(const char *dir)
{
    const char *rm[] = { "rm", "-rf", dir, NULL };
    run(rm);
}

static void test_no_repository(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/provenance_nogit_XXXXXX", tmp_dir);
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT_EQ(write_file(dir, "sweep.lua", "return {}\n"), 0);
    char *script = util_format("%s/sweep.lua", dir);
    char *commit = provenance_git_commit(script);
    CHECK(commit == NULL);
    if (commit)
        fprintf(stderr, "  got %s outside any repository\n", commit);
    free(commit);
    free(script);
    remove_tree(dir);
}

static int is_hex40(const char *s)
{
    return s && strlen(s) >= 40 && strspn(s, "0123456789abcdef") == 40;
}

static void test_repository(void)
{
    if (run((const char *const[]){ "git", "--version", NULL }) != 0) {
        fprintf(stderr, "test_provenance: git is not installed; repository checks skipped\n");
        return;
    }
    char dir[600];
    snprintf(dir, sizeof dir, "%s/provenance_repo_XXXXXX", tmp_dir);
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT_EQ(run((const char *const[]){ "git", "-C", dir, "init", "-q", NULL }), 0);
    CHECK_INT_EQ(write_file(dir, "sweep.lua", "return {}\n"), 0);
    CHECK_INT_EQ(write_file(dir, "notes.txt", "first\n"), 0);
    CHECK_INT_EQ(
        run((const char *const[]){ "git", "-C", dir, "add", "sweep.lua", "notes.txt", NULL }), 0);
    CHECK_INT_EQ(run((const char *const[]){ "git", "-C", dir, "-c", "user.name=x", "-c",
                                            "user.email=y", "-c", "commit.gpgsign=false", "commit",
                                            "-q", "-m", "first", NULL }),
                 0);
    char *head = git_head(dir);
    CHECK(is_hex40(head));

    char *script = util_format("%s/sweep.lua", dir);
    char *commit = provenance_git_commit(script);
    CHECK(is_hex40(commit));
    CHECK_INT_EQ(commit ? strlen(commit) : 0, 40);
    CHECK_STR_EQ(commit, head);
    free(commit);

    /* Other files' changes do not make the script's commit dirty. */
    CHECK_INT_EQ(write_file(dir, "notes.txt", "second\n"), 0);
    commit = provenance_git_commit(script);
    CHECK_STR_EQ(commit, head);
    free(commit);

    /* The script's own changes do. */
    CHECK_INT_EQ(write_file(dir, "sweep.lua", "return { changed = true }\n"), 0);
    char *dirty = util_format("%s-dirty", head ? head : "");
    commit = provenance_git_commit(script);
    CHECK_STR_EQ(commit, dirty);
    free(commit);

    /* So does a script git has never seen. */
    CHECK_INT_EQ(write_file(dir, "new.lua", "return {}\n"), 0);
    char *new_script = util_format("%s/new.lua", dir);
    commit = provenance_git_commit(new_script);
    CHECK_STR_EQ(commit, dirty);
    free(commit);

    free(new_script);
    free(dirty);
    free(script);
    free(head);
    remove_tree(dir);
}

int main(void)
{
    const char *tmp = getenv("RUNNER_TEST_TMP");
    snprintf(tmp_dir, sizeof tmp_dir, "%s", tmp && *tmp ? tmp : "/tmp");
    /* RUNNER_TEST_TMP lies inside runner's own work tree: stop git from
     * finding that repository above the test's directories. */
    setenv("GIT_CEILING_DIRECTORIES", tmp_dir, 1);

    test_command_line();
    test_host();
    test_no_repository();
    test_repository();
    return check_done("test_provenance");
}
