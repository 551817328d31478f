/*
 * Named segments (named.c): files of the calling user in a shared-memory
 * directory that several processes map at the same address: what shared
 * arenas (src/arena/shared*.c) are made of. Not a provider: no ops table,
 * the shared arena places and maps its segments itself through these.
 */
#ifndef LOCI_NAMED_H
#define LOCI_NAMED_H

#include "internal.h"
#include "os/place.h"

#include <stddef.h>
#include <stdint.h>

/** Create `path` (O_EXCL, O_NOFOLLOW, mode 0600) of `size` bytes and map it
 *  shared into *addr, placed per `place` (NULL: kernel default) before any
 *  page is touched. With seed 0 the kernel chooses the address; otherwise it
 *  is chosen from `seed` in a region processes rarely use (so that others
 *  can map it at the same address), falling back to the kernel's choice.
 *  0, or LOCI_E* with loci__fail (LOCI_EEXIST when path exists). */
int named_create(const char *path, size_t size, uint64_t seed, const place_t *place, void **addr);

/** Map the existing `path` shared into *addr: at exactly `at` (0: anywhere),
 *  refusing with LOCI_EBUSY, and the mapping in the way, when that range is
 *  taken. The file must be a regular file (no symbolic link) of the calling
 *  user with mode 0600 (LOCI_EPERM otherwise; LOCI_ENOENT when absent). Its
 *  size goes to *size. 0 or LOCI_E* with loci__fail. */
int named_open(const char *path, uintptr_t at, void **addr, size_t *size);

int named_unmap(void *addr, size_t size);

/** Remove `path` if it is a file of the calling user (LOCI_ENOENT, LOCI_EPERM). */
int named_unlink(const char *path);

/** Give the pages of a page-aligned sub-range back (they read as zeros). */
int named_purge(void *addr, size_t size);

/** Fault a page-aligned sub-range in now, so that a full bound node answers
 *  LOCI_ENOMEM instead of the OOM killer answering on first touch. */
int named_populate(void *addr, size_t size);

#endif
