/*
 * Named segments: files of the calling user in a shared-memory directory,
 * mapped MAP_SHARED at the same address by every process that opens them
 * (shared arenas, DESIGN.md §1). Creation is O_EXCL|O_NOFOLLOW with mode
 * 0600; opening refuses links, other users' files and looser modes, so that
 * only the same user can ever map a segment.
 */
#include "provider/named.h"

#include "os/shared_map.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where segments chosen from a seed go: [32 TiB, 64 TiB), which neither the
 * kernel's top-down mmap area, PIE binaries and their heaps, nor ASan's
 * shadow use, in slots of 1 GiB. */
#define REGION_BASE ((uintptr_t)1 << 45)
#define REGION_SLOTS ((uintptr_t)1 << 15)
#define SLOT_SIZE ((uintptr_t)1 << 30)

static void *map_from_seed(uint64_t seed, size_t size, int fd)
{
#if defined(__SANITIZE_THREAD__)
    seed = 0; /* ThreadSanitizer allows mappings only where it chose: the kernel's choice */
#endif
    uintptr_t slots = (size + SLOT_SIZE - 1) / SLOT_SIZE;
    for (unsigned i = 0; seed && slots < REGION_SLOTS && i < 64; i++) {
        uintptr_t slot = (seed + i * 7919u) % (REGION_SLOTS - slots);
        void *p = shared_map_file_at(REGION_BASE + slot * SLOT_SIZE, size, fd);
        if (p != MAP_FAILED)
            return p;
    }
    return shared_map_file(fd, size, true);
}

int named_create(const char *path, size_t size, uint64_t seed, const place_t *place, void **addr)
{
    char sz[32];
    units_format_size(size, sz, sizeof sz);
    if (size > (size_t)INT64_MAX) /* off_t: before a file is made */
        return loci__fail(LOCI_ENOMEM, "%s: %s is more than a file can hold", path, sz);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            return loci__fail(LOCI_EEXIST, "%s exists", path);
        return loci__fail(errno == EACCES ? LOCI_EPERM : LOCI_EIO, "cannot create %s: %s", path, strerror(errno));
    }
    void *p = MAP_FAILED;
    int rc = 0;
    /* fchmod: a umask must not loosen or tighten what the owner check expects */
    if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)size) != 0)
        rc = loci__fail(LOCI_ENOSPC, "cannot size %s to %s: %s", path, sz, strerror(errno));
    else if ((p = map_from_seed(seed, size, fd)) == MAP_FAILED)
        rc = loci__fail(LOCI_ENOMEM, "mmap of %s (%s): %s", path, sz, strerror(errno));
    else if (place)
        rc = vm_apply_policy(p, size, place, 0);
    close(fd);
    if (rc != 0) {
        if (p != MAP_FAILED)
            vm_unmap(p, size);
        unlink(path);
        return rc;
    }
    *addr = p;
    return 0;
}

/* The segment must be a plain file of ours that nobody else may open. */
static int check_owner(const char *path, const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return loci__fail(LOCI_EPERM, "%s is not a regular file; loci refuses it", path);
    if (st->st_uid != geteuid())
        return loci__fail(LOCI_EPERM, "%s belongs to uid %u, not to you (uid %u): only its owner may map it",
                          path, (unsigned)st->st_uid, (unsigned)geteuid());
    if ((st->st_mode & 07777) != 0600)
        return loci__fail(LOCI_EPERM, "%s has mode %03o, not 0600: loci refuses a segment others could open",
                          path, (unsigned)(st->st_mode & 07777));
    return 0;
}

int named_open(const char *path, uintptr_t at, void **addr, size_t *size)
{
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); /* nothing planted may block it; fstat next */
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT)
            return loci__fail(LOCI_ENOENT, "%s does not exist", path);
        if (e == ELOOP)
            return loci__fail(LOCI_EPERM, "%s is a symbolic link; loci refuses it", path);
        return loci__fail(e == EACCES ? LOCI_EPERM : LOCI_EIO, "cannot open %s: %s", path, strerror(e));
    }
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? check_owner(path, &st) : loci__fail(LOCI_EIO, "fstat of %s: %s", path, strerror(errno));
    void *p = MAP_FAILED;
    if (rc == 0 && st.st_size <= 0)
        rc = loci__fail(LOCI_EINVAL, "%s is empty", path);
    if (rc == 0) {
        *size = (size_t)st.st_size;
        p = at ? shared_map_file_at(at, *size, fd) : shared_map_file(fd, *size, true);
        if (p == MAP_FAILED) {
            char who[600];
            rc = at && errno == EEXIST
                     ? loci__fail(LOCI_EBUSY, "cannot map %s at %p (%zu bytes): the range is taken in this "
                                              "process by: %s",
                                  path, (void *)at, *size, vm_occupant(at, *size, who, sizeof who))
                     : loci__fail(LOCI_ENOMEM, "mmap of %s: %s", path, strerror(errno));
        }
    }
    close(fd);
    if (rc == 0)
        *addr = p;
    return rc;
}

int named_unmap(void *addr, size_t size)
{
    if (vm_unmap(addr, size) != 0)
        return loci__fail(LOCI_EINVAL, "munmap(%p, %zu): %s", addr, size, strerror(errno));
    return 0;
}

int named_unlink(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? loci__fail(LOCI_ENOENT, "%s does not exist", path)
                               : loci__fail(LOCI_EIO, "cannot stat %s: %s", path, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return loci__fail(LOCI_EPERM, "%s is a symbolic link; loci refuses it", path);
    int rc = check_owner(path, &st);
    if (rc == 0 && unlink(path) != 0)
        rc = loci__fail(LOCI_EIO, "cannot remove %s: %s", path, strerror(errno));
    return rc;
}

int named_purge(void *addr, size_t size)
{
    if (shared_map_remove(addr, size) != 0)
        return loci__fail(LOCI_EIO, "madvise(REMOVE, %p, %zu): %s", addr, size, strerror(errno));
    return 0;
}

int named_populate(void *addr, size_t size) { return vm_populate(addr, size); }
