/*
 * The kernel's file-space and page-cache calls, for the layers that keep
 * memory in files (file tiers, chunk stores, checkpoint files): blocks
 * reserved and given back, write-back started or waited for, the page cache
 * dropped. Each returns 0 or an errno value (never sets errno alone), so
 * that callers' messages can name it.
 */
#ifndef LOCI_OS_FILE_SPACE_H
#define LOCI_OS_FILE_SPACE_H

#include <stdbool.h>
#include <stdint.h>

/** Reserve the first `size` bytes of fd's file so that writing them never
 *  fails for space (posix_fallocate): 0 or its error number. */
int file_reserve(int fd, uint64_t size);

/** Make [off, off+len) of fd's file read as zeros, its blocks given back to
 *  the file system (a hole, the size kept); with `reserve` the blocks are
 *  allocated again at once, so that writing there cannot fail for space
 *  (not for a file in memory, where a reservation would take memory).
 *  0, or the errno of the punch (EOPNOTSUPP where the file system has none). */
int file_zero_range(int fd, uint64_t off, uint64_t len, bool reserve);

/** Start writing [off, off+len) of fd's page cache back, not waiting. */
void file_writeback_start(int fd, uint64_t off, uint64_t len);

/** Write [off, off+len) of fd's page cache back and wait for it (not a
 *  durability barrier: fdatasync is). 0 or errno. */
int file_writeback_wait(int fd, uint64_t off, uint64_t len);

/** Drop [off, off+len) of fd's file from the page cache (clean pages only). */
void file_drop_cache(int fd, uint64_t off, uint64_t len);

#endif
