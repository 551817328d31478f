/* userfaultfd ioctls for the paged provider and the heat layer's faults source (see uffd.h). */
#include "os/uffd.h"
#include "os/shared_map.h"
#include "os/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif

/* UFFDIO_MOVE (Linux 6.8), for headers older than the kernel. */
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16)
#endif
#ifndef UFFDIO_MOVE
struct uffdio_move {
    __u64 dst, src, len;
#define UFFDIO_MOVE_MODE_DONTWAKE ((__u64)1 << 0)
    __u64 mode;
    __s64 move;
};
#define UFFDIO_MOVE _IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif

/* UFFD_FEATURE_WP_ASYNC (Linux 6.7), for headers older than the kernel. */
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

/* UFFDIO_CONTINUE_MODE_WP (Linux 6.4): no feature bit says it, a try does. */
#ifndef UFFDIO_CONTINUE_MODE_WP
#define UFFDIO_CONTINUE_MODE_WP ((__u64)1 << 1)
#endif

#define UFFD_FLAGS (O_CLOEXEC | O_NONBLOCK)
#define SHARED_FEATURES (UFFD_FEATURE_MINOR_SHMEM | UFFD_FEATURE_WP_HUGETLBFS_SHMEM)

static int open_full(void)
{
    int fd = (int)syscall(SYS_userfaultfd, UFFD_FLAGS);
    if (fd >= 0 || errno != EPERM)
        return fd;
    /* Kernels >= 6.1: access to the device node is the privilege. */
    int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
    if (dev < 0) {
        errno = EPERM;
        return -1;
    }
    fd = ioctl(dev, USERFAULTFD_IOC_NEW, UFFD_FLAGS);
    close(dev);
    return fd;
}

/* The features this kernel's userfaultfd has: a descriptor takes one
 * handshake, so a probe of the same kind (user-mode only or not) is asked,
 * with none requested, and answers with all it has (0: none could be had). */
static uint64_t kernel_features(bool user_only)
{
    int fd = user_only ? (int)syscall(SYS_userfaultfd, UFFD_FLAGS | UFFD_USER_MODE_ONLY) : open_full();
    struct uffdio_api api = {.api = UFFD_API};
    uint64_t have = fd >= 0 && ioctl(fd, UFFDIO_API, &api) == 0 ? api.features : 0;
    if (fd >= 0)
        close(fd);
    return have;
}

/* Ask fd for write-protect faults on anonymous memory and for those of
 * `want` the kernel has (*got: what it granted); false (errno set) when it
 * lacks write-protection. */
static bool handshake(int fd, bool user_only, uint64_t want, uint64_t *got)
{
    uint64_t have = kernel_features(user_only);
    struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | (want & have)};
    *got = 0;
    if (ioctl(fd, UFFDIO_API, &api) != 0)
        return false;
    if (!(api.features & UFFD_FEATURE_PAGEFAULT_FLAG_WP)) {
        errno = ENOTSUP;
        return false;
    }
    *got = want & have & api.features;
    return true;
}

/* Does fd map shared memory write-protected (UFFDIO_CONTINUE_MODE_WP)? Tried
 * on one page of a memory file, registered and given back. */
static bool continues_protected(int fd)
{
    size_t page = vm_page_size();
    int mem = shared_map_memfd("loci-uffd-probe");
    bool ok = false;
    if (mem >= 0 && ftruncate(mem, (off_t)page) == 0) {
        char *at = shared_map_file(mem, page, true), *alias = shared_map_file(mem, page, true);
        if (at != MAP_FAILED && alias != MAP_FAILED) {
            alias[0] = 1; /* the page the continue maps */
            struct uffdio_register r = {.range = {(uintptr_t)at, page},
                                        .mode = UFFDIO_REGISTER_MODE_MINOR | UFFDIO_REGISTER_MODE_WP};
            struct uffdio_continue c = {.range = {(uintptr_t)at, page}, .mode = UFFDIO_CONTINUE_MODE_WP};
            ok = ioctl(fd, UFFDIO_REGISTER, &r) == 0 && ioctl(fd, UFFDIO_CONTINUE, &c) == 0;
            (void)uffd_unregister(fd, at, page);
        }
        if (at != MAP_FAILED)
            vm_unmap(at, page);
        if (alias != MAP_FAILED)
            vm_unmap(alias, page);
    }
    if (mem >= 0)
        close(mem);
    return ok;
}

