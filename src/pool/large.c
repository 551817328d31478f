/*
 * Big blocks (above POOL_SMALL_MAX, or alignments no size class gives).
 *
 * Up to POOL_CARVE_MAX (slice-rounded, aligned to at most a slice, on
 * providers without a file group) a block is a run of slices carved from a
 * segment (segment.c): segments are mapped and placed 4 MiB at a time, and a
 * freed block's slices stay resident there, retained as dirty slices, so a
 * block of any size carved there later neither maps nor faults. This is
 * glibc's reuse of its heap, for memory placed by policy.
 *
 * Larger blocks get a dedicated extent: one provider extent per block,
 * page-rounded, aligned to at least a slice (an arena's: 2 MiB-rounded and
 * aligned, see pool__extent_align).
 *
 * A freed dedicated extent is not unmapped at once: within the retention
 * policy (retain.c: a purge delay, the budget, no file group) it waits in
 * its heap's extent cache (extent_cache.c) for a big allocation of about
 * its size. A freed carved block stays with the thread that freed it (its
 * cache, tcache.c), or its slices stay dirty (retain.c).
 */
#include "pool/pool_internal.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


/* --- blocks ------------------------------------------------------------------- */

/* A new block's pages (populated where the heap is strict, so a full node
 * answers ENOMEM now) and descriptor d, into the page map. */
static int block_enter(pool_heap_t *h, large_t *d, void *p, size_t bytes)
{
    int rc = h->strict && h->ops->populate ? h->ops->populate(p, bytes) : 0;
    if (rc != 0)
        return rc;
    atomic_store_explicit(&d->live, 1, memory_order_relaxed);
    d->base = (uintptr_t)p;
    d->size = bytes;
    d->heap = h;
    return (uintptr_t)d >> PM_ADDR_BITS ? loci__fail(LOCI_ENOMEM, "block metadata beyond 48-bit addresses")
                                        : pool__pagemap_set(d->base, bytes, (uintptr_t)d | DESC_LARGE, 0, 0);
}

static bool carvable(const pool_heap_t *h, size_t bytes, size_t align)
{
    return bytes <= POOL_CARVE_MAX && align <= SLICE_SIZE && !h->ops->file;
}

/* A block of `bytes` (page-rounded) on slices of a segment: a dirty run
 * first (resident: no fault; purged first for calloc). */
static void *carve(pool_heap_t *h, size_t bytes, bool zero)
{
    unsigned n = (unsigned)((bytes + SLICE_SIZE - 1) >> SLICE_SHIFT), first = 0, ndirty = 0;
    size_t span = (size_t)n * SLICE_SIZE;
    /* a failed charge first gives back what the heap retains, then retries */
    if (pool__charge(h, span) != 0 && !(pool__reclaim(h, -1) && pool__charge(h, span) == 0))
        return NULL;
    large_t *d = calloc(1, sizeof *d);
    if (!d) {
        pool__uncharge(h, span);
        return loci__fail_null(LOCI_ENOMEM, "out of memory for block metadata");
    }
    pthread_mutex_lock(&h->lock);
    segment_t *g = pool__slices_take(h, n, &first, &ndirty);
    pthread_mutex_unlock(&h->lock);
    if (!g && pool__reclaim(h, -1)) { /* the provider is full (a GPU): give back what we retain, retry */
        pthread_mutex_lock(&h->lock);
        g = pool__slices_take(h, n, &first, &ndirty);
        pthread_mutex_unlock(&h->lock);
    }
    if (!g) {
        free(d);
        pool__uncharge(h, span);
        return NULL;
    }
    void *p = (void *)(g->base + (uintptr_t)first * SLICE_SIZE);
    int rc = 0;
    if (zero && (ndirty || !h->purgeable)) /* stale bytes of an earlier block (unpurged where pinned) */
        rc = h->purgeable ? h->ops->purge(p, span) : pool__zero(h->ops, p, bytes);
    d->seg = g;
    d->first = (uint8_t)first;
    d->nslices = (uint8_t)n;
    if (rc == 0)
        rc = block_enter(h, d, p, bytes);
    if (rc != 0) {
        free(d);
        pool__slices_release(h, g, first, n, 0);
        pool__uncharge(h, span);
        errno = loci__errno_of(rc);
        return NULL;
    }
    pthread_mutex_lock(&h->lock);
    pool__large_link(h, d);
    pool__committed_add(h, (int64_t)span);
    pthread_mutex_unlock(&h->lock);
    pool__held_add(h, NULL, (int64_t)bytes, 1);
    pool__note_in_use(h);
    return p;
}

