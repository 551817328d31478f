/*
 * Library lifecycle. Initialisation runs once (discovery, config), is
 * thread-safe, and is retried on the next call after a failure so that a
 * fixed config is picked up; the failure message is repeated to every caller.
 */
#include "alloc/allocator.h"
#include "nvm/nvm.h"
#include "arena/arena.h"
#include "pool/pool.h"
#include "topo/topo.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(topo_t *) current_topology;

topo_t *topo_get(void) { return atomic_load_explicit(&current_topology, memory_order_acquire); }

int loci__ensure_init(void)
{
    if (LOCI_LIKELY(atomic_load_explicit(&current_topology, memory_order_acquire) != NULL))
        return 0;
    return loci_init();
}

int loci_init(void)
{
    if (topo_get())
        return 0;
    pthread_mutex_lock(&init_lock);
    int rc = 0;
    if (!topo_get()) {
        topo_t *t = NULL;
        rc = topo_discover(&t);
        if (rc == 0) {
            atomic_store_explicit(&current_topology, t, memory_order_release);
            static pthread_once_t stats_once = PTHREAD_ONCE_INIT;
            pthread_once(&stats_once, stats_arm_at_exit);
            loci__fork_watch();
        }
        else
            loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
    }
    pthread_mutex_unlock(&init_lock);
    return rc;
}

/* Layers go in reverse order of their dependencies: arenas and allocators
 * hold heaps, heaps hold targets of the topology. */
void loci_fini(void)
{
    pthread_mutex_lock(&init_lock);
    topo_t *t = atomic_exchange(&current_topology, NULL);
    if (t) {
        nvm_fini(); /* regions are no heaps: synced and closed first */
        arena_fini();
        allocator_fini();
        pool_fini();
    }
    pthread_mutex_unlock(&init_lock);
    topo_free(t);
}
