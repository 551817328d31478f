/*
 * Persistent named regions on device-DAX targets (provider_devdax_region):
 * the file group of provider.h over a device's region directory
 * (devdax_dir.c) and its space map (devdax.c). A region is a range of the
 * device's one mapping, so opening it maps nothing: it is found (or, with
 * LOCI_CREATE, carved from the device's end, zeroed, made durable, then
 * committed to the directory), locked and handed out at the same offset
 * every time. Its bytes are durable once written back from the CPU caches
 * (os/durable.c), which flush, sync and close do.
 *
 * Locks are fcntl OFD locks on bytes of the device node (dropped when the
 * process exits): byte 0 orders the directory's readers and writers; a
 * region's offset is its own lock, shared for LOCI_SHARED and LOCI_READONLY
 * openings, exclusive for a writer alone. The node's permissions decide who
 * reaches the device; a region also records its owner's uid, and no other
 * uid opens or removes it. A region open here is opened once (the mapping
 * is the device's: a second opening would be the same address); closed, its
 * range is made inaccessible, so that a stale pointer faults as it would on
 * an unmapped file region.
 */
#include "provider/devdax_impl.h"
#include "os/durable.h"
#include "os/vm.h"
#include "filetier/filetier.h"
#include "units.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static devdax_open_t *open_at(devdax_device_t *d, uint64_t offset)
{
    for (size_t i = 0; i < d->nopens; i++)
        if (d->opens[i].offset == offset)
            return &d->opens[i];
    return NULL;
}

static bool remember(devdax_device_t *d, devdax_open_t o)
{
    devdax_open_t *n = grow_for_one(d->opens, d->nopens, &d->capopens, sizeof *n, 8);
    if (!n)
        return false;
    d->opens = n;
    d->opens[d->nopens++] = o;
    return true;
}

/* A new region `name` of `size` bytes: carved from the device's end,
 * zeroed and durable before the directory names it. Its index in d->dir. */
static int create(devdax_device_t *d, const char *name, size_t size, int *index)
{
    char want[32], have[32], unit[32];
    const struct loci_target *tg = d->target;
    if (d->dir->n == DAXDIR_ENTRIES)
        return loci__fail(LOCI_ENOSPC, "region \"%s\": %s holds %d regions already, its directory's most; remove "
                                       "one or choose another target", name, tg->path, DAXDIR_ENTRIES);
    size_t taken = devdax_taken(d, size), off;
    if (!devdax_carve(d, taken, d->dev.align, true, &off))
        return loci__fail(LOCI_ENOSPC, "region \"%s\": %s asked (in %s units, in one piece), but %s has %s free; "
                                       "remove regions or choose another target", name,
                          units_format_size(size, want, sizeof want),
                          units_format_size(d->dev.align, unit, sizeof unit), tg->path,
                          units_format_size(devdax_free_bytes(d), have, sizeof have));
    char *p = d->dev.base + off;
    int rc = vm_protect_readwrite(p, taken) == 0 ? 0 : loci__fail(LOCI_EIO, "%s: mprotect: %s", tg->name, strerror(errno));
    if (rc == 0) {
        memset(p, 0, size);
        if (durable_range(p, size, d->dev.map_sync) != 0)
            rc = loci__fail(LOCI_EIO, "%s: cannot make region \"%s\" durable: %s", tg->name, name, strerror(errno));
    }
    daxdir_t *next = rc == 0 ? malloc(sizeof *next) : NULL;
    if (rc == 0 && !next)
        rc = loci__fail(LOCI_ENOMEM, "out of memory creating region \"%s\"", name);
    if (rc == 0) {
        *next = *d->dir;
        next->generation = d->dir->generation + 1;
        daxdir_entry_t *e = &next->entries[next->n++];
        *e = (daxdir_entry_t){.offset = off, .length = size, .generation = next->generation, .uid = (uint32_t)geteuid()};
        snprintf(e->name, sizeof e->name, "%s", name);
        rc = daxdir_write(&d->dev, next);
    }
    if (rc == 0) {
        free(d->dir);
        d->dir = next;
        *index = (int)next->n - 1;
        return 0;
    }
    free(next);
    devdax_give_back(d, off, taken);
    return rc;
}

/* The region `name` of d's directory, owned by the caller: its index. */
static int find_own(devdax_device_t *d, const char *name, unsigned flags, int *index)
{
    int i = daxdir_find(d->dir, name);
    if (i < 0)
        return loci__fail(LOCI_ENOENT, "region \"%s\" does not exist on %s (%s)%s", name, d->target->name,
                          d->target->path, flags & LOCI_READONLY ? "" : " (pass LOCI_CREATE to create it)");
    if (d->dir->entries[i].uid != (uint32_t)geteuid())
        return loci__fail(LOCI_EPERM, "region \"%s\" on %s belongs to uid %u, not to you (uid %u)", name,
                          d->target->path, (unsigned)d->dir->entries[i].uid, (unsigned)geteuid());
    *index = i;
    return 0;
}

