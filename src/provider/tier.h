/*
 * File tier directories: the checks and the file handling shared by the
 * providers that keep memory in files (file: mmap; paged: loci's chunk
 * cache). Files are 0600, opened O_NOFOLLOW, in a directory of ours that
 * others cannot write; persistent regions are "<dir>/<name>.region".
 */
#ifndef LOCI_PROVIDER_TIER_H
#define LOCI_PROVIDER_TIER_H

#include "provider/provider.h"

#include <stdint.h>

/** The tier directory of t must exist, be a real directory (no symlink),
 *  be ours and not writable by others. 0 or LOCI_E* with a message. */
int tier_check_dir(const struct loci_target *t);

/** A fresh file of ours in t's directory, opened read-write with `oflags`
 *  added (O_DIRECT is dropped where the file system refuses it). With `path`
 *  its name goes there and it stays until unlinked; without, it has no name
 *  (O_TMPFILE) and goes away with its last descriptor. fd or LOCI_E*. */
int tier_create(const struct loci_target *t, int oflags, char *path, size_t len);

/** Reserve `size` bytes for fd's file so that writing it never fails for
 *  space: LOCI_ENOSPC naming the tier and what to do when it is full. */
int tier_reserve(const struct loci_target *t, int fd, uint64_t size);

/** Free space of place->target's file system (provider_ops_t.available). */
int tier_available(const place_t *place, uint64_t *bytes);

/** True when fd's file lives in memory (tmpfs): reserving space there would
 *  take memory, and dropping it from the page cache is impossible. */
bool tier_in_memory(int fd);

/** Open the persistent region `name` of place->target (LOCI_CREATE: create
 *  it, zero-filled, when missing; LOCI_READONLY; LOCI_SHARED), with `oflags`
 *  added. *size: the size wanted (0: as it is), then the size it has. The
 *  file is locked: exclusively for a writer without LOCI_SHARED, shared
 *  otherwise, so that a conflicting opener gets LOCI_EBUSY. fd or LOCI_E*. */
int tier_open_region(const place_t *place, const char *name, unsigned flags, int oflags, uint64_t *size);

/** Delete the persistent region `name` of place->target: LOCI_ENOENT when
 *  there is none, LOCI_EBUSY while a process has it open. */
int tier_remove_region(const place_t *place, const char *name);

#endif
