/*
 * paged provider (mode=paged): the ops table over loci's own chunk cache
 * (src/paged/: regions backed by a chunk store, filled on fault).
 */
#include "paged/paged.h"
#include "provider/provider.h"

static const provider_file_ops_t paged_files = {
    .flush = paged_flush,
    .prefetch = paged_prefetch,
    .evict = paged_evict,
    .open = paged_open,
    .remove = paged_remove,
};

const provider_ops_t provider_paged = {
    .name = "paged",
    .props = PROVIDER_CHUNKED,
    .alloc = paged_alloc,
    .free = paged_free,
    .purge = paged_purge,
    .populate = NULL, /* faulting everything in would only churn the cache */
    .available = paged_available,
    .move = NULL, /* pages in the cache cannot be handed to another provider */
    .file = &paged_files,
};