/* The device of place's target, its directory locked (exclusive: it may
 * be written) and read. Unlock with unlock_dir. */
static int lock_dir(const place_t *place, bool exclusive, devdax_device_t **out)
{
    devdax_device_t *d;
    int rc = devdax_device_of(place->target, &d);
    if (rc == 0 && d->parents)
        rc = devdax_parents_refusal(d);
    if (rc == 0)
        rc = devdax_lock_byte(d, DEVDAX_DIR_LOCK_BYTE, exclusive ? F_WRLCK : F_RDLCK, true);
    if (rc != 0)
        return rc;
    if ((rc = devdax_sync_directory(d)) != 0) {
        devdax_lock_byte(d, DEVDAX_DIR_LOCK_BYTE, F_UNLCK, true);
        return rc;
    }
    *out = d;
    return 0;
}

static void unlock_dir(devdax_device_t *d) { devdax_lock_byte(d, DEVDAX_DIR_LOCK_BYTE, F_UNLCK, true); }

static int lock_region(devdax_device_t *d, const daxdir_entry_t *e, unsigned flags)
{
    bool exclusive = !(flags & (LOCI_READONLY | LOCI_SHARED));
    if (open_at(d, e->offset))
        return loci__fail(LOCI_EBUSY, "region \"%s\" is open in this process already; use that opening (a device "
                                      "region has one address per process)", e->name);
    int rc = devdax_lock_byte(d, e->offset, exclusive ? F_WRLCK : F_RDLCK, false);
    if (rc == LOCI_EBUSY)
        return loci__fail(LOCI_EBUSY, "region \"%s\" is open in another process%s", e->name,
                          exclusive ? " (to open it from several processes at once, every one must pass LOCI_SHARED "
                                      "or LOCI_READONLY)"
                                    : " by a writer without LOCI_SHARED");
    return rc;
}

static void *region_open(const place_t *place, const char *name, size_t *size, unsigned flags)
{
    devdax_device_t *d = NULL;
    int i = -1;
    pthread_mutex_lock(&devdax_lock);
    int rc = lock_dir(place, flags & LOCI_CREATE, &d);
    if (rc == 0) {
        rc = find_own(d, name, flags, &i);
        if (rc == LOCI_ENOENT && (flags & LOCI_CREATE))
            rc = create(d, name, *size, &i);
        else if (rc == 0 && *size && *size != d->dir->entries[i].length)
            rc = filetier_size_mismatch(name, d->dir->entries[i].length, *size);
        const daxdir_entry_t *e = rc == 0 ? &d->dir->entries[i] : NULL;
        size_t taken = e ? devdax_taken(d, e->length) : 0;
        if (rc == 0)
            rc = lock_region(d, e, flags);
        if (rc == 0 && ((flags & LOCI_READONLY ? vm_protect_readonly : vm_protect_readwrite)(d->dev.base + e->offset, taken) != 0 ||
                        !remember(d, (devdax_open_t){.offset = e->offset, .taken = taken, .flags = flags}))) {
            rc = loci__fail(LOCI_ENOMEM, "region \"%s\": cannot make it accessible: %s", name, strerror(errno));
            devdax_lock_byte(d, e->offset, F_UNLCK, false);
        }
        unlock_dir(d);
    }
    void *p = rc == 0 ? d->dev.base + d->dir->entries[i].offset : NULL;
    if (p)
        *size = d->dir->entries[i].length;
    pthread_mutex_unlock(&devdax_lock);
    if (!p)
        errno = loci__errno_of(rc);
    return p;
}

/* Closing: the range stays the device's, made inaccessible here. */
static int region_close(void *addr, size_t size)
{
    pthread_mutex_lock(&devdax_lock);
    devdax_device_t *d = devdax_device_at(addr);
    devdax_open_t *o = d ? open_at(d, (uint64_t)((char *)addr - d->dev.base)) : NULL;
    int rc = o ? 0 : loci__fail(LOCI_EINVAL, "devdax: %p is no open region of a device-DAX target", addr);
    if (o) {
        if (vm_protect_none(addr, o->taken) != 0)
            loci__log(LOCI_LOG_WARN, "devdax: closed region at %p stays accessible: %s", addr, strerror(errno));
        devdax_lock_byte(d, o->offset, F_UNLCK, false);
        *o = d->opens[--d->nopens];
    }
    pthread_mutex_unlock(&devdax_lock);
    (void)size;
    return rc;
}