/* An environment switch: 0 or 1 as set, else -1 (anything else set is
 * ignored, and said when `say`: once, where the descriptor is opened). */
static int env_switch(const char *name, bool say)
{
    const char *v = getenv(name);
    if (say && v && *v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
        loci__log(LOCI_LOG_WARN, "%s=%s: not 0 or 1; ignored", name, v);
    return v && strcmp(v, "0") == 0 ? 0 : v && strcmp(v, "1") == 0 ? 1 : -1;
}

int uffd_shared_wanted(void) { return env_switch("LOCI_UFFD_SHM", false); }

int uffd_open_wp(void)
{
    int fd = open_full();
    uint64_t got;
    if (fd >= 0 && !handshake(fd, false, 0, &got)) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int uffd_open_remap(void)
{
    int fd = open_full();
    uint64_t got;
    if (fd < 0 || (handshake(fd, false, UFFD_FEATURE_EVENT_REMAP, &got) && (got & UFFD_FEATURE_EVENT_REMAP)))
        return fd;
    close(fd);
    errno = ENOTSUP; /* no write-protection, or no remap events */
    return -1;
}

static const char *const how_to_allow =
    "allow it with `sysctl vm.unprivileged_userfaultfd=1`, the CAP_SYS_PTRACE capability, or "
    "read-write access to /dev/userfaultfd";

int uffd_open(bool user_only_ok, uffd_caps_t *caps)
{
    *caps = (uffd_caps_t){0};
    int fd = open_full();
    if (fd < 0 && errno == EPERM && user_only_ok) {
        fd = (int)syscall(SYS_userfaultfd, UFFD_FLAGS | UFFD_USER_MODE_ONLY);
        caps->user_only = fd >= 0;
    }
    if (fd < 0) {
        if (errno == EPERM)
            return loci__fail(LOCI_EPERM, "mode=paged needs userfaultfd, which this process may not use "
                                          "(vm.unprivileged_userfaultfd is 0 and it lacks CAP_SYS_PTRACE); %s, "
                                          "or use mode=mmap", how_to_allow);
        return loci__fail(LOCI_ENOTSUP, "mode=paged: userfaultfd(2) failed: %s (a kernel without "
                                        "CONFIG_USERFAULTFD?); use mode=mmap", strerror(errno));
    }
    /* LOCI_UFFD_MOVE=0: copies only, LOCI_UFFD_SHM=0: anonymous memory only, so
     * that those paths can be run on any kernel. */
    uint64_t want = (env_switch("LOCI_UFFD_MOVE", true) == 0 ? 0 : UFFD_FEATURE_MOVE) |
                    (env_switch("LOCI_UFFD_SHM", true) == 0 ? 0 : SHARED_FEATURES), got;
    if (!handshake(fd, caps->user_only, want, &got)) {
        int e = errno;
        close(fd);
        return loci__fail(LOCI_ENOTSUP, "mode=paged: this kernel's userfaultfd cannot write-protect "
                                        "anonymous memory (%s; Linux 5.7 or later has it); use mode=mmap",
                                        strerror(e));
    }
    caps->move = got & UFFD_FEATURE_MOVE;
    caps->shared = (got & SHARED_FEATURES) == SHARED_FEATURES && continues_protected(fd);
    if (caps->user_only)
        loci__log(LOCI_LOG_WARN, "mode=paged: userfaultfd handles user-mode faults only here, so system "
                                 "calls that read or write paged memory directly (read(2), write(2)...) fail "
                                 "with EFAULT; %s", how_to_allow);
    return fd;
}

/* Register [addr, addr+len) in `mode` (+ write-protect when wp) and check
 * that the kernel offers `fill` (and UFFDIO_WRITEPROTECT when wp) there;
 * `memory` and `how` name them in the messages. 0 or LOCI_E*. */
static int register_range(int fd, void *addr, size_t len, uint64_t mode, bool wp, unsigned fill, const char *how,
                          const char *memory)
{
    struct uffdio_register r = {.range = {(uintptr_t)addr, len}, .mode = mode | (wp ? UFFDIO_REGISTER_MODE_WP : 0)};
    if (ioctl(fd, UFFDIO_REGISTER, &r) != 0)
        return loci__fail(errno == ENOMEM ? LOCI_ENOMEM : LOCI_ENOTSUP,
                          "mode=paged: UFFDIO_REGISTER of %zu bytes of %s at %p: %s", len, memory, addr,
                          strerror(errno));
    uint64_t need = (1ull << fill) | (wp ? 1ull << _UFFDIO_WRITEPROTECT : 0);
    if ((r.ioctls & need) != need) {
        (void)uffd_unregister(fd, addr, len);
        return loci__fail(LOCI_ENOTSUP, "mode=paged: the kernel offers no %s%s on %s", how,
                          wp ? "/UFFDIO_WRITEPROTECT" : "", memory);
    }
    return 0;
}

int uffd_register(int fd, void *addr, size_t len, bool wp)
{
    return register_range(fd, addr, len, UFFDIO_REGISTER_MODE_MISSING, wp, _UFFDIO_COPY, "UFFDIO_COPY",
                          "anonymous memory");
}

/* Fill [dst, dst + len) from src with UFFDIO_COPY or (move) UFFDIO_MOVE. Both
 * may stop part-way and say how far they got (go on from there), ask to be
 * called again (EAGAIN), or find a page already there (EEXIST: keep it; a
 * moved one's source page stays behind). Returns the bytes done: len, or
 * fewer where another error stopped it (errno says which). */
static size_t fill(int fd, bool move, void *dst, const void *src, size_t len, uint64_t mode)
{
    size_t page = vm_page_size(), done = 0;
    while (done < len) {
        uint64_t to = (uintptr_t)dst + done, from = (uintptr_t)src + done, left = len - done;
        int64_t got;
        int rc;
        if (move) {
            struct uffdio_move m = {.dst = to, .src = from, .len = left, .mode = mode};
            rc = ioctl(fd, UFFDIO_MOVE, &m);
            got = m.move;
        } else {
            struct uffdio_copy c = {.dst = to, .src = from, .len = left, .mode = mode};
            rc = ioctl(fd, UFFDIO_COPY, &c);
            got = c.copy;
        }
        if (got > 0)
            done += (size_t)got;
        if (rc == 0 || got > 0 || errno == EAGAIN)
            continue;
        if (errno != EEXIST)
            break;
        done += page;
    }
    return done;
}

int uffd_copy(int fd, void *dst, const void *src, size_t len, bool wp)
{
    size_t done = fill(fd, false, dst, src, len, UFFDIO_COPY_MODE_DONTWAKE | (wp ? UFFDIO_COPY_MODE_WP : 0));
    if (done < len)
        return loci__fail(errno == ENOMEM ? LOCI_ENOMEM : LOCI_EIO, "mode=paged: UFFDIO_COPY at %p: %s",
                          (void *)((uintptr_t)dst + done), strerror(errno));
    return 0;
}

/* A page that cannot be moved (shared, pinned...) stops it: the caller copies the rest. */
size_t uffd_move(int fd, void *dst, void *src, size_t len)
{
    return fill(fd, true, dst, src, len, UFFDIO_MOVE_MODE_DONTWAKE);
}

/* UFFDIO_WRITEPROTECT, again while the kernel asks: 0, or -1 with errno set. */
/* Kernels before 6.6 take a range inside one VMA only (ENOENT otherwise); a
 * range mbind split into several (a bound heap's slabs, each populated under
 * its own policy change: vm_populate) is protected in halves, down to the
 * VMAs it is made of. */
static int set_protection(int fd, void *addr, size_t len, uint64_t mode)
{
    struct uffdio_writeprotect w = {.range = {(uintptr_t)addr, len}, .mode = mode};
    while (ioctl(fd, UFFDIO_WRITEPROTECT, &w) != 0) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE), half = len / 2 / page * page;
        if (errno == ENOENT && half > 0)
            return set_protection(fd, addr, half, mode) != 0 ? -1
                                                              : set_protection(fd, (char *)addr + half, len - half, mode);
        if (errno != EAGAIN)
            return -1;
    }
    return 0;
}

