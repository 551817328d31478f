/*
 * What loci placed, per allocator and per target: the pool keeps the
 * counters, this file adds them up (core/stats.c prints them).
 */
#include "alloc/allocator.h"

static void add(loci_stats_t *out, const pool_stats_t *st)
{
    out->bytes_in_use += st->bytes_in_use;
    out->bytes_peak += st->bytes_peak;
    out->allocations += st->allocs;
    out->frees += st->frees;
}

int loci_allocator_stats(const loci_allocator_t *a, loci_stats_t *out)
{
    if (!a || !out)
        return loci__fail(LOCI_EINVAL, "loci_allocator_stats: NULL argument");
    *out = (loci_stats_t){0};
    /* every plan it had: memory allocated under one replaced is still its */
    const allocator_plan_t *plan = atomic_load_explicit(&((loci_allocator_t *)a)->plan, memory_order_acquire);
    for (const allocator_plan_t *p = plan; p; p = p->replaced)
        for (int i = 0; i < p->res.ncandidates; i++) {
            pool_heap_t *h = atomic_load_explicit(&((allocator_plan_t *)p)->heaps[i], memory_order_acquire);
            bool counted = false; /* a heap newer plans kept */
            for (const allocator_plan_t *q = plan; q != p && !counted; q = q->replaced)
                for (int k = 0; k < q->res.ncandidates && !counted; k++)
                    counted = atomic_load_explicit(&((allocator_plan_t *)q)->heaps[k], memory_order_acquire) == h;
            pool_stats_t st;
            if (h && !counted && pool_stats_heap(h, &st) == 0)
                add(out, &st);
        }
    return 0;
}

int loci_target_stats(const loci_target_t *t, loci_stats_t *out)
{
    if (!t || !out)
        return loci__fail(LOCI_EINVAL, "loci_target_stats: NULL argument");
    pool_stats_t st;
    int rc = pool_stats_target(t, &st);
    if (rc)
        return rc;
    *out = (loci_stats_t){0};
    add(out, &st);
    return 0;
}
