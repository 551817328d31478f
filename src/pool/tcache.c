/*
 * Per-thread caches: for each heap a thread uses, per size class a stack of
 * freed blocks, a run of fresh consecutive blocks, and the slab it refills
 * from (pointers in DRAM, never links inside the blocks). The fast paths try
 * the cache used last (pool__tl.last, thread.c); otherwise the thread finds
 * its cache for a heap at pool__tl.v[heap->id]. A cache whose heap was
 * destroyed is detached (heap = NULL) and reused for the next heap with
 * that id. At thread exit the caches go back to their heaps (blocks, runs,
 * slabs). Here too: the fast paths' slow paths (a cache to attach, an empty
 * bin to refill from slab.c, a full one to flush) and the few freed big
 * blocks a thread keeps.
 */
#include "pool/pool_internal.h"

#include <stdlib.h>
#include <string.h>

static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *arg);

static void make_key(void)
{
    pthread_key_create(&exit_key, thread_exit);
}

static void tc_link(pool_heap_t *h, tcache_t *tc) { DLIST_PUSH(h->tcaches, tc, next, prev); }

static void tc_unlink(pool_heap_t *h, tcache_t *tc) { DLIST_UNLINK(h->tcaches, tc, next, prev); }

static tcache_t *attach(pool_heap_t *h);

tcache_t *pool__tcache_find(pool_heap_t *h)
{
    tlocal_t *tl = &pool__tl;
    uint32_t id = h->id;
    tcache_t *tc = id < tl->n ? tl->v[id] : NULL;
    if (!tc || atomic_load_explicit(&tc->heap, memory_order_relaxed) != h)
        tc = attach(h);
    if (tc)
        tl->last = tc;
    return tc;
}

static tcache_t *attach(pool_heap_t *h)
{
    tlocal_t *tl = &pool__tl;
    if (tl->dead)
        return NULL;
    uint32_t id = h->id;
    if (id >= tl->n) {
        uint32_t n = tl->n ? tl->n : 8;
        while (n <= id)
            n *= 2;
        tcache_t **v = realloc(tl->v, n * sizeof *v);
        if (!v)
            return NULL;
        memset(v + tl->n, 0, (n - tl->n) * sizeof *v);
        tl->v = v;
        tl->n = n;
    }
    if (!tl->keyed) {
        pthread_once(&exit_once, make_key);
        if (pthread_setspecific(exit_key, tl) != 0)
            return NULL;
        tl->keyed = 1;
    }
    tcache_t *tc = tl->v[id];
    if (!tc) {
        tc = calloc(1, sizeof *tc);
        if (!tc)
            return NULL;
        tl->v[id] = tc;
    }
    pthread_mutex_lock(&pool__registry);
    /* A cache left by a destroyed heap: its blocks went with that heap. */
    for (unsigned c = 0; c < NCLASSES; c++) {
        bin_set_count(&tc->bins[c], 0);
        atomic_store_explicit(&tc->bins[c].run_n, 0, memory_order_relaxed);
        tc->bins[c].own = NULL;
        atomic_store_explicit(&tc->bins[c].nfree, 0, memory_order_relaxed);
    }
    atomic_store_explicit(&tc->held_blocks, 0, memory_order_relaxed);
    atomic_store_explicit(&tc->held_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&tc->nbig, 0, memory_order_relaxed);
    atomic_store_explicit(&tc->big_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&tc->big_nfree, 0, memory_order_relaxed);
    tc_link(h, tc);
    atomic_store_explicit(&tc->heap, h, memory_order_relaxed);
    pthread_mutex_unlock(&pool__registry);
    return tc;
}

/* Fold a cache's counters into its heap (registry lock held). */
static void fold_stats(pool_heap_t *h, tcache_t *tc)
{
    uint64_t nf = 0;
    for (unsigned c = 0; c < NCLASSES; c++) {
        nf += counter_get(&tc->bins[c].nfree);
        atomic_store_explicit(&tc->bins[c].nfree, 0, memory_order_relaxed);
    }
    nf += counter_get(&tc->big_nfree);
    atomic_store_explicit(&tc->big_nfree, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->frees, nf, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->held_blocks, counter_get(&tc->held_blocks), memory_order_relaxed);
    atomic_fetch_add_explicit(&h->held_bytes, counter_get(&tc->held_bytes), memory_order_relaxed);
    atomic_store_explicit(&tc->held_blocks, 0, memory_order_relaxed);
    atomic_store_explicit(&tc->held_bytes, 0, memory_order_relaxed);
}

void pool__tcache_flush(tcache_t *tc)
{
    pool_heap_t *h = atomic_load_explicit(&tc->heap, memory_order_relaxed);
    if (!h)
        return;
    for (unsigned c = 0; c < NCLASSES; c++) {
        tbin_t *b = &tc->bins[c];
        uint32_t n = bin_count(b);
        if (n)
            pool__flush_entries(h, tc, c, bin_slots(b), n);
        bin_set_count(b, 0);
        pool__bin_release(h, tc, c, b);
    }
    pool__free_carved_kept(h, tc);
}

/* --- the slow paths of pool_alloc / pool_free ------------------------------------ */

static bool bin_ready(tbin_t *b, unsigned c)
{
    if (bin_slots(b))
        return true;
    tentry_t *slots = malloc(pool_class_cap[c] * sizeof *slots);
    if (!slots)
        return false;
    b->end = slots + pool_class_cap[c];
    atomic_store_explicit(&b->top, slots, memory_order_relaxed);
    atomic_store_explicit(&b->slots, slots, memory_order_relaxed);
    return true;
}

