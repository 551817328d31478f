/*
 * Files at a name another user could have planted — in a directory others
 * may write (/tmp, /dev/shm) or one a variable names (LOCI_TIER_PROFILE,
 * LOCI_CONFIG, `loci bench --save`). The rule: such a file is opened
 * O_NONBLOCK | O_NOFOLLOW (a FIFO cannot hang the open, a link is not
 * followed) and checked with fstat before anything is read — a regular
 * file, its owner and mode the ones expected; and loci renames or writes
 * over a name only when nothing is there or a regular file of the caller's.
 */
#ifndef LOCI_UTIL_OWNED_FILE_H
#define LOCI_UTIL_OWNED_FILE_H

#include <stddef.h>
#include <sys/types.h>

/** Who may own a file loci reads: the caller alone, or also root (an
 *  administrator's file, e.g. a config in /etc). */
typedef enum { OWNED_BY_ME, OWNED_BY_ME_OR_ROOT } owned_by_t;

/** Open the file at `path` with `flags` (O_RDONLY, O_RDWR; O_CREAT is not
 *  for here), O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC added, then fstat it: a
 *  regular file, owned as `owners` says, with none of the mode bits
 *  `forbidden` set (S_IWGRP | S_IWOTH: writable by nobody else). An fd
 *  (O_NONBLOCK cleared again), or LOCI_ENOENT (nothing there), LOCI_EPERM
 *  (a symbolic link, not a regular file, another owner, a mode with
 *  forbidden bits), LOCI_EIO, each with a message that starts with `what`
 *  ("LOCI_TIER_PROFILE=/x/y") and says what to do. */
int owned_file_open(const char *path, int flags, owned_by_t owners, mode_t forbidden, const char *what);

/** Write `len` bytes of `data` as the file at `path`, mode 0600: to a new
 *  file beside it (O_CREAT | O_EXCL | O_NOFOLLOW, a random name), synced,
 *  then renamed over `path` — readers see the old file or the new one,
 *  whole. Its directory is opened component by component
 *  (dir_open_checked: no link in it, each directory root's or the
 *  caller's, writable by others only if sticky), and what is at `path`
 *  must be nothing or a regular file of the caller's: anything else
 *  (another user's file, a FIFO, a device, a link) is left alone and
 *  refused, LOCI_EPERM. 0, or a LOCI_E* code with a message starting with
 *  `what`. */
int owned_file_replace(const char *path, const void *data, size_t len, const char *what);

#endif
