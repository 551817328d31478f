/*
 * Persistent named regions (NVMalloc's variables with a lifetime beyond the
 * run): "<tier dir>/<name>.region", mapped by the provider the intent's mode
 * picks — a flat file, or with mode=paged a directory of chunk files, which
 * only the paged provider opens (provider_for_region) — or, on a persistent
 * device-DAX target, an entry of the device's region directory
 * (provider_devdax_region). Names are plain file
 * names, checked here before any path is made; the providers check the
 * directory and the files (filetier/filetier.c, filetier/chunks.c). The regions open in this
 * process are listed here, so that sync, close, the range calls and the
 * calls that take any loci pointer (src/core/pointer.c) find them by any
 * address inside.
 */
#include "alloc/allocator.h"
#include "region/region.h"
#include "addr_table.h"
#include "units.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct region {
    char name[NVM_NAME_MAX + 1];
    const struct loci_target *target;
    void *base;
    size_t size;
    const provider_ops_t *ops;
    unsigned flags;
} region_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static addr_table_t open_regions; /* of region_t, by base */
_Atomic uintptr_t region__span_lo, region__span_hi;

/* After open_regions changed, under the lock. Its entries are sorted and
 * apart: the first starts lowest, the last ends highest. A reader between
 * the two stores gets one old bound and one new: still around every region
 * open before and after, or (lo past hi) around everything. */
static void update_span(void)
{
    size_t n = open_regions.n;
    const addr_entry_t *last = n ? &open_regions.v[n - 1] : NULL;
    uintptr_t lo = n ? open_regions.v[0].base : 0, hi = last ? last->base + last->size : 0;
    atomic_store_explicit(&region__span_lo, lo, memory_order_relaxed);
    atomic_store_explicit(&region__span_hi, hi, memory_order_relaxed);
}

/* File tiers, the job's store and persistent device-DAX targets (in their
 * region directory) keep named regions; `dirs_only`: file tiers alone (a
 * directory for files: checkpoints). */
static bool holds_regions(const struct loci_target *tg, bool dirs_only)
{
    if (!(tg->flags & LOCI_TARGET_PERSISTENT))
        return false;
    return dirs_only ? tg->path && !tg->dax_align && tg->kind != KIND_STORE : tg->path || tg->kind == KIND_STORE;
}

/* The first candidate of `intent` that holds_regions, placed. */
static int resolve(const char *intent, bool dirs_only, place_t *place)
{
    const char *text = intent && *intent ? intent : "persist";
    loci_allocator_t *a = allocator_get(text);
    if (!a)
        return loci__code_of_errno(errno); /* the resolver said why */
    const resolution_t *r = allocator_res(a);
    int i = 0;
    while (i < r->ncandidates && !holds_regions(r->candidates[i], dirs_only))
        i++;
    if (i == r->ncandidates)
        return dirs_only ? loci__fail(LOCI_EINVAL, "intent \"%s\" places nothing on a file tier (its best target is "
                                                   "%s); checkpoints need a directory: add kind=ssd or set "
                                                   "LOCI_CKPT_DIR", text, r->candidates[0]->name)
                         : loci__fail(LOCI_EINVAL, "intent \"%s\" places nothing on a file tier, store or persistent "
                                                   "device (its best target is %s); a persistent region needs one: "
                                                   "add persist, kind=ssd, kind=pmem or access=job",
                                      text, r->candidates[0]->name);
    allocator_place(r, i, place);
    return 0;
}

int region_resolve_dir(const char *intent, place_t *place) { return resolve(intent, true, place); }

/* The file tier, store or device the intent places on, how, and its provider. */
int region_resolve_filetier(const char *intent, unsigned flags, place_t *place, const provider_ops_t **ops)
{
    int rc = resolve(intent, false, place);
    if (rc != 0)
        return rc;
    /* Shared and read-only openings map the single copy in the page cache;
     * only mode=paged! keeps a private cache (refused for LOCI_SHARED).
     * Regions in chunk layout are paged all the same (provider_for_region). */
    if (place->file_mode == FILE_PAGED && (flags & (LOCI_SHARED | LOCI_READONLY)))
        place->file_mode = FILE_MMAP;
    *ops = provider_for_persistent(place);
    if (!*ops || !(*ops)->file)
        return loci__fail(LOCI_ENOTSUP, "%s cannot hold persistent regions", place->target->name);
    return 0;
}

static region_t *containing(const void *addr) { return addr_table_find(&open_regions, (uintptr_t)addr); }

static int close_region(region_t *r)
{
    int rc = r->flags & LOCI_READONLY ? 0 : r->ops->file->flush(r->base, r->size);
    int f = r->ops->free(r->base, r->size);
    free(r);
    return rc ? rc : f;
}

static void *fail_open(int rc)
{
    errno = loci__errno_of(rc);
    return NULL;
}

