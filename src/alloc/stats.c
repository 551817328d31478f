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
    for (int i = 0; i < a->res.ncandidates; i++) {
        pool_heap_t *h = atomic_load_explicit(&((loci_allocator_t *)a)->heaps[i], memory_order_acquire);
        pool_stats_t st;
        if (h && pool_stats_heap(h, &st) == 0)
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
