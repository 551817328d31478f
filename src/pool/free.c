/*
 * Free: pool_free, and the slow paths of the inline fast path
 * (pool__free_fast, pool_internal.h: the page map gives the slab, the
 * block's state byte says it is live, the block goes on the calling
 * thread's cache). Anything unusual (big blocks, foreign pointers, double
 * frees, a full cache, a page-map leaf this thread has not used yet) leaves
 * the fast path by a tail call to one of these.
 */
#include "pool/pool_internal.h"

/* Report a bad free without changing anything. */
static int bad_free(const void *p, const char *why)
{
    loci__log(LOCI_LOG_WARN, "free(%p): %s; ignored", p, why);
    return loci__fail(LOCI_EINVAL, "free(%p): %s", p, why);
}

__attribute__((noinline)) int pool__free_other(void *p, uintptr_t e, pool_foreign_fn foreign)
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
        return foreign(p);
    uintptr_t off = (uintptr_t)p - s->base;
    if (off % s->bsize || off / s->bsize >= s->nblocks)
        return bad_free(p, "points inside a block, not at its start");
    return bad_free(p, "double free (the block is not live)");
}

int pool__free_foreign(void *p)
{
    return loci__fail(LOCI_ENOENT, "free(%p): not a pointer loci allocated (or its memory was already given back)", p);
}

/* Any pointer: look it up through the page map's root. */
__attribute__((noinline)) int pool__free_lookup(void *p, pool_foreign_fn foreign)
{
    return pool__free_at(p, pool__pagemap_slot_slow((uintptr_t)p), foreign);
}

int pool_free(void *p) { return pool__free_fast(p, pool__free_foreign); }