static int writeprotect(int fd, void *addr, size_t len, uint64_t mode)
{
    if (set_protection(fd, addr, len, mode) != 0)
        return loci__fail(LOCI_EIO, "mode=paged: UFFDIO_WRITEPROTECT at %p: %s", addr, strerror(errno));
    return 0;
}

/* (The kernel refuses DONTWAKE with WP: protecting wakes nobody anyway.) */
int uffd_protect(int fd, void *addr, size_t len) { return writeprotect(fd, addr, len, UFFDIO_WRITEPROTECT_MODE_WP); }

int uffd_unprotect(int fd, void *addr, size_t len, bool dontwake)
{
    return writeprotect(fd, addr, len, dontwake ? UFFDIO_WRITEPROTECT_MODE_DONTWAKE : 0);
}

void uffd_wake(int fd, void *addr, size_t len)
{
    struct uffdio_range r = {(uintptr_t)addr, len};
    (void)ioctl(fd, UFFDIO_WAKE, &r); /* fails only when nobody can be waiting there */
}

int uffd_read(int fd, uffd_fault_t *f)
{
    struct uffd_msg m;
    for (;;) {
        ssize_t n = read(fd, &m, sizeof m);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        if (n != (ssize_t)sizeof m)
            return loci__fail(LOCI_EIO, "mode=paged: reading the userfaultfd: %s",
                              n < 0 ? strerror(errno) : "short message");
        *f = (uffd_fault_t){0};
        if (m.event == UFFD_EVENT_REMAP) {
            f->remap = true;
            f->addr = (uintptr_t)m.arg.remap.to;
            return 1;
        }
        if (m.event != UFFD_EVENT_PAGEFAULT)
            continue; /* no other events were asked for */
        f->addr = (uintptr_t)m.arg.pagefault.address;
        f->write = (m.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) != 0;
        f->wp = (m.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP) != 0;
        f->minor = (m.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_MINOR) != 0;
        return 1;
    }
}

