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
 */
#include "provider/provider_impl.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A free range of a device, as offsets into its mapping. */
typedef struct {
    size_t off, len;
} span_t;

typedef struct {
    const struct loci_target *target;
    int fd;
    char *base;
    size_t size;   /* of the mapping: whole align units */
    span_t *free;  /* sorted by offset, never adjacent */
    size_t nfree, cap;
    bool parents;  /* mapped before this process was forked: the parent carves it */
} device_t;

enum { MAX_DEVICES = 16 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static device_t devices[MAX_DEVICES];
static int ndevices;

static size_t round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

static int open_device(const struct loci_target *tg, device_t *d)
{
    char sz[32], al[32];
    size_t size = tg->capacity.value / tg->dax_align * tg->dax_align;
    int fd = open(tg->path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return loci__fail(errno == EACCES || errno == EPERM ? LOCI_EPERM : LOCI_EIO,
                          "%s: cannot open %s: %s (the device's permissions decide; loci never changes them)",
                          tg->name, tg->path, strerror(errno));
    void *p = vm_map_aligned(size, tg->dax_align, fd, MAP_SHARED_VALIDATE | MAP_SYNC);
    if (p == MAP_FAILED && (errno == EOPNOTSUPP || errno == EINVAL))
        p = vm_map_aligned(size, tg->dax_align, fd, MAP_SHARED);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return loci__fail(LOCI_ENOMEM, "%s: mmap of %s (%s, align %s): %s", tg->name, tg->path,
                          units_format_size(size, sz, sizeof sz), units_format_size(tg->dax_align, al, sizeof al),
                          strerror(e));
    }
    *d = (device_t){.target = tg, .fd = fd, .base = p, .size = size};
    if (!(d->free = malloc(sizeof *d->free))) {
        vm_unmap(p, size);
        close(fd);
        return loci__fail(LOCI_ENOMEM, "out of memory");
    }
    d->free[0] = (span_t){0, size};
    d->nfree = d->cap = 1;
    return 0;
}

/* The device of tg, opened and mapped now if it was not. */
static int device_of(const struct loci_target *tg, device_t **out)
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

/* Room for one more span at index i. */
static bool insert_at(device_t *d, size_t i, span_t s)
{
    if (d->nfree == d->cap) {
        span_t *n = realloc(d->free, 2 * d->cap * sizeof *n);
        if (!n)
            return false;
        d->free = n;
        d->cap *= 2;
    }
    memmove(&d->free[i + 1], &d->free[i], (d->nfree - i) * sizeof *d->free);
    d->free[i] = s;
    d->nfree++;
    return true;
}

static void remove_at(device_t *d, size_t i)
{
    memmove(&d->free[i], &d->free[i + 1], (d->nfree - i - 1) * sizeof *d->free);
    d->nfree--;
}

/* First fit: the offset of `len` bytes at an address aligned to `align`,
 * taken from the free spans; false when none fits. */
static bool carve(device_t *d, size_t len, size_t align, size_t *off)
{
    for (size_t i = 0; i < d->nfree; i++) {
        span_t s = d->free[i];
        uintptr_t at = ((uintptr_t)d->base + s.off + align - 1) & ~(uintptr_t)(align - 1);
        size_t start = at - (uintptr_t)d->base, head = start - s.off;
        if (head > s.len || s.len - head < len)
            continue;
        size_t tail = s.len - head - len;
        if (head && tail && !insert_at(d, i + 1, (span_t){start + len, tail}))
            return false;
        if (head)
            d->free[i].len = head;
        else if (tail)
            d->free[i] = (span_t){start + len, tail};
        else
            remove_at(d, i);
        *off = start;
        return true;
    }
    return false;
}

/* Give [off, off+len) back, merged with its neighbours. */
static bool give_back(device_t *d, size_t off, size_t len)
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

static size_t free_bytes(const device_t *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nfree; i++)
        n += d->free[i].len;
    return n;
}

static void *devdax_alloc(const place_t *place, size_t size, size_t alignment)
{
    const struct loci_target *tg = place->target;
    char want[32], have[32];
    size_t len = round_up(size, tg->dax_align), off = 0;
    device_t *d = NULL;
    pthread_mutex_lock(&lock);
    int rc = device_of(tg, &d);
    if (rc == 0 && d->parents)
        rc = loci__fail(LOCI_ENOMEM, "%s: %s was mapped by the parent before this process was forked: its free "
                                     "space is the parent's to carve", tg->name, tg->path);
    else if (rc == 0 && len > d->size)
        rc = loci__fail(LOCI_ENOMEM, "%s: %s asked, but %s holds only %s", tg->name,
                        units_format_size(len, want, sizeof want), tg->path, units_format_size(d->size, have, sizeof have));
    else if (rc == 0 && !carve(d, len, alignment > tg->dax_align ? alignment : tg->dax_align, &off))
        rc = loci__fail(LOCI_ENOMEM, "%s: no free %s in %s (%s free in pieces)", tg->name,
                        units_format_size(len, want, sizeof want), tg->path,
                        units_format_size(free_bytes(d), have, sizeof have));
    pthread_mutex_unlock(&lock);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    memset(d->base + off, 0, len);
    return d->base + off;
}

static int devdax_free(void *addr, size_t size)
{
    pthread_mutex_lock(&lock);
    int rc = loci__fail(LOCI_EINVAL, "devdax: %p is no extent of a device-DAX target", addr);
    for (int i = 0; i < ndevices; i++) {
        device_t *d = &devices[i];
        if ((char *)addr < d->base || (char *)addr >= d->base + d->size)
            continue;
        size_t off = (size_t)((char *)addr - d->base);
        rc = d->parents || give_back(d, off, round_up(size, d->target->dax_align))
                 ? 0
                 : loci__fail(LOCI_ENOMEM, "devdax: out of memory freeing %p: its space is lost until exit", addr);
        break;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Free space of the device; its whole capacity before its first use. */
static int devdax_available(const place_t *place, uint64_t *bytes)
{
    const struct loci_target *tg = place->target;
    *bytes = tg->capacity.value / tg->dax_align * tg->dax_align;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ndevices; i++)
        if (devices[i].target == tg)
            *bytes = free_bytes(&devices[i]);
    pthread_mutex_unlock(&lock);
    return 0;
}

static void devdax_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_CHILD)
        for (int i = 0; i < ndevices; i++)
            devices[i].parents = true;
    loci__fork_mutex(&lock, phase);
}

const provider_ops_t provider_devdax = {
    .name = "devdax",
    .alloc = devdax_alloc,
    .free = devdax_free,
    .available = devdax_available,
    .fork = devdax_fork,
};
