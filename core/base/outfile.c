/* outfile: new files renamed over their targets, in directories held open
 * (see outfile.h). */
#define _GNU_SOURCE /* O_CLOEXEC, O_DIRECTORY, O_NOFOLLOW with glibc */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define TEMP_ATTEMPTS 64 /* names tried before giving up */

struct outfile {
    int dirfd;
    int own_dirfd; /* 1: opened by outfile_begin_path, closed with f */
    char *name, *temp, *shown;
    FILE *stream;
};

static const char *kind_of(mode_t mode)
{
    return S_ISLNK(mode)    ? "a symbolic link"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "not a regular file";
}

/* Why opening the directory name (in dirfd) failed, errno saved. */
static int dir_failure(int dirfd, const char *name, const char *shown, int saved, char **err)
{
    struct stat st;
    size_t len = strlen(name);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
        (len == 0 || name[len - 1] != '/'))
        return util_fail(err,
                         "%s: is a symbolic link; runner does not write through links "
                         "(give %s/ to write into the directory it points to)",
                         shown, shown);
    return util_fail(err, "%s: cannot open the directory: %s", shown, strerror(saved));
}

int outfile_open_dir(const char *path, int make, char **err)
{
    if (make && mkdir(path, 0777) != 0 && errno != EEXIST)
        return util_fail(err, "%s: cannot make the directory: %s", path, strerror(errno));
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd >= 0 ? fd : dir_failure(AT_FDCWD, path, path, errno, err);
}

int outfile_open_subdir(int dirfd, const char *name, const char *shown, char **err)
{
    if (mkdirat(dirfd, name, 0777) != 0 && errno != EEXIST)
        return util_fail(err, "%s: cannot make the directory: %s", shown, strerror(errno));
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    int saved = errno;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return util_fail(err,
                         "%s: is a symbolic link; runner does not write through links "
                         "(remove it)",
                         shown);
    return util_fail(err, "%s: cannot open the directory: %s", shown, strerror(saved));
}

void outfile_discard(outfile *f)
{
    if (!f)
        return;
    if (f->stream)
        fclose(f->stream);
    if (f->temp)
        unlinkat(f->dirfd, f->temp, 0);
    if (f->own_dirfd)
        close(f->dirfd);
    free(f->name);
    free(f->temp);
    free(f->shown);
    free(f);
}

/* A new empty file beside f->name, open as f->stream. */
static int create_temp(outfile *f, mode_t mode, char **err)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < TEMP_ATTEMPTS; attempt++) {
        unsigned char random[6];
        if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random)
            return util_fail(err, "%s: cannot write: no random bytes for a temporary name: %s",
                             f->shown, strerror(errno));
        char suffix[sizeof random + 1];
        for (size_t i = 0; i < sizeof random; i++)
            suffix[i] = letters[random[i] % (sizeof letters - 1)];
        suffix[sizeof random] = '\0';
        free(f->temp);
        if (!(f->temp = util_format(".%s.%s", f->name, suffix)))
            return util_fail(err, "out of memory");
        int fd =
            openat(f->dirfd, f->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0) {
            int saved = errno;
            free(f->temp);
            f->temp = NULL;
            return util_fail(err, "%s: cannot write: %s", f->shown, strerror(saved));
        }
        if (!(f->stream = fdopen(fd, "w"))) {
            close(fd);
            return util_fail(err, "%s: cannot write: %s", f->shown, strerror(errno));
        }
        return 0;
    }
    free(f->temp);
    f->temp = NULL;
    return util_fail(err, "%s: cannot write: no free temporary name beside it", f->shown);
}

outfile *outfile_begin(int dirfd, const char *name, const char *shown, mode_t mode, char **err)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
        util_fail(err,
                  "%s: exists and is %s; runner replaces only regular files (remove it or "
                  "choose another name)",
                  shown, kind_of(st.st_mode));
        return NULL;
    }
    outfile *f = calloc(1, sizeof *f);
    if (!f || !(f->name = util_strdup(name)) || !(f->shown = util_strdup(shown))) {
        util_fail(err, "out of memory");
        outfile_discard(f);
        return NULL;
    }
    f->dirfd = dirfd;
    if (create_temp(f, mode, err) != 0) {
        outfile_discard(f);
        return NULL;
    }
    return f;
}

outfile *outfile_begin_path(const char *path, mode_t mode, char **err)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        util_fail(err, "%s: names a directory, not a file", path);
        return NULL;
    }
    char *dir = slash ? util_format("%.*s", slash == path ? 1 : (int)(slash - path), path)
                      : util_strdup(".");
    if (!dir) {
        util_fail(err, "out of memory");
        return NULL;
    }
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        util_fail(err, "%s: cannot write: %s", path, strerror(errno));
        free(dir);
        return NULL;
    }
    free(dir);
    outfile *f = outfile_begin(dirfd, name, path, mode, err);
    if (!f) {
        close(dirfd);
        return NULL;
    }
    f->own_dirfd = 1;
    return f;
}

FILE *outfile_stream(outfile *f) { return f->stream; }

int outfile_commit(outfile *f, char **err)
{
    int failed = ferror(f->stream) != 0;
    int saved = failed ? EIO : 0;
    if (fclose(f->stream) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    f->stream = NULL;
    if (!failed && renameat(f->dirfd, f->temp, f->dirfd, f->name) != 0) {
        failed = 1;
        saved = errno;
    }
    if (failed)
        util_fail(err, "%s: cannot write: %s", f->shown, strerror(saved));
    else {
        free(f->temp);
        f->temp = NULL; /* renamed: nothing to remove */
    }
    outfile_discard(f);
    return failed ? -1 : 0;
}

int outfile_write_path(const char *path, const void *data, size_t size, mode_t mode, char **err)
{
    outfile *f = outfile_begin_path(path, mode, err);
    if (!f)
        return -1;
    if (size && fwrite(data, 1, size, outfile_stream(f)) != size) {
        util_fail(err, "%s: cannot write: %s", path, strerror(errno));
        outfile_discard(f);
        return -1;
    }
    return outfile_commit(f, err);
}

int util_replace_file(const char *path, const void *data, size_t size, char **err)
{
    return outfile_write_path(path, data, size, 0666, err);
}
