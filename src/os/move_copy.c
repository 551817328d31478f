/*
 * Moving private anonymous memory to another NUMA node by copying it (see
 * vm.h), the alternative to the kernel's page migration (mbind MF_MOVE).
 *
 * Why: migration unmaps, flushes, copies and remaps page by page inside the
 * kernel; a copy in user space into fresh memory bound to the destination,
 * then one mremap that hands its page tables over to the old addresses, costs
 * the fresh pages and a memcpy. Only this process must map the memory (a
 * private mapping: a child's copy-on-write pages stay its own).
 *
 * Concurrency: before the copy the range is registered with a userfaultfd
 * (missing pages and write-protect faults) and write-protected. From then on
 * a thread storing into it, or touching a page that was never there, waits
 * in the kernel; loads of resident pages go on. Only pages holding data
 * (resident or swapped, per /proc/self/pagemap) are copied: the others read
 * as zeros, and the destination's policy places them on first touch. After
 * the mremap the waiting threads are woken; they fault again, on the new
 * mapping, so no store is lost. On failure the source is unprotected and left
 * as it was.
 */
#include "os/uffd.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define LOCI_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LOCI_TSAN 1
#endif
#endif
#ifdef LOCI_TSAN
/* The copy reads what other threads stored before the write-protection; the
 * kernel orders those stores (the protecting ioctl flushes the TLBs), which
 * ThreadSanitizer cannot see. */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define IGNORE_READS_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define IGNORE_READS_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define IGNORE_READS_BEGIN() ((void)0)
#define IGNORE_READS_END() ((void)0)
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)

typedef enum { MOVE_AUTO, MOVE_COPY, MOVE_MIGRATE } move_how_t;

/* LOCI_ARENA_MOVE: auto (copy where it can, else migrate), copy (copy or
 * fail), migrate (the kernel's migration always). Read at each move. */
static int chosen(move_how_t *how)
{
    const char *v = getenv("LOCI_ARENA_MOVE");
    if (!v || !*v || !strcmp(v, "auto"))
        *how = MOVE_AUTO;
    else if (!strcmp(v, "copy"))
        *how = MOVE_COPY;
    else if (!strcmp(v, "migrate"))
        *how = MOVE_MIGRATE;
    else
        return loci__fail(LOCI_EINVAL, "LOCI_ARENA_MOVE=%s: expected auto, copy or migrate", v);
    return 0;
}

/* Fresh anonymous memory for a copy of [addr, addr+size), at the same offset
 * from a 2 MiB boundary as addr: huge pages made here stay whole when the
 * mapping is moved there. NULL with errno set. */
static char *map_congruent(const void *addr, size_t size)
{
    size_t span = size + HUGE_PAGE;
    if (span < size) {
        errno = ENOMEM;
        return NULL;
    }
    char *res = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (res == MAP_FAILED)
        return NULL;
    uintptr_t start = (uintptr_t)res, want = (start & ~(HUGE_PAGE - 1)) + ((uintptr_t)addr & (HUGE_PAGE - 1));
    if (want < start)
        want += HUGE_PAGE;
    if (want > start)
        munmap(res, want - start);
    if (start + span > want + size)
        munmap((void *)(want + size), start + span - (want + size));
    return (char *)want;
}

/* The fresh pages first (a full bound node answers ENOMEM here, not the OOM
 * killer mid-copy), then the bytes. */
static int copy_run(char *dst, const char *src, size_t off, size_t len)
{
    int rc = vm_populate(dst + off, len);
    if (rc == 0) {
        IGNORE_READS_BEGIN();
        memcpy(dst + off, src + off, len);
        IGNORE_READS_END();
    }
    return rc;
}

