/*
 * devdax provider: device-DAX targets (/dev/daxX.Y, topo/devdax_source.c).
 * A device is opened the first time memory is asked of it, O_RDWR |
 * O_CLOEXEC and nothing more (never created, never chmod'ed: the node's
 * permissions decide), and mapped whole, once: its capacity in whole align
 * units, MAP_SHARED_VALIDATE | MAP_SYNC where the kernel offers it (stores
 * durable once flushed from the CPU caches), else MAP_SHARED. The kernel
 * refuses a device-DAX mapping whose start or length is not a multiple of
 * the device's align, so extents are carved from that one mapping instead,
 * first fit in align units, and given back to it when freed. They are
 * zeroed by hand: the device keeps what its last user wrote. A fork child
 * shares the parent's mapping and a copy of its free spans: carving from
 * them would hand both processes the same memory, so a child carves
 * nothing from a device its parent had mapped.
 *
 * The space map of a device (devdax_impl.h) is shared with its persistent
 * regions (devdax_region.c): the directory's area at its start and every
 * region of the directory are never carved, and the map follows the
 * directory when another process changes it (noticed by its generation
 * before each carve). A directory that fails its checks stops all carving
 * from the device: its regions' places are unknown.
 */
#include "provider/devdax_impl.h"
#include "provider/provider_impl.h"
#include "os/vm.h"
#include "units.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_DEVICES = 16 };

pthread_mutex_t devdax_lock = PTHREAD_MUTEX_INITIALIZER;
static devdax_device_t devices[MAX_DEVICES];
static int ndevices;

static size_t round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

size_t devdax_taken(const devdax_device_t *d, size_t len) { return round_up(len, d->dev.align); }

int devdax_lock_byte(const devdax_device_t *d, uint64_t byte, short type, bool wait)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)byte, .l_len = 1};
    int rc;
    while ((rc = fcntl(d->fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl)) != 0 && errno == EINTR)
        ;
    if (rc == 0)
        return 0;
    if (errno == EAGAIN || errno == EACCES)
        return LOCI_EBUSY;
    return loci__fail(LOCI_EIO, "%s: cannot lock %s: %s", d->target->name, d->target->path, strerror(errno));
}

static int open_device(const struct loci_target *tg, devdax_device_t *d)
{
    char sz[32], al[32];
    size_t size = tg->capacity.value / tg->dax_align * tg->dax_align, area = daxdir_area(tg->dax_align);
    int fd = open(tg->path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return loci__fail(errno == EACCES || errno == EPERM ? LOCI_EPERM : LOCI_EIO,
                          "%s: cannot open %s: %s (the device's permissions decide; loci never changes them)",
                          tg->name, tg->path, strerror(errno));
    bool map_sync = true;
    void *p = vm_map_aligned(size, tg->dax_align, fd, MAP_SHARED_VALIDATE | MAP_SYNC);
    if (p == MAP_FAILED && (errno == EOPNOTSUPP || errno == EINVAL)) {
        map_sync = false;
        p = vm_map_aligned(size, tg->dax_align, fd, MAP_SHARED);
    }
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return loci__fail(LOCI_ENOMEM, "%s: mmap of %s (%s, align %s): %s", tg->name, tg->path,
                          units_format_size(size, sz, sizeof sz), units_format_size(tg->dax_align, al, sizeof al),
                          strerror(e));
    }
    /* A device node has no page cache (msync has nothing to do there, and
     * device-DAX has no fsync to call): written back is durable, MAP_SYNC
     * or not. A file standing in for one (tests) needs msync without it. */
    struct stat st;
    bool no_page_cache = map_sync || (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode));
    *d = (devdax_device_t){.target = tg, .fd = fd,
                           .dev = {.base = p, .size = size, .align = tg->dax_align, .map_sync = no_page_cache,
                                   .name = tg->name, .path = tg->path}};
    if (!(d->free = malloc(sizeof *d->free))) {
        vm_unmap(p, size);
        close(fd);
        return loci__fail(LOCI_ENOMEM, "out of memory");
    }
    d->cap = 1;
    if (size > area) /* the directory's area is never carved, directory or not */
        d->free[d->nfree++] = (span_t){area, size - area};
    return 0;
}

/* The directory read again when another process committed a new one since
 * (or it failed its checks before: it may be fixed or wiped now). */
static int refresh(devdax_device_t *d)
{
    if (d->dir && !d->dir_error && daxdir_generation(&d->dev) == d->dir->generation)
        return 0;
    int rc = devdax_lock_byte(d, DEVDAX_DIR_LOCK_BYTE, F_RDLCK, true);
    if (rc == 0) {
        rc = devdax_sync_directory(d);
        devdax_lock_byte(d, DEVDAX_DIR_LOCK_BYTE, F_UNLCK, true);
    }
    return rc;
}

