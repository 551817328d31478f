/*
 * Stats. The fast paths count only frees, per thread cache (plain stores by
 * the owning thread; frees are the rarer half of the usual mix). The slow
 * paths count, also per thread cache, the blocks (and bytes) taken out of
 * slabs and put back: live ones plus those parked in caches. So
 *   bytes in use = held bytes - bytes in caches,
 *   allocations  = frees + live blocks.
 * Bytes are usable bytes (size classes, page-rounded dedicated blocks),
 * never the sizes asked for. The peak is that of committed bytes (slabs and
 * dedicated extents), kept where memory is committed.
 */
#include "pool/pool_internal.h"

#include <string.h>

void pool__heap_counts(const pool_heap_t *h, uint64_t *allocs, uint64_t *frees, uint64_t *in_use)
{
    uint64_t nf = counter_get(&h->frees), cached_blocks = 0, cached_bytes = 0;
    uint64_t held_blocks = counter_get(&h->held_blocks), held_bytes = counter_get(&h->held_bytes);
    for (const tcache_t *tc = h->tcaches; tc; tc = tc->next) {
        held_blocks += counter_get(&tc->held_blocks);
        held_bytes += counter_get(&tc->held_bytes);
        for (unsigned c = 0; c < NCLASSES; c++) {
            uint64_t n = bin_count(&tc->bins[c]) + run_count(&tc->bins[c]);
            nf += counter_get(&tc->bins[c].nfree);
            cached_blocks += n;
            cached_bytes += n * pool_class_size[c];
        }
        nf += counter_get(&tc->big_nfree);
        cached_blocks += atomic_load_explicit(&tc->nbig, memory_order_relaxed);
        cached_bytes += counter_get(&tc->big_bytes);
    }
    /* Counters of several threads read at slightly different instants:
     * exact when the heap is quiescent, never negative. */
    int64_t live = (int64_t)(held_blocks - cached_blocks), bytes = (int64_t)(held_bytes - cached_bytes);
    *frees = nf;
    *allocs = nf + (live > 0 ? (uint64_t)live : 0);
    *in_use = bytes > 0 ? (uint64_t)bytes : 0;
}

int pool_stats_heap(const pool_heap_t *h, pool_stats_t *st)
{
    if (!h || !st)
        return loci__fail(LOCI_EINVAL, "pool_stats_heap: NULL argument");
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&pool__registry);
    pool__heap_counts(h, &st->allocs, &st->frees, &st->bytes_in_use);
    pthread_mutex_unlock(&pool__registry);
    st->bytes_peak = counter_get(&h->peak);
    st->bytes_committed = counter_get(&h->committed);
    st->bytes_mapped = counter_get(&h->mapped);
    st->extents_mapped = counter_get(&h->nextents);
    st->extents_total = counter_get(&h->nextents_total);
    st->purges = counter_get(&h->purges);
    return 0;
}

int pool_stats_target(const struct loci_target *t, pool_stats_t *st)
{
    if (!t || !st)
        return loci__fail(LOCI_EINVAL, "pool_stats_target: NULL argument");
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&pool__registry);
    for (pool_heap_t *h = pool__heaps; h; h = h->next) {
        if (!h->acct || h->acct->target != t)
            continue;
        uint64_t na, nf, bytes;
        pool__heap_counts(h, &na, &nf, &bytes);
        st->allocs += na;
        st->frees += nf;
        st->bytes_in_use += bytes;
    }
    account_t *a = pool__account_find(t);
    if (a) {
        st->allocs += a->retired_allocs;
        st->frees += a->retired_frees;
        st->bytes_peak = counter_get(&a->peak);
        st->bytes_committed = counter_get(&a->charged);
        st->bytes_mapped = counter_get(&a->mapped);
        st->extents_mapped = counter_get(&a->nextents);
        st->extents_total = counter_get(&a->nextents_total);
        st->purges = counter_get(&a->purges);
    }
    pthread_mutex_unlock(&pool__registry);
    return 0;
}
