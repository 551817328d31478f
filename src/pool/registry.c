/*
 * The registry of live heaps: its lock (which also guards the thread caches'
 * links and the accounts), the list of heaps (stats, pool_fork, pool_fini)
 * and heap ids (each heap's index in every thread's caches). Here, below
 * heap.c, because the thread caches, stats and fork take the lock too.
 */
#include "pool/pool_internal.h"

#include <stdlib.h>
#include <string.h>

pthread_mutex_t pool__registry = PTHREAD_MUTEX_INITIALIZER;
pool_heap_t *pool__heaps;
static pool_heap_t **by_id; /* registry lock */
static uint32_t nids;

uint32_t pool__heap_id_take(pool_heap_t *h)
{
    for (uint32_t i = 0; i < nids; i++)
        if (!by_id[i]) {
            by_id[i] = h;
            return i;
        }
    uint32_t n = nids ? 2 * nids : 16;
    pool_heap_t **v = realloc(by_id, n * sizeof *v);
    if (!v)
        return UINT32_MAX;
    memset(v + nids, 0, (n - nids) * sizeof *v);
    by_id = v;
    uint32_t id = nids;
    nids = n;
    by_id[id] = h;
    return id;
}

void pool__heap_id_drop(uint32_t id) { by_id[id] = NULL; }

void pool__heap_ids_free(void)
{
    free(by_id);
    by_id = NULL;
    nids = 0;
}
