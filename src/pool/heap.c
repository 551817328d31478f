/*
 * Heaps: creation and destruction (entering and leaving the registry,
 * registry.c), collection, iteration, rebasing, and pool_fini. The top of
 * the pool's slow side: no other pool file calls it.
 */
#include "pool/pool_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

pool_heap_t *pool_heap_create(const provider_ops_t *ops, const place_t *place, void *owner)
{
    if (!ops || !place || !ops->alloc || !ops->free || !ops->available)
        return loci__fail_null(LOCI_EINVAL, "pool_heap_create: a provider and a place are required");
    pthread_once(&init_once, pool__classes_init);
    size_t size = (sizeof(pool_heap_t) + 127) & ~(size_t)127;
    pool_heap_t *h = aligned_alloc(128, size);
    if (!h)
        return loci__fail_null(LOCI_ENOMEM, "out of memory for a heap");
    memset(h, 0, size);
    h->ops = ops;
    h->place = *place;
    h->owner = owner;
    h->strict = place_is_strict(place);
    h->purgeable = ops->purge != NULL && !place->pinned; /* locked pages cannot be dropped */
    /* Short critical sections: spin a little before sleeping. */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&h->lock, &attr);
    for (unsigned c = 0; c < NCLASSES; c++) {
        pthread_mutex_init(&h->cls[c].lock, &attr);
        atomic_init(&h->cls[c].oldest_ms, UINT64_MAX);
    }
    pthread_mutexattr_destroy(&attr);
    atomic_init(&h->window_ms, clock_coarse_ms());
    pthread_mutex_lock(&pool__registry);
    h->id = pool__heap_id_take(h);
    h->acct = pool__account_get(place->target);
    bool ok = h->id != UINT32_MAX && (h->acct || !place->target);
    if (ok) {
        DLIST_PUSH(pool__heaps, h, next, prev);
    } else if (h->id != UINT32_MAX) {
        pool__heap_id_drop(h->id);
    }
    pthread_mutex_unlock(&pool__registry);
    if (!ok) {
        free(h);
        return loci__fail_null(LOCI_ENOMEM, "out of memory for a heap");
    }
    return h;
}

void pool_heap_destroy(pool_heap_t *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&pool__registry);
    if (h->acct) {
        uint64_t allocs, frees, in_use;
        pool__heap_counts(h, &allocs, &frees, &in_use);
        h->acct->retired_allocs += allocs;
        h->acct->retired_frees += frees;
    }
    pool__tcache_detach_all(h);
    pool__heap_id_drop(h->id);
    DLIST_UNLINK(pool__heaps, h, next, prev);
    pthread_mutex_unlock(&pool__registry);

    pthread_mutex_lock(&h->lock);
    pool__larges_release(h);
    pool__segments_release(h);
    pthread_mutex_unlock(&h->lock);
    for (unsigned c = 0; c < NCLASSES; c++)
        pthread_mutex_destroy(&h->cls[c].lock);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

void pool_heap_set_on_fail(pool_heap_t *h, pool_on_fail_fn fn)
{
    atomic_store_explicit(&h->on_fail, fn, memory_order_release);
}

void *pool_heap_owner(const pool_heap_t *h) { return h ? h->owner : NULL; }
void pool_heap_set_owner_kind(pool_heap_t *h, pool_owner_kind_t kind) { h->owner_kind = (uint8_t)kind; }
pool_owner_kind_t pool_heap_owner_kind(const pool_heap_t *h) { return (pool_owner_kind_t)h->owner_kind; }
const provider_ops_t *pool_heap_ops(const pool_heap_t *h) { return h ? h->ops : NULL; }

void pool_heap_collect(pool_heap_t *h)
{
    tcache_t *tc = pool__tcache_mine(h);
    if (tc)
        pool__tcache_flush(tc);
    pool__collect(h);
}

int pool_heap_foreach_extent(pool_heap_t *h, int (*cb)(void *base, size_t size, void *arg), void *arg)
{
    int rc = 0;
    pthread_mutex_lock(&h->lock);
    segment_t *segs[2] = {h->segments, h->segs_full};
    for (int i = 0; i < 2; i++)
        for (segment_t *g = segs[i]; g && rc == 0; g = g->next)
            rc = cb((void *)g->base, POOL_SEGMENT_SIZE, arg);
    for (large_t *d = h->larges; d && rc == 0; d = d->next)
        if (!d->seg) /* carved ones are in their segments */
            rc = cb((void *)d->base, d->size, arg);
    if (rc == 0)
        rc = pool__lcache_foreach(h, cb, arg);
    pthread_mutex_unlock(&h->lock);
    return rc;
}

int pool_heap_rebase(pool_heap_t *h, const provider_ops_t *ops, const place_t *place,
                     int (*move)(void *base, size_t size, void *arg), void *arg)
{
    if (!ops || !ops->alloc || !ops->free || !ops->available || !place)
        return loci__fail(LOCI_EINVAL, "pool_heap_rebase: a provider and a place are required");
    pthread_mutex_lock(&pool__registry);
    account_t *to = pool__account_get(place->target);
    pthread_mutex_unlock(&pool__registry);
    if (!to && place->target)
        return loci__fail(LOCI_ENOMEM, "out of memory for the accounts of %s", place->target->name);
    /* The heap lock keeps extents from coming or going, and the committed
     * bytes still: frees uncharge under it (slices_release, pool__free_large),
     * and no allocation runs (the caller's promise). Freed big extents kept
     * for reuse need not travel: they are unmapped first. */
    pool__lcache_drop(h);
    pthread_mutex_lock(&h->lock);
    /* purges of retiring slabs or cached extents, started outside the lock,
     * finish first */
    while (atomic_load_explicit(&h->npurging, memory_order_acquire))
        sched_yield();
    uint64_t committed = counter_get(&h->committed);
    int rc = to == h->acct ? 0 : pool__charge_move(to, ops, place, committed);
    bool charged = rc == 0 && to != h->acct;
    segment_t *segs[2] = {h->segments, h->segs_full};
    for (int i = 0; i < 2; i++) /* with the slabs, carved blocks and dirty slices in them */
        for (segment_t *g = segs[i]; g && rc == 0; g = g->next)
            rc = move((void *)g->base, POOL_SEGMENT_SIZE, arg);
    for (large_t *d = h->larges; d && rc == 0; d = d->next)
        if (!d->seg)
            rc = move((void *)d->base, d->size, arg);
    if (rc == 0) /* extents cached since the drop above */
        rc = pool__lcache_foreach(h, move, arg);
    if (rc == 0) {
        pool__account_move(h, to, committed);
        h->place = *place;
        /* written only when they change: frees read them without a lock */
        if (h->ops != ops)
            h->ops = ops;
        if (h->strict != place_is_strict(place))
            h->strict = place_is_strict(place);
        bool purgeable = ops->purge != NULL && !place->pinned;
        if (h->purgeable != purgeable)
            h->purgeable = purgeable;
    } else if (charged) {
        atomic_fetch_sub_explicit(&to->charged, committed, memory_order_relaxed);
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

void pool_fini(void)
{
    for (;;) {
        pthread_mutex_lock(&pool__registry);
        pool_heap_t *h = pool__heaps;
        pthread_mutex_unlock(&pool__registry);
        if (!h)
            break;
        pool_heap_destroy(h);
    }
    pthread_mutex_lock(&pool__registry);
    pool__accounts_free();
    pool__heap_ids_free();
    pthread_mutex_unlock(&pool__registry);
}
