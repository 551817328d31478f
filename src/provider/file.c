/*
 * file provider: memory-mapped files in a file tier directory (ssd, pmem).
 * Each extent is its own file "loci-<pid>-<n>-<random>", created 0600 with
 * O_CREAT|O_EXCL|O_NOFOLLOW, its space reserved with posix_fallocate, mapped
 * MAP_SHARED (MAP_SYNC on DAX file systems), and unlinked when freed. The file
 * name of each extent is kept out of band in a table keyed by address.
 */
#include "provider/extents.h"
#include "provider/vm.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

enum { XF_TMPFS = 1, XF_DAX = 2 };

static xtable_t files = XTABLE_INIT;
static atomic_ulong file_counter;

/* The tier directory must be a real directory of ours that others cannot write. */
static int check_dir(const struct loci_target *t, const char *dir)
{
    const char *tier = t && t->name[0] ? t->name : "file tier";
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT)
            return loci__fail(LOCI_ENOENT, "%s: directory %s does not exist (create it with mode 0700, "
                                           "or point LOCI_STORE_DIR / the config at one)", tier, dir);
        return loci__fail(LOCI_EIO, "%s: cannot stat %s: %s", tier, dir, strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return loci__fail(LOCI_EPERM, "%s: %s is a symbolic link; loci refuses it (give the real directory)",
                          tier, dir);
    if (!S_ISDIR(st.st_mode))
        return loci__fail(LOCI_EINVAL, "%s: %s is not a directory", tier, dir);
    if (st.st_uid != geteuid())
        return loci__fail(LOCI_EPERM, "%s: %s is owned by uid %u, not by you (uid %u); use a directory of your own",
                          tier, dir, (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & S_IWOTH)
        return loci__fail(LOCI_EPERM, "%s: %s is writable by others (mode %03o); `chmod o-w %s` or use another directory",
                          tier, dir, (unsigned)(st.st_mode & 07777), dir);
    return 0;
}

static uint64_t random64(void)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)&ts ^ (uint64_t)ts.tv_sec;
    return r ^ (r >> 29);
}

