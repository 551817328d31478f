/*
 * The extent cache: freed dedicated extents (large.c) kept for reuse. A
 * freed extent is not unmapped at once: it waits in its heap's cache, still
 * mapped, placed (its policy stays with the mapping) and charged to the
 * target while its pages are resident, but out of the page map, so no
 * pointer resolves into it (pool_heap_of and pool_target_of say NULL, a
 * second free is a foreign pointer). A big allocation first looks there for
 * an extent of its page-rounded size up to 1/8 larger, aligned as asked: no
 * mmap, no munmap, and its pages still resident. The limits follow the
 * retention policy (retain.c, which calls the purges here):
 *  - at most LC_MAX extents per heap: past that the oldest is unmapped;
 *  - resident cached bytes are retained bytes: past the heap's budget the
 *    oldest resident extent (if older than the oldest empty slab) has its
 *    pages purged through the provider; it stays cached, purged, and
 *    uncharged (no longer committed: only mapped), charged again if reused;
 *  - a resident extent unused for the purge delay is purged, and a purged
 *    one unmapped after one more delay;
 *  - nothing is cached with delay 0, on file-backed providers (those with a
 *    file group: there a block's file goes with it), or above the budget;
 *  - pool_heap_collect, a failed charge and heap destruction drop it all.
 * A pinned heap cannot purge: where others purge, it unmaps. calloc purges a
 * resident extent before reusing it (a purged range reads as zeros), or
 * clears it where the heap cannot purge; a strict (bound) heap populates a
 * purged extent again, so a full node still answers ENOMEM at allocation.
 *
 * Lock: the heap lock guards the cache (lists, bins); purges and unmaps run
 * without it (a purged extent is marked busy meanwhile, and h->npurging lets
 * pool_heap_rebase wait for it).
 */
#include "pool/pool_internal.h"

#include <stdlib.h>

#define LC_MAX 128u /* cached extents per heap at most */

/* --- the cache's lists (heap lock held) -------------------------------------- */

static unsigned bin_of(size_t size)
{
    if (size < 4096)
        return 0;
    unsigned b = 63u - (unsigned)__builtin_clzll(size); /* 12 ... 47 */
    unsigned i = (b - 12) * 8 + (unsigned)((size >> (b - 3)) & 7);
    return i < LC_BINS ? i : LC_BINS - 1;
}

static void age_push(large_t **head, large_t **tail, large_t *d) { DLIST_PUSH_T(*head, *tail, d, next, prev); }

static void age_unlink(large_t **head, large_t **tail, large_t *d) { DLIST_UNLINK_T(*head, *tail, d, next, prev); }

static void lc_put(pool_heap_t *h, large_t *d, uint64_t now)
{
    d->purged = 0;
    d->busy = 0;
    d->since = now;
    large_t **bin = &h->lc_bin[bin_of(d->size)];
    DLIST_PUSH(*bin, d, bnext, bprev);
    age_push(&h->lc_res, &h->lc_res_tail, d);
    atomic_fetch_add_explicit(&h->lc_count, 1, memory_order_relaxed);
    pool__retained_add(h, (int64_t)d->size);
}

/* Out of the cache (not busy). */
static void lc_remove(pool_heap_t *h, large_t *d)
{
    large_t **bin = &h->lc_bin[bin_of(d->size)];
    DLIST_UNLINK(*bin, d, bnext, bprev);
    if (d->purged) {
        age_unlink(&h->lc_pur, &h->lc_pur_tail, d);
    } else {
        age_unlink(&h->lc_res, &h->lc_res_tail, d);
        pool__retained_add(h, -(int64_t)d->size);
    }
    atomic_fetch_sub_explicit(&h->lc_count, 1, memory_order_relaxed);
}

large_t *pool__lcache_take(pool_heap_t *h, size_t bytes, size_t align)
{
    size_t most = bytes + bytes / 8;
    unsigned first = bin_of(bytes);
    /* bins are 1/16 to 1/8 wide: the fits lie in this bin and the next two */
    for (unsigned k = first; k < first + 3 && k < LC_BINS; k++) {
        unsigned seen = 0;
        for (large_t *d = h->lc_bin[k]; d && seen < 8; d = d->bnext, seen++) {
            if (d->busy || d->size < bytes || d->size > most || (d->base & (align - 1)))
                continue;
            lc_remove(h, d);
            return d;
        }
    }
    return NULL;
}

/* Out of the cache and of the heap's books; the caller unmaps it with the
 * ops returned, after unlocking. */
static const provider_ops_t *lc_unmap_locked(pool_heap_t *h, large_t *d)
{
    lc_remove(h, d);
    if (!d->purged) { /* purged ones were uncharged then */
        pool__uncharge(h, d->size);
        pool__committed_add(h, -(int64_t)d->size);
    }
    pool__mapped_add(h, -(int64_t)d->size, -1);
    return h->ops;
}

void pool__extent_unmap(const provider_ops_t *ops, large_t *d)
{
    ops->free((void *)d->base, d->size);
    free(d);
}

/* Give back the pages of resident d (not busy), the heap lock held on entry
 * and on return but dropped meanwhile; where the heap cannot purge, or the
 * purge fails, unmap it. */
