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
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/process_identity.h"
#include "base/util.h"
#include "exec_int.h"

#define OWNER_FILE ".runner-owner"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* Removes dir and everything under it, symlinks as links. */
void execi_remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

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

/* 1 when fd (a directory) holds nothing but "." and "..". getdents64 with
 * a small buffer: no DIR and its 32 KiB buffer per point. */
static int is_empty_dir(int fd)
{
    char buf[1024];
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n < 0)
            return 0;
        if (n == 0)
            return 1;
        for (long at = 0; at < n;) {
            /* linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name */
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            const char *name = buf + at + 19;
            if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
                return 0;
            at += reclen;
        }
    }
}

int execi_point_dir_make(exec_command *c, const char *dir)
{
    if (getpid() != c->owner_pid)
        return mkdir(dir, 0700);
    for (;;) {
        pthread_mutex_lock(&c->spare_lock);
        char *spare = c->spare_count ? c->spare[--c->spare_count] : NULL;
        pthread_mutex_unlock(&c->spare_lock);
        if (!spare)
            return mkdir(dir, 0700);
        int renamed = rename(spare, dir) == 0;
        if (!renamed)
            execi_remove_tree(spare);
        free(spare);
        if (renamed)
            return 0;
    }
}

void execi_point_dir_done(exec_command *c, char *dir)
{
    int fd =
        getpid() == c->owner_pid ? open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    struct stat st;
    int reusable = fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
                   st.st_uid == geteuid() && (st.st_mode & 07777) == 0700 && is_empty_dir(fd);
    if (fd >= 0)
        close(fd);
    if (reusable) {
        pthread_mutex_lock(&c->spare_lock);
        if (c->spare_count < EXEC_SPARE_DIRS) {
            c->spare[c->spare_count++] = dir;
            dir = NULL;
        }
        pthread_mutex_unlock(&c->spare_lock);
    }
    if (dir) {
        execi_remove_tree(dir);
        free(dir);
    }
}
