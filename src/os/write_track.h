/*
 * Which pages of its own memory the process wrote, through the kernel's
 * per-process interfaces, with no privilege at all (no root, capability,
 * sysctl or device node): the heat layer's `dirty` source. Two ways, the
 * first this kernel has:
 *
 *   WRITES_ASYNC_WP    asynchronous userfaultfd write-protection (Linux 6.7):
 *                      a descriptor for user-mode faults only (what
 *                      vm.unprivileged_userfaultfd=0 leaves to everyone) with
 *                      UFFD_FEATURE_WP_ASYNC. Only the tracked ranges are
 *                      protected; the first write to a protected page — the
 *                      program's, or one the kernel makes for it (read(2)
 *                      into it) — unprotects it in the kernel itself: no
 *                      message, no handler thread, never EFAULT. Read back
 *                      with PAGEMAP_SCAN (PAGE_IS_WRITTEN).
 *   WRITES_SOFT_DIRTY  soft-dirty bits (CONFIG_MEM_SOFT_DIRTY, Debian's
 *                      kernels): /proc/self/clear_refs "4" clears the bit of
 *                      every page of the whole process and write-protects
 *                      them all; the first write to each page afterwards
 *                      faults and sets it again. Read back from
 *                      /proc/self/pagemap (bit 55).
 *
 * Neither sees a read. Pages must stay in base pages (a transparent huge
 * page is protected and reported as one).
 */
#ifndef LOCI_OS_WRITE_TRACK_H
#define LOCI_OS_WRITE_TRACK_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

typedef enum { WRITES_ASYNC_WP = 1, WRITES_SOFT_DIRTY } write_track_how_t;

typedef struct {
    write_track_how_t how;
    int uffd;    /* WRITES_ASYNC_WP: the descriptor the ranges are registered with; else -1 */
    int pagemap; /* /proc/self/pagemap */
    int refs;    /* WRITES_SOFT_DIRTY: /proc/self/clear_refs; else -1 */
} write_track_t;

/** Per page, what write_track_read reports. */
#define WRITE_TRACK_PRESENT 1u /* mapped (resident) */
#define WRITE_TRACK_WRITTEN 2u /* written since the last write_track_start */

/** Which way this kernel lets the process track its own writes, without
 *  starting anything (nothing left behind): 0 with *how, or LOCI_ENOTSUP /
 *  LOCI_EPERM with the reason of each way in why (no loci__fail message). */
int write_track_probe(write_track_how_t *how, char *why, size_t len);

/** Open the first way that works: 0, or LOCI_E* with the reasons in why,
 *  as write_track_probe. */
int write_track_open(write_track_t *t, char *why, size_t len);
void write_track_close(write_track_t *t);

/** "asynchronous write-protection (PAGEMAP_SCAN)", "soft-dirty bits". */
const char *write_track_how_name(write_track_how_t how);

/** Track [addr, addr+len) (page-aligned, private anonymous memory) from
 *  now on (WRITES_ASYNC_WP: registered with the descriptor). 0, or LOCI_E*
 *  with a message (LOCI_ENOTSUP: memory the kernel cannot write-protect). */
int write_track_add(write_track_t *t, void *addr, size_t len);

/** Stop tracking the range: every protection lifted. Best effort (a range
 *  its owner unmapped meanwhile has nothing left to lift). */
void write_track_remove(write_track_t *t, void *addr, size_t len);

/** A range added with write_track_add. */
typedef struct {
    void *addr;
    size_t len;
} write_track_range_t;

/** Start a window over the ranges: from now on a write to any of their
 *  pages marks it written. WRITES_SOFT_DIRTY starts it for the whole
 *  process (every page of it write-protected), whatever the ranges. 0, or
 *  LOCI_EIO with a message (the kernel refused: the tracking stopped working). */
int write_track_start(write_track_t *t, const write_track_range_t *r, size_t n);

/** End the window over the ranges: protections lifted, so that writes
 *  after it fault no more (WRITES_SOFT_DIRTY cannot lift them: each page
 *  faults once more, at its next write). */
void write_track_stop(write_track_t *t, const write_track_range_t *r, size_t n);

/** Per page of [addr, addr+len) (len / page size entries of flags):
 *  WRITE_TRACK_PRESENT, and WRITE_TRACK_WRITTEN for a page written since
 *  the window started. 0, or LOCI_EIO with a message. */
int write_track_read(write_track_t *t, const void *addr, size_t len, uint8_t *flags);

#endif
