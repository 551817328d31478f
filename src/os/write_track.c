/* Which pages the process wrote, without privilege (see write_track.h). */
#include "os/write_track.h"
#include "os/uffd.h"
#include "os/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* PAGEMAP_SCAN (Linux 6.7), for headers older than the kernel. */
#ifndef PAGEMAP_SCAN
struct page_region {
    __u64 start, end, categories;
};
struct pm_scan_arg {
    __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
    __u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
#endif

#define PM_PRESENT (1ull << 63)
#define PM_SOFT_DIRTY (1ull << 55)
#define SCAN_RUNS 256 /* page runs per PAGEMAP_SCAN call */

const char *write_track_how_name(write_track_how_t how)
{
    return how == WRITES_ASYNC_WP ? "asynchronous write-protection, PAGEMAP_SCAN" : "soft-dirty bits";
}

/* Does this kernel keep soft-dirty bits? A page just written in a fresh
 * mapping reads soft-dirty where it does; without CONFIG_MEM_SOFT_DIRTY the
 * bit is always clear. Nothing of the process's own bits is cleared. */
static bool keeps_soft_dirty(int pagemap)
{
    size_t page = vm_page_size();
    char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return false;
    *(volatile char *)p = 1;
    uint64_t e = 0;
    bool dirty = pread(pagemap, &e, sizeof e, (off_t)((uintptr_t)p / page * sizeof e)) == (ssize_t)sizeof e &&
                 (e & (PM_PRESENT | PM_SOFT_DIRTY)) == (PM_PRESENT | PM_SOFT_DIRTY);
    munmap(p, page);
    return dirty;
}

/* Open the first way that works into t (keep: left open) or just find out
 * which (everything closed again). 0, or LOCI_E* with every reason in why. */
static int choose(write_track_t *t, bool keep, char *why, size_t len)
{
    *t = (write_track_t){.uffd = -1, .pagemap = -1, .refs = -1};
    t->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (t->pagemap < 0) {
        int e = errno;
        bool denied = e == EACCES || e == EPERM;
        snprintf(why, len, "/proc/self/pagemap cannot be read (%s: %s)", strerror(e),
                 denied && prctl(PR_GET_DUMPABLE) == 0
                     ? "this process is not dumpable — it changed its user id without an exec, or set "
                       "PR_SET_DUMPABLE to 0 — so its /proc/self files are root's"
                     : "a kernel without CONFIG_PROC_PAGE_MONITOR, or no /proc");
        return denied ? LOCI_EPERM : LOCI_ENOTSUP;
    }
    int rc = 0;
    t->uffd = uffd_open_async_wp();
    if (t->uffd >= 0) {
        t->how = WRITES_ASYNC_WP;
    } else {
        int e = errno;
        t->refs = keeps_soft_dirty(t->pagemap) ? open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC) : -1;
        if (t->refs >= 0) {
            t->how = WRITES_SOFT_DIRTY;
        } else {
            snprintf(why, len, "no asynchronous userfaultfd write-protection (%s) and no soft-dirty bits (a kernel "
                               "without CONFIG_MEM_SOFT_DIRTY, or /proc/self/clear_refs not writable)",
                     e == ENOTSUP ? "UFFD_FEATURE_WP_ASYNC: Linux 6.7 or later"
                     : e == EPERM ? "userfaultfd(2) refused: a seccomp filter or a container's policy?"
                                  : strerror(e));
            rc = LOCI_ENOTSUP;
        }
    }
    if (rc != 0 || !keep)
        write_track_close(t);
    return rc;
}

int write_track_probe(write_track_how_t *how, char *why, size_t len)
{
    write_track_t t;
    int rc = choose(&t, false, why, len);
    *how = t.how;
    return rc;
}

int write_track_open(write_track_t *t, char *why, size_t len) { return choose(t, true, why, len); }

void write_track_close(write_track_t *t)
{
    int *fds[] = {&t->uffd, &t->pagemap, &t->refs};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]); /* (the descriptor's registrations go with it) */
        *fds[i] = -1;
    }
}

int write_track_add(write_track_t *t, void *addr, size_t len)
{
    if (t->how != WRITES_ASYNC_WP || uffd_register_wp(t->uffd, addr, len) == 0)
        return 0;
    int e = errno;
    return loci__fail(e == EINVAL ? LOCI_ENOTSUP : e == ENOMEM ? LOCI_ENOMEM : LOCI_EIO,
                      "write tracking: [%p, +%zu) cannot be registered for write-protection: %s%s", addr, len,
                      strerror(e), e == EINVAL ? " (not private anonymous memory, or not all mapped)" : "");
}