/* Create a fresh file of ours in dir: its path into `path`, the fd returned. */
static int create_file(const char *dir, char *path, size_t len)
{
    for (int tries = 0; tries < 8; tries++) {
        snprintf(path, len, "%s/loci-%ld-%lu-%016llx", dir, (long)getpid(),
                 atomic_fetch_add_explicit(&file_counter, 1, memory_order_relaxed),
                 (unsigned long long)random64());
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

static void *file_alloc(const place_t *place, size_t size, size_t alignment)
{
    const char *dir = place->target ? place->target->path : NULL;
    if (!dir || !*dir)
        return loci__fail_null(LOCI_EINVAL, "file provider: target %s has no directory",
                               place->target ? place->target->name : "(none)");
    int rc = check_dir(place->target, dir);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    char path[4096], sz[32];
    units_format_size(size, sz, sizeof sz);
    int fd = create_file(dir, path, sizeof path);
    if (fd < 0)
        return loci__fail_null(errno == ENOSPC ? LOCI_ENOSPC : LOCI_EIO, "%s: cannot create a file in %s: %s",
                               place->target->name, dir, strerror(errno));
    void *p = MAP_FAILED;
    int err = posix_fallocate(fd, 0, (off_t)size);
    if (err != 0) {
        unlink(path);
        close(fd);
        if (err == ENOSPC || err == EDQUOT)
            return loci__fail_null(LOCI_ENOSPC, "%s: no space for %s in %s (posix_fallocate: %s); free space there "
                                                "or choose another tier", place->target->name, sz, dir, strerror(err));
        return loci__fail_null(LOCI_EIO, "%s: posix_fallocate of %s in %s: %s", place->target->name, sz, dir,
                               strerror(err));
    }
    unsigned flags = 0;
    struct statfs fs;
    if (fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC)
        flags |= XF_TMPFS;
    /* DAX file systems take MAP_SYNC (stores durable after a cache flush);
     * others reject it, and a plain shared mapping is what they offer. */
    p = vm_map_aligned(size, alignment, fd, MAP_SHARED_VALIDATE | MAP_SYNC);
    if (p != MAP_FAILED)
        flags |= XF_DAX;
    else if (errno == EOPNOTSUPP || errno == EINVAL)
        p = vm_map_aligned(size, alignment, fd, MAP_SHARED);
    int map_errno = errno;
    close(fd);
    if (p == MAP_FAILED) {
        unlink(path);
        return loci__fail_null(LOCI_ENOMEM, "%s: mmap of %s from %s: %s", place->target->name, sz, path,
                               strerror(map_errno));
    }
    rc = place->pinned ? vm_pin(p, size) : 0;
    if (rc == 0)
        rc = xtable_add(&files, &(xrec_t){.base = (uintptr_t)p, .size = size, .fd = -1, .path = path, .flags = flags});
    if (rc != 0) {
        munmap(p, size);
        unlink(path);
        errno = loci__errno_of(rc);
        return NULL;
    }
    return p;
}

/* Forget the extent at addr and remove its file. False when unknown. */
static bool forget(void *addr)
{
    xrec_t r;
    if (!xtable_remove(&files, (uintptr_t)addr, &r))
        return false;
    if (r.path && unlink(r.path) != 0 && errno != ENOENT)
        loci__log(LOCI_LOG_WARN, "file tier: cannot remove %s: %s", r.path, strerror(errno));
    free(r.path);
    return true;
}

static int file_free(void *addr, size_t size)
{
    bool known = forget(addr);
    int rc = 0;
    if (munmap(addr, size) != 0)
        rc = loci__fail(LOCI_EINVAL, "file: munmap(%p, %zu): %s", addr, size, strerror(errno));
    else
        vm_unmapped(addr, size);
    if (!known)
        return loci__fail(LOCI_EINVAL, "file: %p is no extent of the file provider", addr);
    return rc;
}

/* A new file of the tier, filled from the extent and mapped over it. */
static int file_adopt(void *addr, size_t size, const place_t *to)
{
    void *tmp = file_alloc(to, size, vm_page_size());
    if (!tmp)
        return errno == ENOSPC ? LOCI_ENOSPC : LOCI_EIO;
    int rc = vm_replace(addr, tmp, size);
    if (rc != 0) {
        file_free(tmp, size);
        return rc;
    }
    xtable_rekey(&files, (uintptr_t)tmp, (uintptr_t)addr);
    return 0;
}

static void file_disown(void *addr, size_t size) { forget(addr); }

/* Drop the pages and their blocks, then reserve the blocks again so that
 * reusing the range cannot hit ENOSPC (except on tmpfs, where a reservation
 * would be memory). */
static int file_purge(void *addr, size_t size)
{
    xrec_t r;
    char path[4096];
    if (!xtable_find(&files, (uintptr_t)addr, &r, path, sizeof path))
        return loci__fail(LOCI_EINVAL, "file: %p is no extent of the file provider", addr);
    off_t off = (off_t)((uintptr_t)addr - r.base);
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)size) == 0) {
        if (!(r.flags & XF_TMPFS))
            (void)fallocate(fd, 0, off, (off_t)size);
        close(fd);
        return 0;
    }
    if (fd >= 0)
        close(fd);
    /* No hole punching here: at least drop the mapped pages. */
    if (madvise(addr, size, MADV_DONTNEED) != 0)
        return loci__fail(LOCI_EIO, "file: purge of %p in %s: %s", addr, path, strerror(errno));
    return 0;
}

static int file_flush(void *addr, size_t size)
{
    if (msync(addr, size, MS_SYNC) != 0)
        return loci__fail(LOCI_EIO, "file: msync(%p, %zu): %s", addr, size, strerror(errno));
    return 0;
}

static int file_available(const place_t *place, uint64_t *bytes)
{
    struct statvfs sv;
    if (!place->target || !place->target->path || statvfs(place->target->path, &sv) != 0)
        return LOCI_ENOTSUP;
    *bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
    return 0;
}

int provider_file_path(const void *addr, char *buf, size_t buflen, size_t *offset)
{
    xrec_t r;
    if (!xtable_find(&files, (uintptr_t)addr, &r, buf, buflen))
        return LOCI_ENOENT;
    if (offset)
        *offset = (uintptr_t)addr - r.base;
    return 0;
}

const provider_ops_t provider_file = {
    .name = "file",
    .alloc = file_alloc,
    .free = file_free,
    .move = NULL,
    .purge = file_purge,
    .flush = file_flush,
    .populate = vm_populate,
    .available = file_available,
    .adopt = file_adopt,
    .disown = file_disown,
};