int uffd_open_minor(const char *who)
{
    int fd = open_full();
    if (fd < 0) {
        if (errno == EPERM)
            return loci__fail(LOCI_EPERM, "%s needs a userfaultfd that also handles the faults the kernel takes "
                                          "for the process (one for user-mode faults only would make read(2) "
                                          "into a sampled page fail with EFAULT); %s", who, how_to_allow);
        return loci__fail(LOCI_ENOTSUP, "%s: userfaultfd(2) failed: %s (a kernel without CONFIG_USERFAULTFD?)",
                          who, strerror(errno));
    }
    struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_MINOR_SHMEM};
    if (ioctl(fd, UFFDIO_API, &api) != 0 || !(api.features & UFFD_FEATURE_MINOR_SHMEM)) {
        int e = errno;
        close(fd);
        return loci__fail(LOCI_ENOTSUP, "%s: this kernel's userfaultfd has no minor faults on shared memory "
                                        "(UFFD_FEATURE_MINOR_SHMEM, Linux 5.13 or later: %s)", who, strerror(e));
    }
    return fd;
}

int uffd_register_minor(int fd, void *addr, size_t len)
{
    struct uffdio_register r = {.range = {(uintptr_t)addr, len}, .mode = UFFDIO_REGISTER_MODE_MINOR};
    if (ioctl(fd, UFFDIO_REGISTER, &r) != 0)
        return -1;
    if (!(r.ioctls & (1ull << _UFFDIO_CONTINUE))) {
        (void)uffd_unregister(fd, addr, len);
        errno = ENOTSUP;
        return -1;
    }
    return 0;
}

