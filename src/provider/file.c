/*
 * file provider (mode=mmap): memory-mapped files in a file tier directory
 * (ssd, pmem); the kernel's page cache decides what stays in DRAM. Each
 * extent is its own file "loci-<pid>-<n>-<random>", created 0600 with
 * O_CREAT|O_EXCL|O_NOFOLLOW, its space reserved with posix_fallocate, mapped
 * MAP_SHARED (MAP_SYNC on DAX file systems), and unlinked when freed (those
 * of killed processes by the next process to create one: filetier_create). A
 * persistent region is its named file, kept open (it holds the region's
 * lock) and kept when unmapped. The file of each extent is recorded out of
 * band in a table keyed by address.
 *
 * fork(): the child's pool holds a copy of its parent's tables, so were the
 * files still shared it would hand out, write, purge (punch holes) and
 * unlink what its parent still uses. In the child, before fork() returns,
 * each temporary extent is mapped again MAP_PRIVATE from its file: the
 * child reads its parent's data and writes copies of its own; a purge there
 * maps zeros, a free unmaps and leaves the file to the parent. Meanwhile
 * the parent holds its table (provider_fork waits for the child), so that
 * none of its threads can free an extent and unlink the file the child is
 * about to open. Named regions stay shared: sharing them is what they are
 * for.
 */
#include "provider/provider_impl.h"
#include "filetier/filetier.h"
#include "os/shared_map.h"
#include "os/vm.h"
#include "units.h"
#include "os/file_space.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { XF_TMPFS = 1, XF_DAX = 2, XF_NAMED = 4, XF_DETACHED = 8 /* a fork child's private view */ };

static xtable_t files = XTABLE_INIT;

/* DAX file systems take MAP_SYNC (stores durable after a cache flush);
 * others reject it, and a plain shared mapping is what they offer. */
static void *map_file(int fd, size_t size, size_t alignment, bool readonly, unsigned *flags)
{
    if (readonly) /* read-only regions need no alignment beyond the page */
        return shared_map_file(fd, size, false);
    void *p = vm_map_aligned(size, alignment, fd, MAP_SHARED_VALIDATE | MAP_SYNC);
    if (p != MAP_FAILED)
        *flags |= XF_DAX;
    else if (errno == EOPNOTSUPP || errno == EINVAL)
        p = vm_map_aligned(size, alignment, fd, MAP_SHARED);
    return p;
}

/* Map fd and record it. `path`: a temporary file, unlinked on failure and
 * when freed; NULL: a named region, whose fd is kept. fd is taken over. */
static void *map_and_record(const place_t *place, int fd, const char *path, size_t size, size_t alignment,
                            bool readonly)
{
    unsigned flags = (filetier_in_memory(fd) ? XF_TMPFS : 0) | (path ? 0 : XF_NAMED);
    char sz[32];
    void *p = map_file(fd, size, alignment, readonly, &flags);
    int rc = 0;
    if (p == MAP_FAILED)
        rc = loci__fail(LOCI_ENOMEM, "%s: mmap of %s: %s", place->target->name, units_format_size(size, sz, sizeof sz),
                        strerror(errno));
    if (rc == 0 && place->pinned)
        rc = vm_pin(p, size);
    if (rc == 0)
        rc = xtable_add(&files, &(xrec_t){.base = (uintptr_t)p, .size = size, .fd = path ? -1 : fd,
                                          .path = (char *)path, .flags = flags});
    if (path || rc != 0)
        close(fd);
    if (rc != 0) {
        if (p != MAP_FAILED)
            vm_unmap(p, size);
        if (path)
            unlink(path);
        errno = loci__errno_of(rc);
        return NULL;
    }
    return p;
}

static void *file_alloc(const place_t *place, size_t size, size_t alignment)
{
    char path[4096];
    int fd = filetier_fits(place->target, size);
    if (fd == 0)
        fd = filetier_create(place->target, 0, path, sizeof path);
    int rc = fd < 0 ? fd : filetier_reserve(place->target, fd, size);
    if (rc != 0) {
        if (fd >= 0) {
            unlink(path);
            close(fd);
        }
        errno = loci__errno_of(rc);
        return NULL;
    }
    return map_and_record(place, fd, path, size, alignment, false);
}