void *pool__alloc_small_slow(pool_heap_t *h, unsigned c)
{
    tcache_t *tc = pool__tcache_of(h);
    tbin_t *b = tc ? &tc->bins[c] : NULL;
    if (!b || !bin_ready(b, c))
        return pool__slab_alloc_one(h, c);
    if (!bin_count(b) && run_count(b))
        pool__run_fill(b, c);
    if (bin_count(b)) /* from the run, or the cache was not the thread's last one */
        return pool__bin_pop(b, bin_top(b));
    return pool__slab_refill(h, tc, b, c);
}

int pool__free_small_slow(uintptr_t aux, void *p, _Atomic uint8_t *state)
{
    pool_heap_t *h = (pool_heap_t *)(aux & ~PM_CLS_MASK);
    unsigned c = (unsigned)(aux & PM_CLS_MASK);
    tcache_t *tc = pool__tcache_of(h);
    tbin_t *b = tc ? &tc->bins[c] : NULL;
    if (!b || !bin_ready(b, c)) {
        tentry_t e = {p, state};
        pool__flush_entries(h, NULL, c, &e, 1);
        atomic_fetch_add_explicit(&h->frees, 1, memory_order_relaxed);
        return 0;
    }
    uint32_t count = bin_count(b), cap = bin_cap(b);
    tentry_t *slots = bin_slots(b);
    if (count == cap) { /* full: the older half goes back to the slabs */
        unsigned n = cap / 2 ? cap / 2 : 1;
        pool__flush_entries(h, tc, c, slots, n);
        memmove(slots, slots + n, (count - n) * sizeof *slots);
        count -= n;
        pool__maybe_decay(h);
    }
    slots[count] = (tentry_t){p, state};
    bin_set_count(b, count + 1);
    counter_inc(&b->nfree);
    return 0;
}

/* --- big blocks ---------------------------------------------------------------- */

/* Big blocks. A program that frees and allocates big blocks in turn would
 * take the heap lock twice per pair, and with several threads wait on it
 * (bench/alloc, 512 KiB, 2 threads). Like small blocks, a few freed carved
 * blocks stay with the thread that freed them, at most TBIG_MAX and
 * TBIG_BYTES, and a big allocation of the same slice count takes one back
 * without the lock. They count as blocks in the thread's cache (stats), not
 * as retained memory; collect, a failed charge and thread exit return them. */
bool pool__tcache_big_put(pool_heap_t *h, large_t *d)
{
    tcache_t *tc = pool__tcache_of(h);
    if (!tc)
        return false;
    uint32_t n = atomic_load_explicit(&tc->nbig, memory_order_relaxed);
    if (n == TBIG_MAX || counter_get(&tc->big_bytes) + d->size > TBIG_BYTES)
        return false;
    tc->big[n] = d;
    counter_add(&tc->big_bytes, (int64_t)d->size);
    counter_inc(&tc->big_nfree);
    atomic_store_explicit(&tc->nbig, n + 1, memory_order_relaxed);
    return true;
}

large_t *pool__tcache_big_take(tcache_t *tc, unsigned nslices, size_t bytes)
{
    pool_heap_t *h = atomic_load_explicit(&tc->heap, memory_order_relaxed);
    uint32_t n = atomic_load_explicit(&tc->nbig, memory_order_relaxed);
    for (uint32_t i = n; i-- > 0;) { /* newest first: its lines are the warmest */
        large_t *d = tc->big[i];
        if (d->nslices != nslices)
            continue;
        memmove(&tc->big[i], &tc->big[i + 1], (n - 1 - i) * sizeof tc->big[0]);
        atomic_store_explicit(&tc->nbig, n - 1, memory_order_relaxed);
        counter_add(&tc->big_bytes, -(int64_t)d->size);
        pool__held_add(h, tc, (int64_t)bytes - (int64_t)d->size, 0);
        d->size = bytes;
        return d;
    }
    return NULL;
}

/* --- releasing caches ------------------------------------------------------------ */

/* Registry lock held: return all blocks of tc to its heap and unlink it. */
static void pool__tcache_release(tcache_t *tc)
{
    pool_heap_t *h = atomic_load_explicit(&tc->heap, memory_order_relaxed);
    if (!h)
        return;
    pool__tcache_flush(tc);
    fold_stats(h, tc);
    tc_unlink(h, tc);
    atomic_store_explicit(&tc->heap, NULL, memory_order_relaxed);
}

void pool__tcache_detach_all(pool_heap_t *h)
{
    while (h->tcaches) {
        tcache_t *tc = h->tcaches;
        fold_stats(h, tc);
        tc_unlink(h, tc);
        atomic_store_explicit(&tc->heap, NULL, memory_order_relaxed);
    }
}

static void thread_exit(void *arg)
{
    tlocal_t *tl = &pool__tl;
    tl->dead = 1; /* from here on this thread allocates and frees uncached */
    tl->last = &pool__no_cache;
    pthread_mutex_lock(&pool__registry);
    for (uint32_t i = 0; i < tl->n; i++) {
        tcache_t *tc = tl->v[i];
        if (!tc)
            continue;
        pool__tcache_release(tc);
        for (unsigned c = 0; c < NCLASSES; c++)
            free(bin_slots(&tc->bins[c]));
        free(tc);
    }
    pthread_mutex_unlock(&pool__registry);
    free(tl->v);
    tl->v = NULL;
    tl->n = 0;
}

void pool_thread_flush(void)
{
    tlocal_t *tl = &pool__tl;
    pthread_mutex_lock(&pool__registry);
    for (uint32_t i = 0; i < tl->n; i++)
        if (tl->v[i])
            pool__tcache_flush(tl->v[i]);
    pthread_mutex_unlock(&pool__registry);
}
