/*
 * Copies under write-protection (see vm.h): memory another thread may be
 * writing, copied into a new mapping that then takes its place, no store
 * lost — the alternative to the kernel's page migration (mbind MF_MOVE) for
 * a move between NUMA nodes, and the way an arena's memory goes over to a
 * file tier while the program runs.
 *
 * Why not migration: it unmaps, flushes, copies and remaps page by page
 * inside the kernel; a copy in user space into fresh memory, then one mremap
 * that hands its page tables over to the old addresses, costs the fresh pages
 * and a memcpy; and it is the only way to another kind of memory (a file).
 * Private memory only this process maps: a child's copy-on-write pages stay
 * its own.
 *
 * Concurrency: before the copy the range is registered with a userfaultfd
 * and write-protected. From then on a thread storing into it waits in the
 * kernel; loads go on. Anonymous memory is registered for missing pages too
 * (a thread touching a page that was never there waits as well), and only its
 * pages holding data (resident or swapped, per /proc/self/pagemap) are copied:
 * the others read as zeros, and the destination places them on first touch.
 * Shared memory (a memfd, a tmpfs file) keeps pages the mapping does not show
 * (in the page cache unmapped, or swapped): every page of it is read, and
 * those holding only zeros are not written (the destination reads zeros
 * already). After the mremap the waiting threads are woken; they fault again,
 * on the new mapping, so no store is lost. On failure the source is
 * unprotected and left as it was.
 *
 * A mapping of a regular file cannot be write-protected: move_fill.c moves
 * that one the other way round.
 */
#include "os/shared_map.h"
#include "os/uffd.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
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

/* The fresh pages first (dst loosened: a full bound node sends them
 * elsewhere and vm_tighten answers ENOMEM, where a bound fault would wake the
 * OOM killer mid-copy), then the bytes. */
static int copy_run(char *dst, const char *src, size_t off, size_t len)
{
    int rc = vm_populate_pages(dst + off, len);
    if (rc == 0) {
        IGNORE_READS_BEGIN();
        memcpy(dst + off, src + off, len);
        IGNORE_READS_END();
    }
    return rc;
}

static bool all_zero(const char *p, size_t len)
{
    const uint64_t *w = (const uint64_t *)p;
    for (size_t i = 0; i < len / sizeof *w; i++)
        if (w[i])
            return false;
    return true;
}

/* Copy every run of pages of src that holds data to dst: anonymous memory
 * (pagemap >= 0) the pages resident or swapped, shared memory (pagemap < 0)
 * the pages not all zeros. */
