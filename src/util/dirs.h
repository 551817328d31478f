/*
 * Walking a directory's entries (tier directories, region directories, the
 * checkpoint directory and its chunk pool).
 */
#ifndef LOCI_UTIL_DIRS_H
#define LOCI_UTIL_DIRS_H

/** Call fn(dirfd, path, entry, arg) for each entry of the directory dirfd
 *  (named `path` in messages) but "." and "..", stopping at the first
 *  nonzero return, which is returned. LOCI_EIO when it cannot be listed. */
int dir_each_entry(int dirfd, const char *path, int (*fn)(int dirfd, const char *path, const char *entry, void *arg),
                   void *arg);

#endif
