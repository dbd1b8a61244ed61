/* provenance: git commit, host name, command line for the sweep record. */
#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* Runs git with argv in dir, returns its first output line or NULL. git is
 * run directly (no shell) so odd paths cannot inject commands. */
static char *git_line(const char *dir, const char *const *args)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        const char *argv[12] = { "git", "-C", dir };
        size_t n = 3;
        for (size_t i = 0; args[i] && n < 11; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execvp("git", (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char buf[256];
    ssize_t got = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return NULL;
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return util_strdup(buf);
}

/* The directory part of path ("." without one), malloc'd. */
static char *dir_of(const char *path)
{
    char *dir = util_strdup(path);
    if (!dir)
        return NULL;
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    return dir;
}

char *provenance_git_order(const char *script_path)
{
    char *dir = dir_of(script_path);
    if (!dir)
        return NULL;
    int fds[2];
    if (pipe(fds) != 0) {
        free(dir);
        return NULL;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        free(dir);
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        const char *argv[] = { "git",          "-C",        dir,     "rev-list",
                               "--topo-order", "--reverse", "--all", NULL };
        execvp("git", (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    free(dir);
    size_t size = 0, cap = 4096;
    char *text = malloc(cap);
    ssize_t got = 0;
    while (text && (got = read(fds[0], text + size, cap - size - 1)) > 0) {
        size += (size_t)got;
        if (cap - size < 2) {
            char *grown = realloc(text, cap * 2);
            if (!grown)
                free(text);
            text = grown;
            cap *= 2;
        }
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!text || got < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || size == 0) {
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

char *provenance_git_commit(const char *script_path)
{
    char *dir = util_strdup(script_path);
    if (!dir)
        return NULL;
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    const char *head_args[] = { "rev-parse", "HEAD", NULL };
    char *commit = git_line(dir, head_args);
    if (commit && *commit) {
        const char *base = slash ? strrchr(script_path, '/') + 1 : script_path;
        const char *status_args[] = { "status", "--porcelain", "--", base, NULL };
        char *status = git_line(dir, status_args);
        if (status && *status) {
            char *dirty = util_format("%s-dirty", commit);
            free(commit);
            commit = dirty;
        }
        free(status);
    } else {
        free(commit);
        commit = NULL;
    }
    free(dir);
    return commit;
}

void provenance_host(char *buf, size_t size)
{
    if (gethostname(buf, size) != 0 || !*buf)
        snprintf(buf, size, "unknown");
    buf[size - 1] = '\0';
}

char *provenance_command_line(int argc, char **argv)
{
    size_t cap = 1;
    for (int i = 0; i < argc; i++)
        cap += strlen(argv[i]) * 4 + 3;
    char *line = malloc(cap), *p = line;
    if (!line)
        return NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789-_./=:,+@%") == strlen(a);
        if (i)
            *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
        } else {
            *p++ = '\'';
            for (; *a; a++) {
                if (*a == '\'')
                    p += sprintf(p, "'\\''");
                else
                    *p++ = *a;
            }
            *p++ = '\'';
        }
    }
    *p = '\0';
    return line;
}