static void lc_purge_locked(pool_heap_t *h, large_t *d, uint64_t now)
{
    if (!h->purgeable) {
        const provider_ops_t *ops = lc_unmap_locked(h, d);
        pthread_mutex_unlock(&h->lock);
        pool__extent_unmap(ops, d);
        pthread_mutex_lock(&h->lock);
        return;
    }
    d->busy = 1;
    pool__retained_add(h, -(int64_t)d->size); /* no longer resident */
    const provider_ops_t *ops = h->ops;
    atomic_fetch_add_explicit(&h->npurging, 1, memory_order_relaxed);
    pthread_mutex_unlock(&h->lock);
    int rc = ops->purge((void *)d->base, d->size);
    atomic_fetch_sub_explicit(&h->npurging, 1, memory_order_release);
    pthread_mutex_lock(&h->lock);
    d->busy = 0;
    age_unlink(&h->lc_res, &h->lc_res_tail, d);
    d->purged = 1;
    d->since = now;
    age_push(&h->lc_pur, &h->lc_pur_tail, d);
    /* no pages: no longer committed (charged again if reused) */
    pool__uncharge(h, d->size);
    pool__committed_add(h, -(int64_t)d->size);
    atomic_fetch_add_explicit(&h->purges, 1, memory_order_relaxed);
    account_t *a = atomic_load_explicit(&h->acct, memory_order_relaxed);
    if (a)
        atomic_fetch_add_explicit(&a->purges, 1, memory_order_relaxed);
    if (rc != 0) { /* pages in an unknown state: not worth keeping */
        ops = lc_unmap_locked(h, d);
        pthread_mutex_unlock(&h->lock);
        pool__extent_unmap(ops, d);
        pthread_mutex_lock(&h->lock);
    }
}

/* The oldest resident extent that is not busy. */
static large_t *oldest_resident(pool_heap_t *h)
{
    large_t *d = h->lc_res_tail;
    while (d && d->busy)
        d = d->prev;
    return d;
}

large_t *pool__lcache_put(pool_heap_t *h, large_t *d, uint64_t now)
{
    lc_put(h, d, now);
    large_t *old = NULL;
    if (atomic_load_explicit(&h->lc_count, memory_order_relaxed) > LC_MAX) {
        old = h->lc_pur_tail ? h->lc_pur_tail : oldest_resident(h);
        if (old)
            lc_unmap_locked(h, old);
    }
    return old;
}

unsigned pool__lcache_purge_oldest(pool_heap_t *h, uint64_t before)
{
    if (!atomic_load_explicit(&h->lc_count, memory_order_relaxed))
        return 0;
    unsigned n = 0;
    pthread_mutex_lock(&h->lock);
    large_t *d = oldest_resident(h);
    if (d && d->since <= before) {
        lc_purge_locked(h, d, clock_coarse_ms());
        n = 1;
    }
    pthread_mutex_unlock(&h->lock);
    return n;
}

unsigned pool__lcache_decay(pool_heap_t *h, uint64_t now, uint64_t delay, unsigned max)
{
    unsigned n = 0;
    large_t *d;
    pthread_mutex_lock(&h->lock);
    /* purged for a delay: unmapped */
    while (n < max && (d = h->lc_pur_tail) && now > d->since && now - d->since >= delay) {
        const provider_ops_t *ops = lc_unmap_locked(h, d);
        pthread_mutex_unlock(&h->lock);
        pool__extent_unmap(ops, d);
        n++;
        pthread_mutex_lock(&h->lock);
    }
    /* resident and unused for a delay: purged */
    while (n < max && (d = oldest_resident(h)) && now > d->since && now - d->since >= delay) {
        lc_purge_locked(h, d, now);
        n++;
    }
    pthread_mutex_unlock(&h->lock);
    return n;
}

unsigned pool__lcache_drop(pool_heap_t *h)
{
    if (!atomic_load_explicit(&h->lc_count, memory_order_relaxed))
        return 0;
    large_t *gone = NULL;
    unsigned n = 0;
    pthread_mutex_lock(&h->lock);
    const provider_ops_t *ops = h->ops;
    large_t *lists[2] = {h->lc_res, h->lc_pur};
    for (int i = 0; i < 2; i++) {
        for (large_t *d = lists[i], *next; d; d = next) {
            next = d->next;
            if (d->busy) /* being purged: it stays */
                continue;
            lc_unmap_locked(h, d);
            d->bnext = gone;
            gone = d;
            n++;
        }
    }
    pthread_mutex_unlock(&h->lock);
    while (gone) {
        large_t *next = gone->bnext;
        pool__extent_unmap(ops, gone);
        gone = next;
    }
    return n;
}

int pool__lcache_foreach(pool_heap_t *h, int (*cb)(void *base, size_t size, void *arg), void *arg)
{
    int rc = 0;
    large_t *lists[2] = {h->lc_res, h->lc_pur};
    for (int i = 0; i < 2 && rc == 0; i++)
        for (large_t *d = lists[i]; d && rc == 0; d = d->next)
            rc = cb((void *)d->base, d->size, arg);
    return rc;
}