int devdax_device_of(const struct loci_target *tg, devdax_device_t **out)
{
    for (int i = 0; i < ndevices; i++)
        if (devices[i].target == tg) {
            *out = &devices[i];
            return 0;
        }
    if (ndevices == MAX_DEVICES)
        return loci__fail(LOCI_ENOMEM, "%s: more than %d device-DAX targets in use", tg->name, MAX_DEVICES);
    int rc = open_device(tg, &devices[ndevices]);
    if (rc == 0)
        *out = &devices[ndevices++];
    return rc;
}

devdax_device_t *devdax_device_at(const void *addr)
{
    for (int i = 0; i < ndevices; i++) {
        devdax_device_t *d = &devices[i];
        if ((const char *)addr >= d->dev.base && (const char *)addr < d->dev.base + d->dev.size)
            return d;
    }
    return NULL;
}

/* Room for one more span at index i. */
static bool insert_at(devdax_device_t *d, size_t i, span_t s)
{
    span_t *grown = grow_for_one(d->free, d->nfree, &d->cap, sizeof *grown, 16);
    if (!grown)
        return false;
    d->free = grown;
    memmove(&d->free[i + 1], &d->free[i], (d->nfree - i) * sizeof *d->free);
    d->free[i] = s;
    d->nfree++;
    return true;
}

static void remove_at(devdax_device_t *d, size_t i)
{
    memmove(&d->free[i], &d->free[i + 1], (d->nfree - i - 1) * sizeof *d->free);
    d->nfree--;
}

/* Take [off, off+len) out of the free span that holds all of it; false
 * when none does (or out of memory). */
static bool take(devdax_device_t *d, size_t off, size_t len)
{
    for (size_t i = 0; i < d->nfree; i++) {
        span_t s = d->free[i];
        if (off < s.off || off + len > s.off + s.len)
            continue;
        size_t head = off - s.off, tail = s.len - head - len;
        if (head && tail && !insert_at(d, i + 1, (span_t){off + len, tail}))
            return false;
        if (head)
            d->free[i].len = head;
        else if (tail)
            d->free[i] = (span_t){off + len, tail};
        else
            remove_at(d, i);
        return true;
    }
    return false;
}

bool devdax_carve(devdax_device_t *d, size_t len, size_t align, bool from_top, size_t *off)
{
    uintptr_t base = (uintptr_t)d->dev.base, mask = (uintptr_t)(align < d->dev.align ? d->dev.align : align) - 1;
    for (size_t k = 0; k < d->nfree; k++) {
        span_t s = d->free[from_top ? d->nfree - 1 - k : k];
        if (s.len < len)
            continue;
        uintptr_t at = from_top ? (base + s.off + s.len - len) & ~mask : (base + s.off + mask) & ~mask;
        size_t start = at - base;
        if (at < base + s.off || start + len > s.off + s.len)
            continue;
        *off = start;
        return take(d, start, len);
    }
    return false;
}

/* Give [off, off+len) back, merged with its neighbours. */
bool devdax_give_back(devdax_device_t *d, size_t off, size_t len)
{
    size_t i = 0;
    while (i < d->nfree && d->free[i].off < off)
        i++;
    bool joins_prev = i > 0 && d->free[i - 1].off + d->free[i - 1].len == off;
    bool joins_next = i < d->nfree && off + len == d->free[i].off;
    if (joins_prev && joins_next) {
        d->free[i - 1].len += len + d->free[i].len;
        remove_at(d, i);
    } else if (joins_prev) {
        d->free[i - 1].len += len;
    } else if (joins_next) {
        d->free[i] = (span_t){off, len + d->free[i].len};
    } else {
        return insert_at(d, i, (span_t){off, len});
    }
    return true;
}

size_t devdax_free_bytes(const devdax_device_t *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nfree; i++)
        n += d->free[i].len;
    return n;
}

static bool same_region(const daxdir_entry_t *a, const daxdir_entry_t *b)
{
    return a->offset == b->offset && a->length == b->length && a->generation == b->generation &&
           strcmp(a->name, b->name) == 0;
}

static bool listed(const daxdir_t *dir, const daxdir_entry_t *e)
{
    for (size_t i = 0; dir && i < dir->n; i++)
        if (same_region(&dir->entries[i], e))
            return true;
    return false;
}

