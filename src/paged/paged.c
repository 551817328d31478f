/*
 * paged provider (mode=paged): anonymous memory whose pages loci fills from a
 * store on fault, through its own DRAM chunk cache (chunk_cache.c) instead of
 * the kernel's page cache — or, where the system gives shared memory huge
 * pages, a memory file filled in place (shared_backing.c). Each extent is a region with its own store: a
 * nameless O_DIRECT file in the tier directory, its space reserved at once so
 * that writing back never meets a full disk; a persistent region's store is
 * its directory of chunk files (chunkstore/chunk_files.c, paged/paged.h), or the flat file
 * of a region made by mode=mmap. Regions of the same target, cache size,
 * chunk size and dirty limits (write_behind.c) share one cache,
 * made with the first of them and freed with the last.
 */
#include "paged/paged.h"
#include "paged/paged_internal.h"
#include "chunkstore/rados_objects.h"
#include "filetier/filetier.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_CACHE ((size_t)64 << 20) /* NVMalloc's FUSE cache */
#define DEFAULT_CHUNK ((size_t)256 << 10) /* NVMalloc's chunk */
#define MAX_CHUNK ((size_t)64 << 20)
#define MIN_CHUNKS 8 /* one instruction may touch 4 pages (source and target across page ends), per thread */
#define DEFAULT_DIRTY_LIMIT 50      /* % of a cache's chunks dirty at most: a writer dirtying one more waits */
#define DEFAULT_DIRTY_BACKGROUND 10 /* % dirty above which the write-behind runs (the kernel's dirty_background_ratio) */

typedef struct cache_ref {
    chunk_cache_t *cache;
    unsigned regions;
    struct cache_ref *next;
} cache_ref_t;

/* The caches, under one lock (the regions are regions.c's). */
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_ref_t *caches;
static loci_cache_stats_t retired; /* counters of the caches gone */
static _Atomic bool whole_chunks;

/* ---- caches ---------------------------------------------------------------- */

/* The shape of cache a place asks for, checked: its sizes from the intent
 * (or the defaults), its dirty limits from the intent, else the target's
 * [target X] section, else the defaults (a background threshold not given
 * stays below the limit). */
static int cache_shape_of(const place_t *place, cache_shape_t *shape)
{
    char b[32], c[32];
    size_t chunk = place->chunk ? (size_t)place->chunk : DEFAULT_CHUNK;
    size_t budget = place->cache ? (size_t)place->cache : DEFAULT_CACHE;
    if (chunk % vm_page_size() != 0 || chunk > MAX_CHUNK)
        return loci__fail(LOCI_EINVAL, "mode=paged: chunk=%s must be a multiple of the page size (%zu) and at "
                                       "most %s", units_format_size(chunk, c, sizeof c), vm_page_size(),
                          units_format_size(MAX_CHUNK, b, sizeof b));
    budget -= budget % chunk;
    if (budget / chunk < MIN_CHUNKS)
        return loci__fail(LOCI_EINVAL, "mode=paged: cache=%s holds %zu chunks of %s; give it at least %d "
                                       "(cache >= %d x chunk)", units_format_size(place->cache ? place->cache : DEFAULT_CACHE, b, sizeof b),
                          budget / chunk, units_format_size(chunk, c, sizeof c), MIN_CHUNKS, MIN_CHUNKS);
    const struct loci_target *t = place->target;
    unsigned limit = place->dirty_limit ? place->dirty_limit : t->dirty_limit ? t->dirty_limit : DEFAULT_DIRTY_LIMIT;
    unsigned bg = place->dirty_background ? place->dirty_background : t->dirty_background;
    if (limit == 0 || limit > 100 || bg > 100)
        return loci__fail(LOCI_EINVAL, "mode=paged: dirty_limit=%u%%, dirty_background=%u%%: each must be 1%% to 100%% "
                                       "of the cache", limit, bg);
    if (bg == 0)
        bg = DEFAULT_DIRTY_BACKGROUND < limit / 2 ? DEFAULT_DIRTY_BACKGROUND : (limit / 2 ? limit / 2 : 1);
    else if (bg >= limit)
        return loci__fail(LOCI_EINVAL, "mode=paged: dirty_background=%u%% must be below dirty_limit=%u%% (write-behind "
                                       "starts at the first, writers wait at the second), e.g. %u%%", bg, limit,
                          limit / 4 ? limit / 4 : 1);
    *shape = (cache_shape_t){budget, chunk, limit, bg, 1};
    return 0;
}

