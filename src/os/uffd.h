/*
 * userfaultfd: the kernel interface under the paged provider. One descriptor
 * serves every paged region of the process. These calls wrap its ioctls and,
 * when the kernel refuses it, say what to change. The paged cache and copy-moves use it;
 * the access-measurement layer's faults source (src/heat) opens a descriptor of its own
 * for minor faults on shared memory, and its dirty source (through write_track.c) one
 * for asynchronous write-protection.
 */
#ifndef LOCI_OS_UFFD_H
#define LOCI_OS_UFFD_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/** What a descriptor from uffd_open can do beyond anonymous memory. */
typedef struct {
    bool user_only; /* it handles user-mode faults only (see uffd_open) */
    bool move;      /* it moves pages (UFFDIO_MOVE, Linux 6.8), unless LOCI_UFFD_MOVE=0 */
    bool shared;    /* it serves shared memory (memfds): missing and minor faults, write-protection, and
                     * UFFDIO_CONTINUE that maps write-protected (Linux 6.4; 6.1 lacks the last), unless
                     * LOCI_UFFD_SHM=0 */
} uffd_caps_t;

/** Open a userfaultfd with write-protect support on anonymous memory
 *  (non-blocking, close-on-exec): through userfaultfd(2), else
 *  /dev/userfaultfd. Such a descriptor also handles the faults the kernel
 *  takes on the process's behalf (read(2) into paged memory...). When neither
 *  is allowed and `user_only_ok`, falls back to a descriptor that handles
 *  user-mode faults only (what vm.unprivileged_userfaultfd=0 leaves to
 *  unprivileged users) and sets caps->user_only. Returns the fd, or LOCI_EPERM /
 *  LOCI_ENOTSUP with a message naming the sysctl, the capability and the
 *  device node. *caps: what else it can do (probed once per descriptor). */
int uffd_open(bool user_only_ok, uffd_caps_t *caps);

/** LOCI_UFFD_SHM in the environment: 1 (paged caches in shared memory
 *  wherever the descriptor can serve it, even in 4 KiB pages: for tests), 0
 *  (never), else -1 (where shared memory comes in huge pages). */
int uffd_shared_wanted(void);

/** A full descriptor (it also handles faults the kernel takes for the process)
 *  with write-protect support on anonymous memory, as uffd_open opens it, or
 *  -1 with errno set and no message: for callers that have another way. */
int uffd_open_wp(void);

/** As uffd_open_wp, with UFFD_FEATURE_EVENT_REMAP: a range registered with
 *  it stays registered when mremap moves it, and the kernel makes that mremap
 *  wait until the descriptor's reader has read the event (uffd_read: `remap`).
 *  -1 with errno set (ENOTSUP: no such feature) and no message. */
int uffd_open_remap(void);

/** Hand [addr, addr+len) to the descriptor: missing pages fault to it, and
 *  with `wp` writes to write-protected pages too. */
int uffd_register(int fd, void *addr, size_t len, bool wp);

/** Install a copy of src at dst (both page-aligned, len a page multiple),
 *  write-protected when `wp`, waking nobody. Pages already there are left
 *  alone. 0 or LOCI_E*. */
int uffd_copy(int fd, void *dst, const void *src, size_t len, bool wp);

/** Move the pages of src to dst (both page-aligned, len a page multiple,
 *  src private anonymous memory of this process with the same protection as
 *  dst) without copying, waking nobody; src is left unmapped. The moved
 *  pages are writable: the kernel cannot move a page in write-protected.
 *  Pages already at dst are left alone. Returns the bytes done from the
 *  start: less than len when a page cannot be moved (the caller copies the
 *  rest). Only on a descriptor uffd_open said can move. */
size_t uffd_move(int fd, void *dst, void *src, size_t len);

/** Write-protect the range (a writer there faults from now on). */
int uffd_protect(int fd, void *addr, size_t len);

/** Unprotect the range, waking the threads waiting on it unless `dontwake`. */
int uffd_unprotect(int fd, void *addr, size_t len, bool dontwake);