static int copy_data(int pagemap, char *dst, const char *src, size_t size)
{
    enum { BATCH = 512 }; /* pagemap entries per read: 4 KiB */
    uint64_t e[BATCH];
    size_t page = vm_page_size(), n = size / page, run = SIZE_MAX; /* first page of the current run */
    for (size_t i = 0; i < n; i += BATCH) {
        size_t k = n - i < BATCH ? n - i : BATCH;
        off_t at = (off_t)(((uintptr_t)src / page + i) * sizeof *e);
        if (pagemap >= 0 && pread(pagemap, e, k * sizeof *e, at) != (ssize_t)(k * sizeof *e))
            return loci__fail(LOCI_EIO, "reading /proc/self/pagemap for %p: %s", (const void *)(src + i * page),
                              strerror(errno));
        for (size_t j = 0; j < k; j++) {
            bool data;
            if (pagemap >= 0) {
                data = (e[j] & (PM_PRESENT | PM_SWAPPED)) != 0;
            } else {
                IGNORE_READS_BEGIN();
                data = !all_zero(src + (i + j) * page, page);
                IGNORE_READS_END();
            }
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

/* Stores to write-protected pages fault to fd from now on, and, for
 * anonymous memory, accesses to missing pages (a missing page of shared
 * memory is one the copy itself reads). */
static const char *watch(int fd, void *addr, size_t size, bool anonymous)
{
    struct uffdio_register r = {
        .range = {(uintptr_t)addr, size},
        .mode = (anonymous ? UFFDIO_REGISTER_MODE_MISSING : 0) | UFFDIO_REGISTER_MODE_WP,
    };
    if (ioctl(fd, UFFDIO_REGISTER, &r) != 0)
        return errno == EBUSY ? "another userfaultfd watches the range (a heat source's sampling)"
                              : "the kernel refuses to watch this memory with a userfaultfd";
    if (!(r.ioctls & (1ull << _UFFDIO_WRITEPROTECT)))
        return "the kernel cannot write-protect this memory with a userfaultfd";
    return NULL;
}

/* A write-protecting userfaultfd watching [addr, addr+size), and for
 * anonymous memory /proc/self/pagemap open: NULL, or why not (nothing left
 * open). */
static const char *open_watch(void *addr, size_t size, bool anonymous, int *fd, int *pagemap)
{
    const char *why = NULL;
    *pagemap = -1;
    if ((*fd = uffd_open_wp()) < 0)
        why = errno == EPERM ? "this process may not use userfaultfd (vm.unprivileged_userfaultfd, "
                               "CAP_SYS_PTRACE or access to /dev/userfaultfd allow it)"
                             : "the kernel has no userfaultfd with write-protection (Linux 5.7 or later)";
    else if (anonymous && (*pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
        why = "/proc/self/pagemap cannot be read";
    else
        why = watch(*fd, addr, size, anonymous);
    if (why) {
        if (*pagemap >= 0)
            close(*pagemap);
        if (*fd >= 0)
            close(*fd); /* drops the registration, if any */
    }
    return why;
}

/* The range protected, copied into dst, dst mremapped over it; on failure
 * the range writable again. Its waiting writers woken either way. */
static int copy_protected(int fd, int pagemap, void *addr, char *dst, size_t size)
{
    vm_loosened_t loose;
    int rc = uffd_protect(fd, addr, size);
    if (rc == 0) {
        vm_loosen(dst, size, &loose);
        rc = copy_data(pagemap, dst, addr, size);
        int tight = vm_tighten(dst, size, &loose, rc == 0);
        rc = rc != 0 ? rc : tight;
    }
    if (rc == 0)
        rc = vm_remap_over(addr, dst, size);
    if (rc != 0) { /* the source as it was: writable again (this wakes its writers) */
        struct uffdio_writeprotect w = {.range = {(uintptr_t)addr, size}, .mode = 0};
        (void)ioctl(fd, UFFDIO_WRITEPROTECT, &w);
    }
    /* the old range is gone (or unprotected): whoever waits faults again */
    uffd_wake(fd, addr, size);
    if (pagemap >= 0)
        close(pagemap);
    close(fd);
    return rc;
}

const char *vm_copies_refused(void)
{
    move_how_t how;
    if (chosen(&how) != 0)
        return "LOCI_ARENA_MOVE is none of auto, copy, migrate";
    return how == MOVE_MIGRATE ? "LOCI_ARENA_MOVE=migrate: no copies under userfaultfd" : NULL;
}

/* Why memory of that kind cannot be watched here (a page of it tried), or NULL. */
static const char *probe_watch(bool anonymous)
{
    size_t page = vm_page_size();
    int mem = anonymous ? -1 : shared_map_memfd("loci-copy-probe");
    if (!anonymous && (mem < 0 || ftruncate(mem, (off_t)page) != 0)) {
        if (mem >= 0)
            close(mem);
        return "no memory file to probe userfaultfd on";
    }
    void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, anonymous ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED, mem, 0);
    if (mem >= 0)
        close(mem);
    if (p == MAP_FAILED)
        return "no memory to probe userfaultfd on";
    int fd, pagemap;
    const char *why = open_watch(p, page, anonymous, &fd, &pagemap);
    if (!why) {
        close(fd);
        if (pagemap >= 0)
            close(pagemap);
    }
    munmap(p, page);
    return why;
}

static const char *refusal[2]; /* [anonymous]: what the probe found, once */
static void probe_shared(void) { refusal[0] = probe_watch(false); }
static void probe_anonymous(void) { refusal[1] = probe_watch(true); }

const char *vm_copy_over_refusal(bool anonymous)
{
    static pthread_once_t once[2] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};
    const char *refused = vm_copies_refused();
    if (refused)
        return refused;
    pthread_once(&once[anonymous], anonymous ? probe_anonymous : probe_shared);
    return refusal[anonymous];
}

int vm_copy_over(void *addr, void *dst, size_t size, bool anonymous)
{
    int fd, pagemap;
    char sz[32];
    units_format_size(size, sz, sizeof sz);
    const char *why = vm_copies_refused();
    if (why) {
        loci__fail(LOCI_ENOTSUP, "%s at %p is not copied under write-protection: %s", sz, addr, why);
        return 1;
    }
    why = open_watch(addr, size, anonymous, &fd, &pagemap);
    if (why) {
        loci__fail(LOCI_ENOTSUP, "%s at %p cannot be copied while threads write it: %s", sz, addr, why);
        return 1;
    }
    return copy_protected(fd, pagemap, addr, dst, size);
}

int vm_move_copy(void *addr, size_t size, const place_t *to)
{
    move_how_t how;
    int rc = chosen(&how);
    if (rc != 0 || how == MOVE_MIGRATE)
        return rc != 0 ? rc : 1;
    int fd = -1, pagemap = -1;
    const char *why = to->pinned ? "pinned memory is migrated in place (a copy would have to be locked again)"
                                 : open_watch(addr, size, true, &fd, &pagemap);
    if (why) {
        if (how == MOVE_AUTO)
            return 1;
        char sz[32];
        return loci__fail(LOCI_ENOTSUP, "LOCI_ARENA_MOVE=copy: cannot move %s at %p by copying: %s",
                          units_format_size(size, sz, sizeof sz), addr, why);
    }
    char *dst = map_congruent(addr, size);
    if (!dst) {
        char sz[32];
        rc = loci__fail(LOCI_ENOMEM, "mmap of %s to copy an extent into: %s", units_format_size(size, sz, sizeof sz),
                        strerror(errno));
    } else {
        rc = vm_apply_policy(dst, size, to, 0);
    }
    if (rc != 0) {
        uffd_wake(fd, addr, size); /* (nothing protected yet: nobody waits but on a missing page) */
        close(pagemap);
        close(fd);
    } else {
        rc = copy_protected(fd, pagemap, addr, dst, size);
    }
    if (rc != 0 && dst)
        munmap(dst, size);
    return rc;
}
