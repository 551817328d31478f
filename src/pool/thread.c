/*
 * The calling thread's pool state (pool__tl): its caches by heap id, the one
 * used last, the page-map leaf used last, and the decay clock's tick. One
 * initial-exec TLS block, so the fast paths (alloc.c, free.c) and the page
 * map reach all of it at a fixed offset from the thread pointer. Here, below
 * the page map and the thread caches, because both read it; tcache.c
 * attaches and releases the caches themselves.
 */
#include "pool/pool_internal.h"

tcache_t pool__no_cache; /* heap NULL: matches no heap */
__thread tlocal_t pool__tl __attribute__((tls_model("initial-exec"))) = {.last = &pool__no_cache,
                                                                          .leaf_key = UINTPTR_MAX};

tcache_t *pool__tcache_mine(pool_heap_t *h)
{
    tlocal_t *tl = &pool__tl;
    tcache_t *tc = tl->last;
    if (atomic_load_explicit(&tc->heap, memory_order_relaxed) == h)
        return tc;
    tc = h->id < tl->n ? tl->v[h->id] : NULL;
    return tc && atomic_load_explicit(&tc->heap, memory_order_relaxed) == h ? tc : NULL;
}