static void *file_open(const place_t *place, const char *name, size_t *size, unsigned flags)
{
    uint64_t sz = *size;
    int fd = filetier_open_region(place, name, flags, 0, &sz);
    if (fd < 0) {
        errno = loci__errno_of(fd);
        return NULL;
    }
    void *p = map_and_record(place, fd, NULL, (size_t)sz, vm_page_size(), flags & LOCI_READONLY);
    if (p)
        *size = (size_t)sz;
    return p;
}

/* Forget the extent at addr: its record, its temporary file, its fd.
 * False when addr is no extent of ours. */
static bool forget(void *addr)
{
    xrec_t r;
    if (!xtable_remove(&files, (uintptr_t)addr, &r))
        return false;
    if (r.path && unlink(r.path) != 0 && errno != ENOENT)
        loci__log(LOCI_LOG_WARN, "file tier: cannot remove %s: %s", r.path, strerror(errno));
    if (r.fd >= 0)
        close(r.fd);
    free(r.path);
    return true;
}

static int file_free(void *addr, size_t size) { return provider_unmap("file", addr, size, forget(addr)); }

/* An arena moving here: a new file of the tier, which the extent's
 * provider hands it over to. */
static int file_adopt(void *addr, size_t size, const place_t *to, const provider_ops_t *from, bool live)
{
    return provider_adopt(&provider_file, &files, addr, size, to, from, live);
}

static void file_disown(void *addr, size_t size) { forget(addr); }

/* The extent containing addr, with an fd on its file (*close_it: the
 * caller closes it). -1 with loci__fail when addr is no file extent. */
static int extent_fd(void *addr, xrec_t *r, bool *close_it)
{
    char path[4096];
    if (!xtable_find(&files, (uintptr_t)addr, r, path, sizeof path))
        return loci__fail(LOCI_EINVAL, "file: %p is no extent of the file provider", addr);
    if (r->flags & XF_DETACHED)
        return loci__fail(LOCI_EINVAL, "file: %p is a fork child's private copy of its parent's file memory: "
                                       "it has no file of its own", addr);
    *close_it = r->fd < 0;
    int fd = r->fd >= 0 ? r->fd : open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    return fd >= 0 ? fd : loci__fail(LOCI_EIO, "file: cannot open %s: %s", path, strerror(errno));
}

/* An arena leaving the tier: `into` takes the range first, then is filled
 * from the extent's file (vm_fill_over: a mapping of a regular file cannot
 * be write-protected for a copy). A fork child's private view has no file of
 * its own to fill from. */
static int file_hand_over(void *addr, void *into, size_t size, const place_t *to)
{
    xrec_t r = {0};
    bool close_it;
    int fd = extent_fd(addr, &r, &close_it);
    if (fd < 0)
        return fd == LOCI_EINVAL && (r.flags & XF_DETACHED) ? 1 : fd;
    int flags = r.flags & XF_DAX ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED;
    int rc = vm_fill_over(addr, into, size, fd, (uintptr_t)addr - r.base, flags, to);
    if (close_it)
        close(fd);
    return rc;
}

static const char *file_why_not_live(const provider_ops_t *into)
{
    if (into->file)
        return "a file tier's memory cannot go to another file tier while threads write it (a mapping of a "
               "file can be neither write-protected for a copy nor filled on demand)";
    return vm_fill_over_refusal();
}

/* Drop the pages and their blocks, then reserve the blocks again so that
 * reusing the range cannot hit ENOSPC (except on tmpfs, where a reservation
 * would be memory). */
static int file_purge(void *addr, size_t size)
{
    xrec_t r;
    if (xtable_find(&files, (uintptr_t)addr, &r, NULL, 0) && (r.flags & XF_DETACHED)) /* zeros of the child's own */
        return shared_map_zero_over((uintptr_t)addr, size) == MAP_FAILED
                   ? loci__fail(LOCI_EIO, "file: purge of %p: %s", addr, strerror(errno))
                   : 0;
    bool close_it;
    int fd = extent_fd(addr, &r, &close_it);
    if (fd == LOCI_EINVAL)
        return fd;
    off_t off = (off_t)((uintptr_t)addr - r.base);
    int rc = 0;
    if (fd >= 0 && file_zero_range(fd, (uint64_t)off, size, !(r.flags & XF_TMPFS)) == 0) {
    } else if (vm_drop(addr, size) != 0) { /* no hole punching here: at least drop the pages */
        rc = loci__fail(LOCI_EIO, "file: purge of %p: %s", addr, strerror(errno));
    }
    if (fd >= 0 && close_it)
        close(fd);
    return rc;
}

