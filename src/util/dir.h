/*
 * Walking a directory's entries (tier directories, region directories, the
 * checkpoint directory and its chunk pool).
 */
#ifndef LOCI_UTIL_DIR_H
#define LOCI_UTIL_DIR_H

#include <stdbool.h>

/** Call fn(dirfd, path, entry, arg) for each entry of the directory dirfd
 *  (named `path` in messages) but "." and "..", stopping at the first
 *  nonzero return, which is returned. LOCI_EIO when it cannot be listed. */
int dir_each_entry(int dirfd, const char *path, int (*fn)(int dirfd, const char *path, const char *entry, void *arg),
                   void *arg);

/** Open the directory `path` one component at a time from "/" (or the
 *  working directory for a relative path),
 *  each with O_NOFOLLOW | O_DIRECTORY, so that a symbolic link anywhere in
 *  it is refused (LOCI_EPERM), not only as the last component; every
 *  directory above the last must belong to root or to the caller and be
 *  writable by others only if sticky (/tmp). The last one's owner and mode
 *  are the caller's to check (fstat the fd), unless `parent`: loci makes
 *  its directory in it, and it is checked like the others. `what` starts the messages
 *  ("ssd0: directory"). An fd, or LOCI_ENOENT (missing), LOCI_EINVAL (not a
 *  directory, ".."), LOCI_EPERM, LOCI_EIO with a message. */
int dir_open_checked(const char *what, const char *path, bool parent);

#endif
