/* exec_scratch: the work directory of a command sweep in $TMPDIR
 * (runner-NAME-XXXXXX, the points' directories inside). A runner killed
 * with -9 cannot remove its own, so each records the process that owns it,
 * and the next command sweep removes those whose process is gone: only
 * directories runner made (the owner file), only of dead processes
 * (process_identity.c, the check resume uses). */
#define _GNU_SOURCE /* O_DIRECTORY, O_NOFOLLOW, openat */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/process_identity.h"
#include "base/util.h"
#include "exec_int.h"

#define OWNER_FILE ".runner-owner"

/* The identity recorded in dir's owner file; -1 when it has none (not a
 * directory runner made, or one whose file is not yet written). */
static int read_owner(int dir_fd, process_identity *out)
{
    int fd = openat(dir_fd, OWNER_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char text[512];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    memset(out, 0, sizeof *out);
    long long pid, ticks;
    if (sscanf(text, "pid=%lld start_ticks=%lld boot_id=%39s host=%255s", &pid, &ticks,
               out->boot_id, out->host) != 4)
        return -1;
    out->pid = pid;
    out->start_ticks = ticks;
    return 0;
}

/* Removes tmp's runner-* directories (ours: same user, not links) whose
 * recorded process this host proves gone. */
static void remove_stale(const char *tmp, const process_identity *self)
{
    DIR *d = opendir(tmp);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "runner-", 7) != 0)
            continue;
        int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        process_identity owner;
        int stale = fstat(fd, &st) == 0 && st.st_uid == geteuid() && read_owner(fd, &owner) == 0 &&
                    process_identity_check(&owner, self) == PROCESS_GONE;
        close(fd);
        if (stale) {
            char *path = util_format("%s/%s", tmp, de->d_name);
            if (path)
                execi_remove_tree(path);
            free(path);
        }
    }
    closedir(d);
}

int execi_scratch_make(const char *tmp, char *template_path)
{
    process_identity self;
    process_identity_self(&self);
    remove_stale(tmp, &self);
    if (!mkdtemp(template_path))
        return -1;
    char *owner = util_format("%s/" OWNER_FILE, template_path);
    FILE *f = owner ? fopen(owner, "wx") : NULL;
    int written =
        f && fprintf(f, "pid=%lld start_ticks=%lld boot_id=%s host=%s\n", (long long)self.pid,
                     (long long)self.start_ticks, self.boot_id[0] ? self.boot_id : "-",
                     self.host[0] ? self.host : "-") > 0;
    if (f && fclose(f) != 0)
        written = 0;
    free(owner);
    if (!written) {
        int saved = errno ? errno : ENOMEM;
        execi_remove_tree(template_path);
        errno = saved;
        return -1;
    }
    return 0;
}