/* The cache of that shape for the place's target, made when missing (lock held). */
static chunk_cache_t *cache_get(const place_t *place, const cache_shape_t *shape, int uffd)
{
    for (cache_ref_t *c = caches; c; c = c->next)
        if (cache_target(c->cache) == place->target && memcmp(cache_shape(c->cache), shape, sizeof *shape) == 0) {
            c->regions++;
            return c->cache;
        }
    cache_ref_t *c = malloc(sizeof *c);
    if (!c)
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating a chunk cache");
    c->cache = cache_create(place->target, shape, uffd, paged_uffd_moves(), atomic_load(&whole_chunks));
    if (!c->cache) {
        free(c);
        return NULL;
    }
    c->regions = 1;
    c->next = caches;
    caches = c;
    return c->cache;
}

static void cache_put(chunk_cache_t *cache)
{
    for (cache_ref_t **p = &caches; *p; p = &(*p)->next)
        if ((*p)->cache == cache) {
            if (--(*p)->regions > 0)
                return;
            cache_ref_t *c = *p;
            *p = c->next;
            cache_stats(cache, &retired); /* its history stays in the totals */
            retired.cache_bytes -= cache_shape(cache)->budget;
            cache_destroy(cache);
            free(c);
            return;
        }
}

/* ---- regions ---------------------------------------------------------------- */

/* A child of fork() has none of the regions (MADV_DONTFORK) nor the caches'
 * threads: it starts with no cache (the parent's are left, unreachable). */
static void reset_in_child(void)
{
    pthread_mutex_init(&caches_lock, NULL);
    caches = NULL;
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, reset_in_child); }

/* The region of an extent the caller owns (it cannot go away meanwhile). */
static paged_region_t *owned(void *addr, const char *op)
{
    paged_region_t *r = paged_region_find((uintptr_t)addr);
    if (!r)
        loci__fail(LOCI_EINVAL, "paged: %s of %p, which is no paged memory", op, addr);
    return r;
}

static void region_free(paged_region_t *r)
{
    backing_close(r);
    if (r->store)
        r->store->ops->close(r->store);
    free(r->fresh);
    free(r);
}

/* A region of `size` bytes over `store` (taken over), unmapped yet.
 * `named`: a persistent region, whose chunks may hold data (unless its
 * store was created by this opening). */
static paged_region_t *region_new(chunkstore_t *store, size_t size, size_t chunk, bool named, bool readonly)
{
    uint64_t nchunks = (size + chunk - 1) / chunk, words = (nchunks + 63) / 64;
    named = named && !store->created;
    paged_region_t *r = calloc(1, sizeof *r);
    uint64_t *fresh = named || !r ? NULL : malloc(words * sizeof *fresh);
    if (!r || (!named && !fresh)) {
        store->ops->close(store);
        free(r);
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating a paged region");
    }
    if (fresh) /* nothing written yet: every chunk is zeros */
        memset(fresh, 0xff, words * sizeof *fresh);
    r->size = size;
    r->store = store;
    r->nchunks = nchunks;
    r->fresh = fresh;
    r->readonly = readonly;
    r->mem = -1;
    return r;
}

/* Map `size` bytes paged from `store` (taken over; NULL: it could not be
 * made, the reason told). */