void write_track_remove(write_track_t *t, void *addr, size_t len)
{
    if (t->how == WRITES_ASYNC_WP)
        (void)uffd_unregister(t->uffd, addr, len); /* (lifts every protection of the range) */
}

int write_track_start(write_track_t *t, const write_track_range_t *r, size_t n)
{
    if (t->how == WRITES_SOFT_DIRTY) {
        if (write(t->refs, "4", 1) != 1)
            return loci__fail(LOCI_EIO, "write tracking: writing 4 to /proc/self/clear_refs: %s", strerror(errno));
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (uffd_set_protected(t->uffd, r[i].addr, r[i].len, true) != 0 && errno != ENOENT)
            return loci__fail(LOCI_EIO, "write tracking: UFFDIO_WRITEPROTECT of [%p, +%zu): %s", r[i].addr,
                              r[i].len, strerror(errno));
    return 0;
}

void write_track_stop(write_track_t *t, const write_track_range_t *r, size_t n)
{
    for (size_t i = 0; t->how == WRITES_ASYNC_WP && i < n; i++)
        (void)uffd_set_protected(t->uffd, r[i].addr, r[i].len, false); /* (fails only where nothing is left) */
}

/* WRITES_ASYNC_WP: the runs of present pages, each written or not. */
static int scan(write_track_t *t, const void *addr, size_t len, uint8_t *flags)
{
    size_t page = vm_page_size();
    uintptr_t start = (uintptr_t)addr, end = start + len;
    struct page_region runs[SCAN_RUNS];
    while (start < end) {
        struct pm_scan_arg a = {.size = sizeof a, .start = start, .end = end, .vec = (uintptr_t)runs,
                                .vec_len = SCAN_RUNS, .category_anyof_mask = PAGE_IS_PRESENT,
                                .return_mask = PAGE_IS_PRESENT | PAGE_IS_WRITTEN};
        int got = ioctl(t->pagemap, PAGEMAP_SCAN, &a);
        if (got < 0)
            return loci__fail(LOCI_EIO, "write tracking: PAGEMAP_SCAN of [%p, +%zu): %s", (void *)start,
                              (size_t)(end - start), strerror(errno));
        for (int r = 0; r < got; r++) {
            uint8_t f = WRITE_TRACK_PRESENT | (runs[r].categories & PAGE_IS_WRITTEN ? WRITE_TRACK_WRITTEN : 0);
            memset(flags + (runs[r].start - (uintptr_t)addr) / page, f, (runs[r].end - runs[r].start) / page);
        }
        if (a.walk_end <= start)
            break; /* (no progress: the kernel walked nothing) */
        start = a.walk_end;
    }
    return 0;
}

/* WRITES_SOFT_DIRTY: pagemap's present and soft-dirty bits, a batch at a time. */
static int soft_dirty(write_track_t *t, const void *addr, size_t len, uint8_t *flags)
{
    enum { BATCH = 512 };
    uint64_t e[BATCH];
    size_t page = vm_page_size(), n = len / page;
    for (size_t i = 0; i < n; i += BATCH) {
        size_t k = n - i < BATCH ? n - i : BATCH;
        off_t at = (off_t)(((uintptr_t)addr / page + i) * sizeof *e);
        if (pread(t->pagemap, e, k * sizeof *e, at) != (ssize_t)(k * sizeof *e))
            return loci__fail(LOCI_EIO, "write tracking: reading /proc/self/pagemap at %p: %s",
                              (const void *)((uintptr_t)addr + i * page), strerror(errno));
        for (size_t j = 0; j < k; j++)
            flags[i + j] = e[j] & PM_PRESENT ? WRITE_TRACK_PRESENT | (e[j] & PM_SOFT_DIRTY ? WRITE_TRACK_WRITTEN : 0)
                                             : 0;
    }
    return 0;
}

int write_track_read(write_track_t *t, const void *addr, size_t len, uint8_t *flags)
{
    memset(flags, 0, len / vm_page_size());
    return t->how == WRITES_ASYNC_WP ? scan(t, addr, len, flags) : soft_dirty(t, addr, len, flags);
}
