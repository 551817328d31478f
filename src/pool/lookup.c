/* Pointer → block, heap, target: one page-map lookup each. */
#include "pool/pool_internal.h"

size_t pool_usable_size(const void *p)
{
    uintptr_t e = pool__pagemap_entry((uintptr_t)p);
    slab_t *s = pm_slab(e);
    if (s) {
        uintptr_t off = pm_offset(e, (uintptr_t)p);
        return !pm_misaligned(e, off) && atomic_load_explicit(pm_state(e, off), memory_order_relaxed) == BLOCK_LIVE
                   ? s->bsize
                   : 0;
    }
    large_t *d = pm_large(e);
    return d && (uintptr_t)p == d->base && atomic_load_explicit(&d->live, memory_order_relaxed) ? d->size : 0;
}

void *pool_block_of(const void *p, size_t *size)
{
    uintptr_t e = pool__pagemap_entry((uintptr_t)p), start;
    size_t bytes;
    slab_t *s = pm_slab(e);
    large_t *d = pm_large(e);
    if (s) {
        uint32_t idx = pool__block_index(s, (uintptr_t)p);
        if (idx >= s->nblocks)
            return NULL;
        /* the block may start in an earlier slice: look from its start */
        start = s->base + (uintptr_t)idx * s->bsize;
        if (atomic_load_explicit(&s->state[(start - s->base) >> s->shift], memory_order_relaxed) != BLOCK_LIVE)
            return NULL;
        bytes = s->bsize;
    } else if (d) {
        if ((uintptr_t)p - d->base >= d->size || !atomic_load_explicit(&d->live, memory_order_relaxed))
            return NULL;
        start = d->base;
        bytes = d->size;
    } else {
        return NULL;
    }
    if (size)
        *size = bytes;
    return (void *)start;
}

pool_heap_t *pool_heap_of(const void *p)
{
    uintptr_t e = pool__pagemap_entry((uintptr_t)p);
    if (pm_slab(e))
        return pm_slab(e)->heap;
    return pm_large(e) ? pm_large(e)->heap : NULL;
}

const struct loci_target *pool_target_of(const void *p)
{
    /* through the account (one per target, read atomically): a heap being
     * rebased to another target is seen on one or the other */
    pool_heap_t *h = pool_heap_of(p);
    account_t *a = h ? h->acct : NULL;
    return a ? a->target : NULL;
}
