/*
 * paged provider (mode=paged): the ops table over loci's own chunk cache
 * (src/paged/: regions backed by a chunk store, filled on fault).
 */
#include "paged/paged.h"
#include "provider/provider.h"

const provider_ops_t provider_paged = {
    .name = "paged",
    .alloc = paged_alloc,
    .free = paged_free,
    .move = NULL,
    .purge = paged_purge,
    .flush = paged_flush,
    .populate = NULL, /* faulting everything in would only churn the cache */
    .available = paged_available,
    .prefetch = paged_prefetch,
    .evict = paged_evict,
    .open = paged_open,
    .remove = paged_remove,
};