void *loci_region_open(const char *name, size_t size, const char *intent, unsigned flags)
{
    int rc = topo_ensure();
    if (rc == 0)
        rc = region_check_name("region", name);
    if (rc != 0)
        return fail_open(rc);
    if (flags & ~(unsigned)(LOCI_CREATE | LOCI_READONLY | LOCI_SHARED))
        return loci__fail_null(LOCI_EINVAL, "region \"%s\": unknown flags 0x%x (LOCI_CREATE, LOCI_READONLY, "
                                            "LOCI_SHARED)", name, flags);
    if ((flags & LOCI_CREATE) && (flags & LOCI_READONLY))
        return loci__fail_null(LOCI_EINVAL, "region \"%s\": LOCI_CREATE with LOCI_READONLY would make a region "
                                            "of zeros nobody can write; create it writable first", name);
    if ((flags & LOCI_CREATE) && size == 0)
        return loci__fail_null(LOCI_EINVAL, "region \"%s\": size 0; creating a region needs its size", name);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX / 2)
        return loci__fail_null(LOCI_EINVAL, "region \"%s\": size %zu is beyond any address space", name, size);
    size = (size + page - 1) & ~(page - 1);
    place_t place;
    const provider_ops_t *ops;
    if ((rc = region_resolve_filetier(intent, flags, &place, &ops)) != 0 ||
        (rc = provider_for_region(&place, name, flags, &ops)) != 0) /* the layout on disk may decide */
        return fail_open(rc);
    uint64_t capacity = place.target->capacity.value;
    if ((flags & LOCI_CREATE) && capacity && size > capacity) {
        char sz[32], cap[32];
        return loci__fail_null(LOCI_ENOSPC, "region \"%s\": %s is more than %s holds in all (%s); choose "
                                            "another tier or a smaller size", name,
                               units_format_size(size, sz, sizeof sz), place.target->name,
                               units_format_size(capacity, cap, sizeof cap));
    }
    region_t *r = calloc(1, sizeof *r);
    if (!r)
        return loci__fail_null(LOCI_ENOMEM, "out of memory opening region \"%s\"", name);
    snprintf(r->name, sizeof r->name, "%s", name);
    pthread_mutex_lock(&lock);
    r->base = ops->file->open(&place, name, &size, flags);
    bool added = false;
    if (r->base) {
        r->target = place.target;
        r->size = size;
        r->ops = ops;
        r->flags = flags;
        added = addr_table_add(&open_regions, (uintptr_t)r->base, size, r);
        update_span();
    }
    pthread_mutex_unlock(&lock);
    void *p = r->base;
    if (p && !added) {
        close_region(r);
        return loci__fail_null(LOCI_ENOMEM, "out of memory opening region \"%s\"", name);
    }
    if (!p)
        free(r);
    return p;
}

/* The open region containing addr, or NULL with a message. */
static region_t *find(const void *addr, const char *op)
{
    pthread_mutex_lock(&lock);
    region_t *r = containing(addr);
    pthread_mutex_unlock(&lock);
    if (!r)
        loci__fail(LOCI_EINVAL, "%s: %p is in no open persistent region", op, addr);
    return r;
}

int loci_region_sync(void *addr)
{
    region_t *r = find(addr, "loci_region_sync");
    if (!r)
        return LOCI_EINVAL;
    return r->flags & LOCI_READONLY ? 0 : r->ops->file->flush(r->base, r->size);
}

int loci_region_close(void *addr)
{
    pthread_mutex_lock(&lock);
    region_t *r = containing(addr);
    if (r) {
        addr_table_remove(&open_regions, (uintptr_t)r->base);
        update_span();
    }
    pthread_mutex_unlock(&lock);
    if (!r)
        return loci__fail(LOCI_EINVAL, "loci_region_close: %p is in no open persistent region", addr);
    return close_region(r);
}

int loci_region_remove(const char *name, const char *intent)
{
    int rc = topo_ensure();
    if (rc == 0)
        rc = region_check_name("region", name);
    place_t place;
    const provider_ops_t *ops;
    if (rc == 0)
        rc = region_resolve_filetier(intent, 0, &place, &ops);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < open_regions.n && rc == 0; i++) {
        const region_t *r = open_regions.v[i].value;
        if (r->target == place.target && strcmp(r->name, name) == 0)
            rc = loci__fail(LOCI_EBUSY, "region \"%s\" is open in this process; loci_region_close it first", name);
    }
    if (rc == 0)
        rc = ops->file->remove(&place, name);
    pthread_mutex_unlock(&lock);
    return rc;
}

size_t loci_region_size(const void *addr)
{
    pthread_mutex_lock(&lock);
    region_t *r = containing(addr);
    size_t size = r ? r->size : 0;
    pthread_mutex_unlock(&lock);
    return size;
}

bool region_of(const void *addr, void **base, size_t *size, const provider_ops_t **ops)
{
    pthread_mutex_lock(&lock);
    region_t *r = containing(addr);
    if (r) {
        *base = r->base;
        *size = r->size;
        *ops = r->ops;
    }
    pthread_mutex_unlock(&lock);
    return r != NULL;
}

const struct loci_target *region_target(const void *addr, char *name)
{
    pthread_mutex_lock(&lock);
    const region_t *r = containing(addr);
    if (r && name)
        memcpy(name, r->name, sizeof r->name);
    const struct loci_target *t = r ? r->target : NULL;
    pthread_mutex_unlock(&lock);
    return t;
}

void region_foreach(void (*fn)(const char *name, void *base, size_t size, unsigned flags,
                                   const provider_ops_t *ops, void *arg),
                        void *arg)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < open_regions.n; i++) {
        const region_t *r = open_regions.v[i].value;
        fn(r->name, r->base, r->size, r->flags, r->ops, arg);
    }
    pthread_mutex_unlock(&lock);
}

void region_fini(void)
{
    pthread_mutex_lock(&lock);
    addr_table_t open = open_regions;
    open_regions = (addr_table_t)ADDR_TABLE_INIT;
    update_span();
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < open.n; i++)
        if (close_region(open.v[i].value) != 0)
            loci__log(LOCI_LOG_WARN, "closing a persistent region at exit: %s", loci_last_error());
    addr_table_clear(&open);
}