/* A carved block this thread freed lately, of the same slice count (its
 * thread cache, tcache.c): no lock, no charge, no fault. When the thread
 * keeps only blocks of other sizes, they become dirty slices instead, for
 * the carving that follows to take (a block of any size that fits). */
static void *carved_again(pool_heap_t *h, size_t bytes, bool zero)
{
    tcache_t *tc = pool__tcache_mine(h);
    if (!tc || !atomic_load_explicit(&tc->nbig, memory_order_relaxed))
        return NULL;
    /* calloc takes none: their bytes are stale, and purged dirty slices read as zeros */
    large_t *d = zero ? NULL : pool__tcache_big_take(tc, (unsigned)((bytes + SLICE_SIZE - 1) >> SLICE_SHIFT), bytes);
    if (!d) {
        pool__free_carved_kept(h, tc);
        return NULL;
    }
    atomic_store_explicit(&d->live, 1, memory_order_relaxed);
    if (pool__pagemap_set(d->base, bytes, (uintptr_t)d | DESC_LARGE, 0, 0) != 0) { /* its leaf exists: never */
        atomic_store_explicit(&d->live, 0, memory_order_relaxed);
        pool__held_add(h, NULL, -(int64_t)bytes, -1);
        pool__free_carved(h, d);
        return NULL;
    }
    return (void *)d->base;
}

/* A cached extent becomes block d again: charged again if purged (and
 * populated if strict), zeroed if asked, into the page map. Fails (and
 * unmaps it) like a new extent would. */
static void *reuse(pool_heap_t *h, large_t *d, bool zero)
{
    int rc = 0;
    void *p = (void *)d->base;
    bool charged = !d->purged;
    if (d->purged) {
        rc = pool__charge(h, d->size);
        if (rc == 0) {
            charged = true;
            pool__committed_add(h, (int64_t)d->size);
            if (h->strict && h->ops->populate)
                rc = h->ops->populate(p, d->size);
        }
    } else if (zero) {
        if (h->purgeable)
            rc = h->ops->purge(p, d->size); /* reads as zeros, faults back on use */
        else
            rc = pool__zero(h->ops, p, d->size);
    }
    if (rc == 0) {
        atomic_store_explicit(&d->live, 1, memory_order_relaxed);
        rc = pool__pagemap_set(d->base, d->size, (uintptr_t)d | DESC_LARGE, 0, 0);
    }
    if (rc != 0) {
        atomic_store_explicit(&d->live, 0, memory_order_relaxed);
        pthread_mutex_lock(&h->lock);
        if (charged) {
            pool__uncharge(h, d->size);
            pool__committed_add(h, -(int64_t)d->size);
        }
        pool__mapped_add(h, -(int64_t)d->size, -1);
        const provider_ops_t *ops = h->ops;
        pthread_mutex_unlock(&h->lock);
        pool__extent_unmap(ops, d);
        errno = loci__errno_of(rc);
        return NULL;
    }
    pthread_mutex_lock(&h->lock);
    pool__large_link(h, d);
    pthread_mutex_unlock(&h->lock);
    pool__held_add(h, NULL, (int64_t)d->size, 1);
    pool__note_in_use(h);
    return p;
}