int devdax_sync_directory(devdax_device_t *d)
{
    daxdir_t *now = malloc(sizeof *now);
    if (!now)
        return loci__fail(LOCI_ENOMEM, "out of memory reading the region directory of %s", d->target->path);
    int rc = daxdir_read(&d->dev, now);
    if (rc != 0) {
        free(now);
        return d->dir_error = rc;
    }
    for (size_t i = 0; i < now->n; i++) { /* made since: take their space */
        const daxdir_entry_t *e = &now->entries[i];
        if (!listed(d->dir, e) && !take(d, e->offset, devdax_taken(d, e->length)))
            loci__log(LOCI_LOG_ERROR, "%s: region \"%s\", made on %s by another process, overlaps memory this "
                                      "process allocated there", d->target->name, e->name, d->target->path);
    }
    for (size_t i = 0; d->dir && i < d->dir->n; i++) { /* removed since: their space is free */
        const daxdir_entry_t *e = &d->dir->entries[i];
        size_t taken = devdax_taken(d, e->length);
        if (!listed(now, e) && (vm_protect_readwrite(d->dev.base + e->offset, taken) != 0 ||
                                !devdax_give_back(d, e->offset, taken)))
            loci__log(LOCI_LOG_WARN, "%s: the space of removed region \"%s\" is lost to this process",
                      d->target->name, e->name);
    }
    free(d->dir);
    d->dir = now;
    d->dir_error = 0;
    return 0;
}

int devdax_parents_refusal(const devdax_device_t *d)
{
    return loci__fail(LOCI_ENOMEM, "%s: %s was mapped by the parent before this process was forked: its free "
                                   "space is the parent's to carve", d->target->name, d->target->path);
}

static void *devdax_alloc(const place_t *place, size_t size, size_t alignment)
{
    const struct loci_target *tg = place->target;
    char want[32], have[32];
    size_t len = round_up(size, tg->dax_align), off = 0;
    devdax_device_t *d = NULL;
    pthread_mutex_lock(&devdax_lock);
    int rc = devdax_device_of(tg, &d);
    if (rc == 0 && d->parents)
        rc = devdax_parents_refusal(d);
    else if (rc == 0 && len > d->dev.size)
        rc = loci__fail(LOCI_ENOMEM, "%s: %s asked, but %s holds only %s", tg->name,
                        units_format_size(len, want, sizeof want), tg->path, units_format_size(d->dev.size, have, sizeof have));
    else if (rc == 0 && (rc = refresh(d)) != 0)
        ; /* the directory said why */
    else if (rc == 0 && !devdax_carve(d, len, alignment, false, &off))
        rc = loci__fail(LOCI_ENOMEM, "%s: no free %s in %s (%s free in pieces)", tg->name,
                        units_format_size(len, want, sizeof want), tg->path,
                        units_format_size(devdax_free_bytes(d), have, sizeof have));
    pthread_mutex_unlock(&devdax_lock);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    memset(d->dev.base + off, 0, len);
    return d->dev.base + off;
}

static int devdax_free(void *addr, size_t size)
{
    pthread_mutex_lock(&devdax_lock);
    devdax_device_t *d = devdax_device_at(addr);
    int rc = !d ? loci__fail(LOCI_EINVAL, "devdax: %p is no extent of a device-DAX target", addr)
             : d->parents || devdax_give_back(d, (size_t)((char *)addr - d->dev.base), devdax_taken(d, size))
                 ? 0
                 : loci__fail(LOCI_ENOMEM, "devdax: out of memory freeing %p: its space is lost until exit", addr);
    pthread_mutex_unlock(&devdax_lock);
    return rc;
}

/* Free space of the device; its whole capacity but the directory's area
 * before its first use. */
static int devdax_available(const place_t *place, uint64_t *bytes)
{
    const struct loci_target *tg = place->target;
    uint64_t size = tg->capacity.value / tg->dax_align * tg->dax_align, area = daxdir_area(tg->dax_align);
    *bytes = size > area ? size - area : 0;
    pthread_mutex_lock(&devdax_lock);
    for (int i = 0; i < ndevices; i++)
        if (devices[i].target == tg)
            *bytes = devdax_free_bytes(&devices[i]);
    pthread_mutex_unlock(&devdax_lock);
    return 0;
}

static bool devdax_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_CHILD)
        for (int i = 0; i < ndevices; i++)
            devices[i].parents = true;
    loci__fork_mutex(&devdax_lock, phase);
    return false;
}

const provider_ops_t provider_devdax = {
    .name = "devdax",
    .alloc = devdax_alloc,
    .free = devdax_free,
    .available = devdax_available,
    .fork = devdax_fork,
};