static void *map_region(const place_t *place, chunkstore_t *store, size_t size, size_t alignment, bool named, bool readonly)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    cache_shape_t shape;
    int rc = !store ? LOCI_ENOMEM : cache_shape_of(place, &shape);
    if (rc == 0) /* a store's objects: readahead and write-behind in whole ones */
        shape.unit_chunks = store->unit > shape.chunk ? store->unit / shape.chunk : 1;
    int uffd = rc ? rc : paged_uffd(place->file_mode == FILE_PAGED_ONLY);
    paged_region_t *r = uffd < 0 ? NULL : region_new(store, size, shape.chunk, named, readonly);
    if (!r) {
        if (uffd < 0 && store)
            store->ops->close(store);
        errno = loci__errno_of(uffd < 0 ? uffd : LOCI_ENOMEM);
        return NULL;
    }
    bool shared = backing_shared_for(shape.chunk, paged_uffd_shares());
    void *p = shared ? backing_map_shared(r, size, alignment) : vm_map_aligned(size, alignment, -1, 0);
    rc = p == MAP_FAILED ? loci__fail(LOCI_ENOMEM, "mode=paged: mmap of %zu bytes%s: %s", size,
                                      shared ? " of a memory file" : "", strerror(errno))
                         : 0;
    if (rc == 0) {
        r->base = (uintptr_t)p;
        /* Not inherited (no handler in a child), never huge pages (copied in 4 KiB pages). */
        vm_advise_no_fork_no_huge(p, size);
        if (readonly && vm_protect_readonly(p, size) != 0)
            rc = loci__fail(LOCI_ENOMEM, "mode=paged: mprotect: %s", strerror(errno));
    }
    if (rc == 0)
        rc = shared ? uffd_register_shared(uffd, p, size, !readonly) : uffd_register(uffd, p, size, !readonly);
    if (rc == 0) {
        pthread_mutex_lock(&caches_lock);
        r->cache = cache_get(place, &shape, uffd);
        rc = !r->cache ? LOCI_ENOMEM : paged_region_add(r);
        if (rc != 0 && r->cache)
            cache_put(r->cache);
        pthread_mutex_unlock(&caches_lock);
    }
    if (rc != 0) {
        if (p != MAP_FAILED)
            vm_unmap(p, size);
        region_free(r);
        errno = loci__errno_of(rc);
        return NULL;
    }
    return p;
}

/* ---- provider ops -------------------------------------------------------------- */

/* The store target's connection, or NULL with the reason. */
static jobstore_t *store_of(const place_t *place)
{
    const struct loci_target *t = place->target;
    if (!t->store)
        loci__fail(LOCI_EIO, "%s: %s", t->name,
                   t->unreachable ? t->unreachable : "no cluster behind this store target (an injected topology)");
    return t->store;
}

/* Private chunks of the job's store: shared with nobody (the store is what
 * every node reaches: share through a named region). */
static void *store_alloc(const place_t *place, size_t size, size_t alignment)
{
    if (place->pinned)
        return loci__fail_null(LOCI_EINVAL, "%s: pinned memory cannot live in the store (it leaves DRAM when "
                                            "evicted); drop pinned or choose DRAM", place->target->name);
    cache_shape_t shape;
    int rc = cache_shape_of(place, &shape);
    jobstore_t *rp = rc ? NULL : store_of(place);
    if (!rp) {
        errno = loci__errno_of(rc ? rc : LOCI_EIO);
        return NULL;
    }
    return map_region(place, chunkstore_rados_anonymous(rp, size, shape.chunk, place->object), size, alignment, false,
                      false);
}

void *paged_alloc(const place_t *place, size_t size, size_t alignment)
{
    if (place->target->kind == KIND_STORE)
        return store_alloc(place, size, alignment);
    if (place->shared || place->pinned)
        return loci__fail_null(LOCI_EINVAL, "mode=paged! %s: paged memory is private to the process and leaves "
                                            "DRAM when evicted; use mode=mmap",
                               place->shared ? "with access=node/job/global" : "with pinned");
    int fd = filetier_fits(place->target, size);
    if (fd == 0)
        fd = filetier_create(place->target, O_DIRECT, NULL, 0);
    int rc = fd < 0 ? fd : filetier_reserve(place->target, fd, size);
    if (rc != 0) {
        if (fd >= 0)
            close(fd);
        errno = loci__errno_of(rc);
        return NULL;
    }
    char what[300];
    snprintf(what, sizeof what, "%s store of paged memory", place->target->name);
    return map_region(place, chunkstore_file_open(fd, size, what), size, alignment, false, false);
}