int uffd_unregister(int fd, void *addr, size_t len)
{
    struct uffdio_range r = {(uintptr_t)addr, len};
    return ioctl(fd, UFFDIO_UNREGISTER, &r);
}

/* UFFDIO_CONTINUE over [addr, addr+len) with `mode`, page by page past the
 * pages already mapped (woken, unless DONTWAKE: the caller wakes). 0, or -1
 * with errno set. */
static int continue_range(int fd, void *addr, size_t len, uint64_t mode)
{
    size_t page = vm_page_size();
    struct uffdio_continue c = {.range = {(uintptr_t)addr, len}, .mode = mode};
    while (c.range.len > 0) {
        c.mapped = 0;
        if (ioctl(fd, UFFDIO_CONTINUE, &c) == 0)
            return 0;
        if (errno == EEXIST) { /* the first page is mapped already: go on after it */
            if (!(mode & UFFDIO_CONTINUE_MODE_DONTWAKE))
                uffd_wake(fd, (void *)(uintptr_t)c.range.start, page);
            c.mapped = (int64_t)page;
        } else if (errno != EAGAIN) {
            return -1;
        }
        if (c.mapped > 0) { /* part done, or a page skipped */
            c.range.start += (uint64_t)c.mapped;
            c.range.len -= (uint64_t)c.mapped;
        }
    }
    return 0;
}

int uffd_continue(int fd, void *addr, size_t len) { return continue_range(fd, addr, len, 0); }

int uffd_register_shared(int fd, void *addr, size_t len, bool wp)
{
    return register_range(fd, addr, len, UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_MINOR, wp,
                          _UFFDIO_CONTINUE, "UFFDIO_CONTINUE", "shared memory");
}

int uffd_map_cached(int fd, void *addr, size_t len, bool wp)
{
    uint64_t mode = UFFDIO_CONTINUE_MODE_DONTWAKE | (wp ? UFFDIO_CONTINUE_MODE_WP : 0);
    if (continue_range(fd, addr, len, mode) == 0)
        return 0;
    return loci__fail(errno == ENOMEM ? LOCI_ENOMEM : LOCI_EIO, "mode=paged: UFFDIO_CONTINUE in [%p, +%zu): %s", addr,
                      len, strerror(errno));
}

/* --- asynchronous write-protection (the heat layer's dirty source) ------- */

int uffd_open_async_wp(void)
{
    int fd = (int)syscall(SYS_userfaultfd, UFFD_FLAGS | UFFD_USER_MODE_ONLY);
    if (fd < 0)
        return -1;
    uint64_t need = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_ASYNC;
    /* (shared memory too, where the kernel can: access=node arenas) */
    uint64_t want = need | (kernel_features(true) & UFFD_FEATURE_WP_HUGETLBFS_SHMEM);
    struct uffdio_api api = {.api = UFFD_API, .features = want};
    if (ioctl(fd, UFFDIO_API, &api) != 0 || (api.features & need) != need) {
        close(fd);
        errno = ENOTSUP;
        return -1;
    }
    return fd;
}

int uffd_register_wp(int fd, void *addr, size_t len)
{
    struct uffdio_register r = {.range = {(uintptr_t)addr, len}, .mode = UFFDIO_REGISTER_MODE_WP};
    if (ioctl(fd, UFFDIO_REGISTER, &r) != 0)
        return -1;
    if (!(r.ioctls & (1ull << _UFFDIO_WRITEPROTECT))) {
        (void)uffd_unregister(fd, addr, len);
        errno = ENOTSUP;
        return -1;
    }
    return 0;
}

int uffd_set_protected(int fd, void *addr, size_t len, bool protect)
{
    return set_protection(fd, addr, len, protect ? UFFDIO_WRITEPROTECT_MODE_WP : 0);
}