/* Copy every run of pages of src that holds data to dst. */
static int copy_resident(int pagemap, char *dst, const char *src, size_t size)
{
    enum { BATCH = 512 }; /* pagemap entries per read: 4 KiB */
    uint64_t e[BATCH];
    size_t page = vm_page_size(), n = size / page, run = SIZE_MAX; /* first page of the current run */
    for (size_t i = 0; i < n; i += BATCH) {
        size_t k = n - i < BATCH ? n - i : BATCH;
        off_t at = (off_t)(((uintptr_t)src / page + i) * sizeof *e);
        if (pread(pagemap, e, k * sizeof *e, at) != (ssize_t)(k * sizeof *e))
            return loci__fail(LOCI_EIO, "reading /proc/self/pagemap for %p: %s", (const void *)(src + i * page),
                              strerror(errno));
        for (size_t j = 0; j < k; j++) {
            bool data = (e[j] & (PM_PRESENT | PM_SWAPPED)) != 0;
            if (data && run == SIZE_MAX)
                run = i + j;
            else if (!data && run != SIZE_MAX) {
                int rc = copy_run(dst, src, run * page, (i + j - run) * page);
                if (rc != 0)
                    return rc;
                run = SIZE_MAX;
            }
        }
    }
    return run == SIZE_MAX ? 0 : copy_run(dst, src, run * page, (n - run) * page);
}

/* Missing pages and stores to write-protected ones fault to fd from now on. */
static const char *watch(int fd, void *addr, size_t size)
{
    struct uffdio_register r = {
        .range = {(uintptr_t)addr, size},
        .mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP,
    };
    if (ioctl(fd, UFFDIO_REGISTER, &r) != 0)
        return "the kernel refuses to watch the range with a userfaultfd";
    if (!(r.ioctls & (1ull << _UFFDIO_WRITEPROTECT)))
        return "the kernel cannot write-protect this memory with a userfaultfd";
    return NULL;
}

int vm_move_copy(void *addr, size_t size, const place_t *to)
{
    move_how_t how;
    int rc = chosen(&how);
    if (rc != 0 || how == MOVE_MIGRATE)
        return rc != 0 ? rc : 1;
    const char *why = NULL;
    int fd = -1, pagemap = -1;
    if (to->pinned)
        why = "pinned memory is migrated in place (a copy would have to be locked again)";
    else if ((fd = uffd_open_wp()) < 0)
        why = errno == EPERM ? "this process may not use userfaultfd (vm.unprivileged_userfaultfd, "
                               "CAP_SYS_PTRACE or access to /dev/userfaultfd allow it)"
                             : "the kernel has no userfaultfd with write-protection (Linux 5.7 or later)";
    else if ((pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
        why = "/proc/self/pagemap cannot be read";
    else
        why = watch(fd, addr, size);
    if (why) {
        if (pagemap >= 0)
            close(pagemap);
        if (fd >= 0)
            close(fd); /* drops the registration, if any */
        if (how == MOVE_AUTO)
            return 1;
        char sz[32];
        return loci__fail(LOCI_ENOTSUP, "LOCI_ARENA_MOVE=copy: cannot move %s at %p by copying: %s",
                          units_format_size(size, sz, sizeof sz), addr, why);
    }
    char *dst = NULL;
    rc = uffd_protect(fd, addr, size);
    if (rc == 0 && !(dst = map_congruent(addr, size))) {
        char sz[32];
        rc = loci__fail(LOCI_ENOMEM, "mmap of %s to copy an extent into: %s", units_format_size(size, sz, sizeof sz),
                        strerror(errno));
    }
    if (rc == 0)
        rc = vm_apply_policy(dst, size, to, 0);
    if (rc == 0)
        rc = copy_resident(pagemap, dst, addr, size);
    if (rc == 0)
        rc = vm_remap_over(addr, dst, size);
    if (rc != 0 && dst)
        munmap(dst, size);
    if (rc != 0) { /* the source as it was: writable again (this wakes its writers) */
        struct uffdio_writeprotect w = {.range = {(uintptr_t)addr, size}, .mode = 0};
        (void)ioctl(fd, UFFDIO_WRITEPROTECT, &w);
    }
    /* the old range is gone (or unprotected): whoever waits faults again */
    uffd_wake(fd, addr, size);
    close(pagemap);
    close(fd);
    return rc;
}