/* The store of a region kept in chunk layout (made so when created here),
 * and the place with the region's own chunk size. */
static chunkstore_t *open_chunked(place_t *place, const char *name, uint64_t *size, unsigned flags)
{
    cache_shape_t shape;
    int rc = cache_shape_of(place, &shape); /* the chunk size asked, checked before a region is made */
    size_t chunk = shape.chunk;
    char path[4096];
    int fd = rc ? rc : filetier_open_chunked(place, name, flags, size, &chunk, path, sizeof path);
    if (fd < 0) {
        errno = loci__errno_of(fd);
        return NULL;
    }
    place->chunk = chunk;
    return chunkstore_chunks_open(fd, path, *size, chunk, flags & LOCI_READONLY);
}

static chunkstore_t *open_flat(const place_t *place, const char *name, uint64_t *size, unsigned flags)
{
    int fd = filetier_open_region(place, name, flags, O_DIRECT, size);
    if (fd < 0) {
        errno = loci__errno_of(fd);
        return NULL;
    }
    char what[300];
    snprintf(what, sizeof what, "%s store of region \"%s\"", place->target->name, name);
    return chunkstore_file_open(fd, *size, what);
}

/* A region of the job's store, with the region's own chunk and object size. */
static chunkstore_t *open_in_store(place_t *place, const char *name, uint64_t *size, unsigned flags)
{
    size_t chunk = place->chunk, object = place->object;
    jobstore_t *rp = store_of(place);
    chunkstore_t *s = rp ? chunkstore_rados_open_region(rp, name, flags, size, &chunk, &object) : NULL;
    if (s) {
        place->chunk = chunk;
        place->object = object;
    }
    else if (!rp)
        errno = EIO;
    return s;
}

/* A persistent region: a flat file where one is (made by mode=mmap, or by an
 * older loci), else in chunk layout, created so. */
void *paged_open(const place_t *place, const char *name, size_t *size, unsigned flags)
{
    if ((flags & LOCI_SHARED) && place->target->kind == KIND_STORE)
        return loci__fail_null(LOCI_ENOTSUP, "region \"%s\": LOCI_SHARED maps one copy for the processes of a node; "
                                             "a store region is shared through the store instead: one writer, and "
                                             "readers on any node opening it LOCI_READONLY", name);
    if (flags & LOCI_SHARED)
        return loci__fail_null(LOCI_ENOTSUP, "region \"%s\": LOCI_SHARED with mode=paged would give every process "
                                             "its own private cache of it, no shared copy; open it LOCI_READONLY "
                                             "alone (many readers, each with its cache), or create it with "
                                             "mode=mmap to share one copy in the kernel's page cache", name);
    place_t at = *place;
    uint64_t sz = *size;
    chunkstore_t *store = place->target->kind == KIND_STORE         ? open_in_store(&at, name, &sz, flags)
                     : filetier_region_layout(place, name) == REGION_FLAT ? open_flat(&at, name, &sz, flags)
                                                                      : open_chunked(&at, name, &sz, flags);
    if (!store)
        return NULL;
    void *p = map_region(&at, store, (size_t)sz, vm_page_size(), true, flags & LOCI_READONLY);
    if (p)
        *size = (size_t)sz;
    return p;
}

int paged_free(void *addr, size_t size)
{
    paged_region_t *r = paged_region_remove((uintptr_t)addr); /* once no fault handler uses it any more */
    if (!r)
        return loci__fail(LOCI_EINVAL, "paged: %p is no paged extent", addr);
    cache_forget(r);
    int rc = vm_unmap(addr, size) == 0 ? 0 : loci__fail(LOCI_EINVAL, "paged: munmap(%p, %zu): %s", addr, size, strerror(errno));
    if (rc == 0)
        vm_unmapped(addr, size);
    pthread_mutex_lock(&caches_lock);
    cache_put(r->cache);
    pthread_mutex_unlock(&caches_lock);
    region_free(r);
    return rc;
}

int paged_purge(void *addr, size_t size)
{
    paged_region_t *r = owned(addr, "purge");
    return r ? cache_purge(r, (uintptr_t)addr, size) : LOCI_EINVAL;
}

