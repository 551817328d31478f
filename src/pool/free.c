/*
 * Free fast path: the page map gives the slab, the block's state byte says
 * it is live, the block goes on the calling thread's cache for its heap —
 * whichever thread allocated it. Anything unusual (big blocks, foreign
 * pointers, double frees, a full cache, a page-map leaf this thread has not
 * used yet) leaves the fast path by a tail call.
 */
#include "pool/pool_internal.h"

/* Report a bad free without changing anything. */
static int bad_free(const void *p, const char *why)
{
    loci__log(LOCI_LOG_WARN, "free(%p): %s; ignored", p, why);
    return loci__fail(LOCI_EINVAL, "free(%p): %s", p, why);
}

/* Big blocks and everything wrong. */
static __attribute__((noinline)) int free_other(void *p, uintptr_t e)
{
    if (p == NULL)
        return 0;
    large_t *d = pm_large(e);
    if (d) {
        if ((uintptr_t)p != d->base)
            return bad_free(p, "points inside a block, not at its start");
        uint8_t live = 1;
        if (!atomic_compare_exchange_strong(&d->live, &live, 0))
            return bad_free(p, "double free");
        return pool__free_large(d, p);
    }
    slab_t *s = pm_slab(e);
    if (!s) /* not the pool's: the caller, who may know other memory, says what it is */
        return loci__fail(LOCI_ENOENT, "free(%p): not a pointer loci allocated (or its memory was already given back)",
                          p);
    uintptr_t off = (uintptr_t)p - s->base;
    if (off % s->bsize || off / s->bsize >= s->nblocks)
        return bad_free(p, "points inside a block, not at its start");
    return bad_free(p, "double free (the block is not live)");
}

/* A small block: mark it free if it was live, cache it. Only a block's
 * start has a live state byte, so interior pointers fail the same test.
 * The heap and class come with the page-map entry: the slab descriptor is
 * not read. */
static inline __attribute__((always_inline)) int free_block(void *p, uintptr_t e, uintptr_t aux)
{
    uintptr_t off = (uintptr_t)p & (SLICE_SIZE - 1); /* in the slice */
    unsigned shift = pm_shift(e);
    uintptr_t unit = off >> shift;
    _Atomic uint8_t *st = (_Atomic uint8_t *)(e & PM_PTR_MASK) + unit;
    if (LOCI_UNLIKELY(unit << shift != off)) /* not where a block can start */
        return free_other(p, e);
    /* One atomic step: of two threads freeing the block at once, exactly
     * one sees it live (a load, then a store, let both cache it). Writing
     * FREE over a byte that was not LIVE changes nothing. */
    if (LOCI_UNLIKELY(atomic_exchange_explicit(st, BLOCK_FREE, memory_order_relaxed) != BLOCK_LIVE))
        return free_other(p, e);
    tcache_t *tc = pool__tl.last;
    if (LOCI_LIKELY((uintptr_t)atomic_load_explicit(&tc->heap, memory_order_relaxed) == (aux & ~PM_CLS_MASK))) {
        tbin_t *b = &tc->bins[aux & PM_CLS_MASK];
        uint32_t n = bin_count(b);
        if (LOCI_LIKELY(n < b->cap)) {
            b->slots[n] = (tentry_t){p, st};
            bin_set_count(b, n + 1);
            counter_inc(&b->nfree);
            return 0;
        }
    }
    return pool__free_small_slow(aux, p, st);
}

/* Any pointer: look it up through the page map's root. */
static inline __attribute__((always_inline)) int free_at(void *p, const pm_entry_t *x)
{
    uintptr_t e = atomic_load_explicit(&x->e, memory_order_acquire);
    if (LOCI_LIKELY((e & PM_TAG_MASK) == DESC_SLAB))
        return free_block(p, e, atomic_load_explicit(&x->aux, memory_order_relaxed));
    return free_other(p, e);
}

static __attribute__((noinline)) int free_lookup(void *p)
{
    return free_at(p, pool__pagemap_slot_slow((uintptr_t)p));
}

int pool_free(void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (LOCI_LIKELY(a >> (SLICE_SHIFT + PM_LEAF_BITS) == pool__tl.leaf_key))
        return free_at(p, &pool__tl.leaf[pm_index(a)]);
    return free_lookup(p);
}
