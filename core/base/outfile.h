/* outfile: the files runner writes where a user says (export --out,
 * artifacts --extract, report -o, plot -o, slurm's scripts). Each is made
 * as a new file beside its target (openat O_CREAT|O_EXCL|O_NOFOLLOW in a
 * directory held open) and renamed over it, so bytes never go through a
 * symbolic or hard link planted at the name, a FIFO there cannot block
 * runner, and a reader sees the old file or the new one, never half.
 * An existing target that is not a regular file is refused, not replaced.
 *
 * The last component of a name the user gives is never followed: a
 * directory given as DIR must not be a symbolic link (DIR/ names the
 * directory it points to); directories above it are the user's path. */
#ifndef RUNNER_OUTFILE_H
#define RUNNER_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

/* Opens the directory path to write into, making it first when make is 1
 * and it is missing. O_DIRECTORY|O_NOFOLLOW: a symbolic link at path is
 * refused. Returns the descriptor (the caller closes it), or -1 with *err
 * (the caller frees). */
int outfile_open_dir(const char *path, int make, char **err);
/* The same for name inside the open directory dirfd (mkdirat, openat);
 * shown is its path for messages. */
int outfile_open_subdir(int dirfd, const char *name, const char *shown, char **err);

typedef struct outfile outfile;

/* Begins the file name in the open directory dirfd (borrowed: it must stay
 * open until commit or discard); shown is its path for messages. Refuses an
 * existing name that is not a regular file, then creates a new file with
 * mode (less the umask) under a temporary name beside it. NULL with *err. */
outfile *outfile_begin(int dirfd, const char *name, const char *shown, mode_t mode, char **err);
/* The same for a path: its directory (which may be reached through links:
 * the user named it) is opened and owned by the outfile. */
outfile *outfile_begin_path(const char *path, mode_t mode, char **err);
/* Where to write; owned by f. */
FILE *outfile_stream(outfile *f);
/* Flushes, closes and renames the file over its name. Returns 0, or -1 with
 * *err (the temporary file is removed). Frees f either way. */
int outfile_commit(outfile *f, char **err);
/* Removes the temporary file and frees f. Accepts NULL. */
void outfile_discard(outfile *f);

/* The whole of data as the file at path (outfile_begin_path, write,
 * commit). Returns 0, or -1 with *err: "PATH: ...". */
int outfile_write_path(const char *path, const void *data, size_t size, mode_t mode, char **err);
/* Writes a whole file by creating a new one beside path and renaming it over
 * path so the bytes never go through an existing file: a hard
 * link at path is replaced, not written through, a symbolic link or other
 * file that is not regular there is refused, and a reader sees the old file
 * or the new one, never half of either. Returns 0, or -1 with *err set to
 * "PATH: ..." (caller frees). */
int util_replace_file(const char *path, const void *data, size_t size, char **err);

#endif
