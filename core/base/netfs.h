/* netfs: whether a file lives on a network file system, where SQLite's
 * locks and its WAL's shared memory do not hold between hosts
 * (docs/guarantees.md, "Where databases live"). Known by statfs's f_type. */
#ifndef RUNNER_NETFS_H
#define RUNNER_NETFS_H

/* "NFS", "Lustre", "GPFS", "CIFS/SMB" (and a few more) for the file system
 * of f_type, or NULL for any other (a local one, or one not known). */
const char *netfs_name_of_type(long f_type);

/* The network file system the directory holding path is on, or NULL (a
 * local one, or statfs failed). */
const char *netfs_name(const char *path);

#endif
