/*
 * File tier directories: the checks and the file handling shared by the
 * providers that keep memory in files (file: mmap; paged: loci's chunk
 * cache). Files are 0600, opened O_NOFOLLOW, in a directory of ours that
 * others cannot write; persistent regions are "<dir>/<name>.region": a flat
 * file (filetier/region.c), or a directory of chunk files (filetier/chunks.c,
 * paged/paged.h). filetier/region.c and filetier/chunks.c both build on filetier.c, which
 * calls neither; filetier/region.c removes a region of either layout.
 */
#ifndef LOCI_FILETIER_H
#define LOCI_FILETIER_H

#include "os/place.h"
#include "topo/topo.h"

#include <stdint.h>
#include <sys/types.h>

/** The tier directory of t must exist, be a real directory (no symlink),
 *  be ours and not writable by others. 0 or LOCI_E* with a message. */
int filetier_check_dir(const struct loci_target *t);

/** A fresh file of ours in t's directory, opened read-write with `oflags`
 *  added (O_DIRECT is dropped where the file system refuses it). With `path`
 *  its name goes there and it stays until unlinked; without, it has no name
 *  (O_TMPFILE) and goes away with its last descriptor. The first call for a
 *  directory in a process removes the named files of dead processes. fd or LOCI_E*. */
int filetier_create(const struct loci_target *t, int oflags, char *path, size_t len);

/** Could a file of `size` bytes go into t's directory now? Checked before
 *  any file is made: LOCI_ENOMEM beyond what a file can hold, LOCI_ENOSPC
 *  beyond the file system's free space, each with a message. */
int filetier_fits(const struct loci_target *t, uint64_t size);

/** Reserve `size` bytes for fd's file so that writing it never fails for
 *  space (filetier_fits first): LOCI_ENOSPC naming the tier and what to do
 *  when it is full. */
int filetier_reserve(const struct loci_target *t, int fd, uint64_t size);

/** Free space of place->target's file system (provider_ops_t.available). */
int filetier_available(const place_t *place, uint64_t *bytes);

/** True when fd's file lives in memory (tmpfs): reserving space there would
 *  take memory, and dropping it from the page cache is impossible. */
bool filetier_in_memory(int fd);

/* ---- persistent regions (filetier/region.c) ----------------------------------- */

/** Open the persistent region `name` of place->target (LOCI_CREATE: create
 *  it, zero-filled, when missing; LOCI_READONLY; LOCI_SHARED), with `oflags`
 *  added. *size: the size wanted (0: as it is), then the size it has. The
 *  file is locked: exclusively for a writer without LOCI_SHARED, shared
 *  otherwise, so that a conflicting opener gets LOCI_EBUSY. fd or LOCI_E*. */
int filetier_open_region(const place_t *place, const char *name, unsigned flags, int oflags, uint64_t *size);

/** Delete the persistent region `name` of place->target, in either layout
 *  (only the region's own names: other links to its chunk files stay):
 *  LOCI_ENOENT when there is none, LOCI_EBUSY while a process has it open. */
int filetier_remove_region(const place_t *place, const char *name);

/** How the persistent region `name` of place->target is kept on disk. */
typedef enum { REGION_MISSING, REGION_FLAT, REGION_CHUNKS } region_layout_t;
region_layout_t filetier_region_layout(const place_t *place, const char *name);

/* ---- regions in chunk layout (filetier/chunks.c) ------------------------------ */

/** Open the region `name` of place->target in chunk layout, locked as
 *  filetier_open_region does. LOCI_CREATE makes it when missing: the directory,
 *  its meta file (*size bytes in chunks of *chunk), no chunk file; the tier
 *  must have *size bytes free. *size: the size wanted (0: as it is), then
 *  its size; *chunk: then the region's chunk size (from its meta file). A
 *  writer removes the copy-on-write files dead processes left. The
 *  directory's path goes to path. Directory fd or LOCI_E*. */
int filetier_open_chunked(const place_t *place, const char *name, unsigned flags, uint64_t *size, size_t *chunk,
                      char *path, size_t len);

/** Delete the region directory dirfd (at `path`, locked by the caller):
 *  its meta file first (a half-deleted region is never taken for data),
 *  then every file, then the directory. 0 or LOCI_E*. */
int filetier_remove_chunked(int dirfd, const char *path);

/* ---- what both layouts build on (filetier.c) ---------------------------------- */

/** open(2) that drops O_DIRECT where the file system refuses it. */
int filetier_open_maybe_direct(const char *path, int flags, mode_t mode);

/** "<tier dir>/<name>.region" into buf. */
int filetier_region_path(const place_t *place, const char *name, char *buf, size_t len);

/** filetier_region_path after filetier_check_dir of place's directory: where a
 *  region is opened, made or removed. */
int filetier_region_checked_path(const place_t *place, const char *name, char *buf, size_t len);

/** Lock the region file or directory fd for `flags` (exclusive for a writer
 *  without LOCI_SHARED), at once: LOCI_EBUSY naming `name` on a conflict. */
int filetier_lock_region(int fd, unsigned flags, const char *name);

/** The failure to open region `name` at path (errno e), for `flags`. */
int filetier_open_fail(const place_t *place, const char *name, const char *path, unsigned flags, int e);

/** The failure to create a file in t's directory (errno e). */
int filetier_create_fail(const struct loci_target *t, int e);

/** LOCI_EINVAL: region `name` holds `has` bytes, not the `want` asked. */
int filetier_size_mismatch(const char *name, uint64_t has, uint64_t want);

/** True when no process `pid` exists any more (its leftovers may go). */
bool filetier_process_gone(long pid);

#endif