void *pool__alloc_large(pool_heap_t *h, size_t size, size_t align, bool zero)
{
    size_t page = pool_page_size;
    if (size > SIZE_MAX - page - POOL_HUGE_SIZE)
        return loci__fail_null(LOCI_ENOMEM, "allocation of %zu bytes: too large", size);
    size_t bytes = (size + page - 1) & ~(page - 1);
    if (bytes == 0)
        bytes = page;
    if (carvable(h, bytes, align)) {
        void *p = carved_again(h, bytes, zero);
        return p ? p : carve(h, bytes, zero);
    }
    align = pool__extent_align(h, align);
    bytes = pool__extent_size(h, bytes);
    if (atomic_load_explicit(&h->lc_count, memory_order_relaxed)) {
        pthread_mutex_lock(&h->lock);
        large_t *d = pool__lcache_take(h, bytes, align);
        pthread_mutex_unlock(&h->lock);
        if (d) {
            void *p = reuse(h, d, zero);
            if (p)
                return p;
        }
    }
    /* a failed charge first gives back what the heap retains, then retries */
    if (pool__charge(h, bytes) != 0 && !(pool__reclaim(h, -1) && pool__charge(h, bytes) == 0))
        return NULL;
    void *p = h->ops->alloc(&h->place, bytes, align);
    if (!p && pool__reclaim(h, -1)) /* out of address space or mappings: make room */
        p = h->ops->alloc(&h->place, bytes, align);
    if (!p) {
        pool__uncharge(h, bytes);
        return NULL;
    }
    large_t *d = calloc(1, sizeof *d);
    int rc = d ? block_enter(h, d, p, bytes) : loci__fail(LOCI_ENOMEM, "out of memory for block metadata");
    if (rc != 0) {
        free(d);
        h->ops->free(p, bytes);
        pool__uncharge(h, bytes);
        errno = loci__errno_of(rc);
        return NULL;
    }
    pthread_mutex_lock(&h->lock);
    pool__large_link(h, d);
    pool__committed_add(h, (int64_t)bytes);
    pool__mapped_add(h, (int64_t)bytes, 1);
    pthread_mutex_unlock(&h->lock);
    pool__held_add(h, NULL, (int64_t)bytes, 1);
    pool__note_in_use(h);
    return p;
}

int pool__free_large(large_t *d, void *p)
{
    pool_heap_t *h = d->heap;
    size_t bytes = d->size;
    unsigned delay = atomic_load_explicit(&pool__purge_delay_ms, memory_order_relaxed);
    pool__pagemap_clear(d->base, bytes);
    if (d->seg) {
        if (!delay || !pool__tcache_big_put(h, d)) {
            pool__free_carved(h, d);
            pool__held_add(h, NULL, -(int64_t)bytes, -1);
            atomic_fetch_add_explicit(&h->frees, 1, memory_order_relaxed);
            pool__retain_trim(h, 2);
        }
        pool__maybe_decay(h);
        return 0;
    }
    /* Unlinked and cached, or uncharged, in one step, with the provider read
     * there too: pool_heap_rebase (under this lock) then sees the block
     * either wholly in the heap or wholly out of it. */
    pthread_mutex_lock(&h->lock);
    pool__large_unlink(h, d);
    const provider_ops_t *ops = h->ops;
    int rc = 0;
    if (delay && !ops->file && bytes <= pool__retain_budget(h)) {
        large_t *old = pool__lcache_put(h, d, clock_coarse_ms());
        pthread_mutex_unlock(&h->lock);
        if (old)
            pool__extent_unmap(ops, old);
    } else {
        pool__uncharge(h, bytes);
        pool__committed_add(h, -(int64_t)bytes);
        pool__mapped_add(h, -(int64_t)bytes, -1);
        pthread_mutex_unlock(&h->lock);
        rc = ops->free(p, bytes);
        free(d);
    }
    pool__held_add(h, NULL, -(int64_t)bytes, -1);
    atomic_fetch_add_explicit(&h->frees, 1, memory_order_relaxed);
    pool__retain_trim(h, 2);
    pool__maybe_decay(h);
    return rc;
}

void pool__larges_release(pool_heap_t *h)
{
    large_t *lists[3] = {h->larges, h->lc_res, h->lc_pur};
    for (int i = 0; i < 3; i++) {
        large_t *d = lists[i];
        while (d) {
            large_t *next = d->next;
            if (i == 0) /* live blocks are still in the page map */
                pool__pagemap_clear(d->base, d->size);
            if (d->seg) { /* carved (live): its segment goes with the segments */
                pool__uncharge(h, (size_t)d->nslices * SLICE_SIZE);
                pool__committed_add(h, -(int64_t)d->nslices * (int64_t)SLICE_SIZE);
                free(d);
                d = next;
                continue;
            }
            h->ops->free((void *)d->base, d->size);
            if (i < 2) { /* purged cached ones are no longer charged */
                pool__uncharge(h, d->size);
                pool__committed_add(h, -(int64_t)d->size);
            }
            pool__mapped_add(h, -(int64_t)d->size, -1);
            free(d);
            d = next;
        }
    }
    h->larges = h->lc_res = h->lc_res_tail = h->lc_pur = h->lc_pur_tail = NULL;
    memset(h->lc_bin, 0, sizeof h->lc_bin);
    atomic_store(&h->lc_count, 0);
}