/** Wake the threads waiting on faults in the range. */
void uffd_wake(int fd, void *addr, size_t len);

/** One page fault read from fd (non-blocking). */
typedef struct {
    uintptr_t addr;
    bool write;    /* the access was a write */
    bool wp;       /* a write to a write-protected page (else: the page is missing) */
    bool minor;    /* a minor fault: the page is in the page cache, unmapped here */
    bool remap;    /* no fault: the registered range was mremapped (uffd_open_remap); addr: where to */
} uffd_fault_t;

/** 1 with *f filled, 0 when no fault is pending, LOCI_EIO when fd is broken. */
int uffd_read(int fd, uffd_fault_t *f);

/* --- minor faults on shared memory (the heat layer's faults source) ------- */

/** A userfaultfd for minor faults on shared memory (UFFD_FEATURE_MINOR_SHMEM,
 *  Linux 5.13), non-blocking and close-on-exec, that also handles the faults
 *  the kernel takes for the process: a descriptor for user-mode faults only
 *  would not do, as a system call reading into an unmapped page of a
 *  registered range (read(2) into it) then fails with EFAULT. `who` starts
 *  the messages ("heat: the faults source"). The fd, or LOCI_EPERM /
 *  LOCI_ENOTSUP with a message saying what to change. */
int uffd_open_minor(const char *who);

/** Hand [addr, addr+len) of shared memory (shmem) to fd in minor
 *  mode: an access to a page that is in the page cache but not mapped here
 *  faults to it. 0, or -1 with errno set (EINVAL: not shared memory). */
int uffd_register_minor(int fd, void *addr, size_t len);

/** Give [addr, addr+len) back to the kernel's own fault handling, waking the
 *  threads waiting on faults there (they retry and are served by the
 *  kernel). 0, or -1 with errno set. */
int uffd_unregister(int fd, void *addr, size_t len);

/** Map the page-cache pages of [addr, addr+len) back (UFFDIO_CONTINUE),
 *  waking the threads waiting there; pages already mapped are left alone.
 *  0, or -1 with errno set (ENOENT: the range is no longer registered or
 *  mapped; the caller wakes it with uffd_wake). */
int uffd_continue(int fd, void *addr, size_t len);

/* --- shared memory behind paged regions (uffd_caps_t.shared) ------------ */

/** Hand [addr, addr+len) of shared memory (a memfd mapped MAP_SHARED) to fd:
 *  missing pages (holes in the file) and pages the file holds but that are
 *  not mapped here fault to it, and with `wp` writes to write-protected
 *  pages too. 0 or LOCI_E* with a message. */
int uffd_register_shared(int fd, void *addr, size_t len, bool wp);

/** Map the file's pages of [addr, addr+len) (UFFDIO_CONTINUE),
 *  write-protected when `wp`, waking nobody; pages already mapped are left
 *  alone. 0 or LOCI_E* with a message. */
int uffd_map_cached(int fd, void *addr, size_t len, bool wp);

/* --- asynchronous write-protection (os/write_track.c) ---------------------- */

/** A userfaultfd for user-mode faults only (allowed to every process, even
 *  with vm.unprivileged_userfaultfd=0) with UFFD_FEATURE_WP_ASYNC (Linux
 *  6.7): a write to a page it protects unprotects the page in the kernel,
 *  which sends no message and waits for no handler — a write the kernel
 *  makes for the process included (the user-mode-only limit concerns faults
 *  sent to a handler, and none is). -1 with errno set (ENOTSUP: the kernel
 *  lacks the feature; EPERM: a seccomp filter, say). */
int uffd_open_async_wp(void);

/** Hand [addr, addr+len) to fd in write-protect mode only (no missing-page
 *  faults; nothing is protected until uffd_set_protected). 0, or -1 with
 *  errno set (EINVAL: memory that cannot be write-protected). */
int uffd_register_wp(int fd, void *addr, size_t len);

/** Write-protect the range's present pages, or lift the protection. 0, or
 *  -1 with errno set. */
int uffd_set_protected(int fd, void *addr, size_t len, bool protect);

#endif