static int region_remove(const place_t *place, const char *name)
{
    devdax_device_t *d;
    int i = -1;
    pthread_mutex_lock(&devdax_lock);
    int rc = lock_dir(place, true, &d);
    if (rc != 0) {
        pthread_mutex_unlock(&devdax_lock);
        return rc;
    }
    rc = find_own(d, name, LOCI_READONLY, &i);
    daxdir_entry_t e = rc == 0 ? d->dir->entries[i] : (daxdir_entry_t){0};
    if (rc == 0)
        rc = lock_region(d, &e, 0); /* nobody has it open, here or elsewhere */
    daxdir_t *next = rc == 0 ? malloc(sizeof *next) : NULL;
    if (rc == 0 && !next)
        rc = loci__fail(LOCI_ENOMEM, "out of memory removing region \"%s\"", name);
    if (rc == 0) {
        *next = *d->dir;
        next->generation++;
        next->entries[i] = next->entries[--next->n];
        rc = daxdir_write(&d->dev, next);
        devdax_lock_byte(d, e.offset, F_UNLCK, false);
    }
    if (rc == 0) {
        free(d->dir);
        d->dir = next;
        size_t taken = devdax_taken(d, e.length);
        if (vm_protect_readwrite(d->dev.base + e.offset, taken) != 0 || !devdax_give_back(d, e.offset, taken))
            loci__log(LOCI_LOG_WARN, "%s: the space of removed region \"%s\" is lost to this process until it exits",
                      d->target->name, name);
    } else {
        free(next);
    }
    unlock_dir(d);
    pthread_mutex_unlock(&devdax_lock);
    return rc;
}

/* Flush, sync and close: the range written back from the CPU caches (and
 * msync'ed where the mapping has no MAP_SYNC). */
static int region_flush(void *addr, size_t size)
{
    pthread_mutex_lock(&devdax_lock);
    devdax_device_t *d = devdax_device_at(addr);
    bool map_sync = d && d->dev.map_sync;
    pthread_mutex_unlock(&devdax_lock);
    if (!d)
        return loci__fail(LOCI_EINVAL, "devdax: %p is in no device-DAX mapping", addr);
    if (durable_range(addr, size, map_sync) != 0)
        return loci__fail(LOCI_EIO, "devdax: cannot make %zu bytes at %p durable: %s", size, addr, strerror(errno));
    return 0;
}

/* The bytes are in the device already: nothing to bring in. */
static int region_prefetch(void *addr, size_t size)
{
    (void)addr;
    (void)size;
    return 0;
}

static const provider_file_ops_t region_files = {
    .flush = region_flush,
    .prefetch = region_prefetch,
    .evict = region_flush, /* no DRAM copy to drop: written back is all eviction can mean */
    .open = region_open,
    .remove = region_remove,
};

const provider_ops_t provider_devdax_region = {
    .name = "devdax",
    .alloc = NULL, /* regions only: plain allocations are provider_devdax's */
    .free = region_close,
    .file = &region_files, /* its lock is devdax.c's, which provider_devdax's fork takes */
};

int provider_devdax_regions(const struct loci_target *tg, provider_devdax_region_fn fn, void *arg)
{
    devdax_device_t *d;
    pthread_mutex_lock(&devdax_lock);
    int rc = lock_dir(&(place_t){.target = tg}, false, &d);
    if (rc == 0) {
        for (size_t i = 0; i < d->dir->n; i++) {
            const daxdir_entry_t *e = &d->dir->entries[i];
            fn(e->name, e->offset, e->length, e->uid, e->generation, arg);
        }
        unlock_dir(d);
    }
    pthread_mutex_unlock(&devdax_lock);
    return rc;
}

/* Not through lock_dir: a directory failing its checks is what is wiped. */
int provider_devdax_wipe(const struct loci_target *tg)
{
    devdax_device_t *d;
    pthread_mutex_lock(&devdax_lock);
    int rc = devdax_device_of(tg, &d);
    if (rc == 0 && d->nopens)
        rc = loci__fail(LOCI_EBUSY, "%s: this process has regions of %s open", tg->name, tg->path);
    if (rc == 0 && (rc = devdax_lock_byte(d, DEVDAX_DIR_LOCK_BYTE, F_WRLCK, true)) == 0) {
        rc = daxdir_wipe(&d->dev);
        if (rc == 0)
            rc = devdax_sync_directory(d);
        unlock_dir(d);
    }
    pthread_mutex_unlock(&devdax_lock);
    return rc;
}