static int file_flush(void *addr, size_t size)
{
    if (shared_map_sync(addr, size) != 0)
        return loci__fail(LOCI_EIO, "file: msync(%p, %zu): %s", addr, size, strerror(errno));
    return 0;
}

static int file_prefetch(void *addr, size_t size)
{
    if (vm_prefetch(addr, size) != 0)
        return loci__fail(LOCI_EINVAL, "file: madvise(WILLNEED, %p, %zu): %s", addr, size, strerror(errno));
    return 0;
}

/* Written back, unmapped from this process, then out of the page cache. */
static int file_evict(void *addr, size_t size)
{
    xrec_t r;
    bool close_it;
    int fd = extent_fd(addr, &r, &close_it);
    if (fd < 0)
        return fd;
    int rc = file_flush(addr, size);
    if (rc == 0 && vm_drop(addr, size) != 0)
        rc = loci__fail(LOCI_EINVAL, "file: madvise(DONTNEED, %p, %zu): %s", addr, size, strerror(errno));
    if (rc == 0)
        file_drop_cache(fd, (uintptr_t)addr - r.base, size);
    if (close_it)
        close(fd);
    return rc;
}

int provider_file_path(const void *addr, char *buf, size_t buflen, size_t *offset)
{
    xrec_t r;
    if (!xtable_find(&files, (uintptr_t)addr, &r, buf, buflen) || (r.flags & XF_DETACHED)) /* no file of its own */
        return LOCI_ENOENT;
    if (offset)
        *offset = (uintptr_t)addr - r.base;
    return 0;
}

/* In the child: r's temporary extent becomes a private view of its file.
 * Failing that, the child would write into its parent's memory: it stops
 * instead, saying why. */
static void detach_in_child(xrec_t *r, void *arg)
{
    (void)arg;
    if (!r->path)
        return;
    int fd = open(r->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || shared_map_file_private_over(r->base, r->size, fd) == MAP_FAILED) {
        loci__log(LOCI_LOG_ERROR, "fork: the child cannot detach file memory at %p from %s (%s); it would write "
                                  "into its parent's, so it stops here",
                  (void *)r->base, r->path, strerror(errno));
        abort();
    }
    close(fd);
    free(r->path);
    r->path = NULL; /* the parent's to unlink */
    r->flags |= XF_DETACHED;
}

static void count_temporary(xrec_t *r, void *arg) { *(size_t *)arg += r->path != NULL; }

/* The child opens the temporary files by name: the parent waits for it
 * with the table held (provider_fork), as a free unlinks its extent's file
 * only once its record left the table. */
static bool file_fork(loci_fork_phase_t phase)
{
    size_t temporary = 0;
    if (phase == LOCI_FORK_CHILD)
        xtable_each_held(&files, detach_in_child, NULL);
    xtable_fork(&files, phase);
    if (phase == LOCI_FORK_PREPARE)
        xtable_each_held(&files, count_temporary, &temporary);
    return temporary > 0;
}

static const provider_move_ops_t file_moves = {
    .move = NULL, /* the kernel's page cache decides where file pages live */
    .adopt = file_adopt,
    .hand_over = file_hand_over,
    .why_not_live = file_why_not_live,
    .disown = file_disown,
};

static const provider_file_ops_t file_files = {
    .flush = file_flush,
    .prefetch = file_prefetch,
    .evict = file_evict,
    .open = file_open,
    .remove = filetier_remove_region,
};

const provider_ops_t provider_file = {
    .name = "file",
    .alloc = file_alloc,
    .free = file_free,
    .purge = file_purge,
    .populate = vm_populate,
    .available = filetier_available,
    .fork = file_fork,
    .move = &file_moves,
    .file = &file_files,
};