int paged_flush(void *addr, size_t size)
{
    paged_region_t *r = owned(addr, "flush");
    if (!r)
        return LOCI_EINVAL;
    int rc = cache_writeback(r, (uintptr_t)addr, size, false);
    if (rc != 0) /* reported with its own message (a sync failing too would replace it): nothing is acknowledged */
        return rc;
    return r->readonly ? 0 : r->store->ops->sync(r->store);
}

int paged_prefetch(void *addr, size_t size)
{
    paged_region_t *r = owned(addr, "prefetch");
    return r ? cache_prefetch(r, (uintptr_t)addr, size) : LOCI_EINVAL;
}

int paged_evict(void *addr, size_t size)
{
    paged_region_t *r = owned(addr, "evict");
    return r ? cache_writeback(r, (uintptr_t)addr, size, true) : LOCI_EINVAL;
}

int paged_available(const place_t *place, uint64_t *bytes)
{
    if (place->target->kind != KIND_STORE)
        return filetier_available(place, bytes);
    uint64_t capacity;
    jobstore_t *rp = store_of(place);
    return rp ? jobstore_space(rp, &capacity, bytes) : LOCI_EIO;
}

int paged_remove(const place_t *place, const char *name)
{
    if (place->target->kind != KIND_STORE)
        return filetier_remove_region(place, name);
    jobstore_t *rp = store_of(place);
    return rp ? chunkstore_rados_remove_region(rp, name) : LOCI_EIO;
}

/* ---- counters -------------------------------------------------------------------- */

int paged_stats(const void *addr, loci_cache_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (addr) { /* held: its cache stays meanwhile */
        paged_region_t *r = paged_region_get((uintptr_t)addr);
        if (!r)
            return LOCI_ENOENT;
        cache_stats(r->cache, out);
        paged_region_put(r);
        return 0;
    }
    pthread_mutex_lock(&caches_lock);
    *out = retired;
    for (cache_ref_t *c = caches; c; c = c->next)
        cache_stats(c->cache, out);
    pthread_mutex_unlock(&caches_lock);
    return 0;
}

void paged_foreach_cache(void (*fn)(const struct loci_target *t, size_t budget, size_t chunk,
                                             const loci_cache_stats_t *st, void *arg),
                                  void *arg)
{
    pthread_mutex_lock(&caches_lock);
    for (cache_ref_t *c = caches; c; c = c->next) {
        loci_cache_stats_t st = {0};
        cache_stats(c->cache, &st);
        fn(cache_target(c->cache), cache_shape(c->cache)->budget, cache_shape(c->cache)->chunk, &st, arg);
    }
    pthread_mutex_unlock(&caches_lock);
}

bool paged_whole_chunks(bool on) { return atomic_exchange(&whole_chunks, on); }

/* ---- a region as a checkpoint takes it (paged/paged.h) ------------------------------------ */

int paged_chunks(void *base, region_chunks_t *out)
{
    *out = (region_chunks_t){.dirfd = -1};
    paged_region_t *r = paged_region_find((uintptr_t)base); /* the caller's open region: it stays */
    if (!r)
        return loci__fail(LOCI_EINVAL, "%p is no paged memory", base);
    int rc = paged_flush((void *)r->base, r->size);
    if (rc != 0)
        return rc;
    int dirfd = chunkstore_chunks_dir(r->store), fd = dirfd < 0 ? -1 : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (dirfd >= 0 && fd < 0)
        return loci__fail(LOCI_EIO, "paged_chunks: dup of a region's directory: %s", strerror(errno));
    *out = (region_chunks_t){r->store, fd, cache_shape(r->cache)->chunk, r->nchunks,
                             fd < 0 ? 0 : chunkstore_chunks_version(r->store)};
    return 0;
}

int paged_reload(void *base)
{
    paged_region_t *r = owned(base, "paged_reload");
    if (!r)
        return LOCI_EINVAL;
    if (chunkstore_chunks_dir(r->store) >= 0)
        chunkstore_chunks_changed(r->store);
    return cache_reload(r);
}
