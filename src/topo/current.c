/*
 * The process's topology, discovered on first use: the one way every layer
 * reaches it (topo_ensure, then topo_get). Discovery runs once, is
 * thread-safe, and is retried on the next call after a failure so that a
 * fixed config is picked up; the failure message is repeated to every
 * caller. loci_fini (core) retires it.
 */
#include "topo/topo_internal.h"

#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t discovery_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(topo_t *) current_topology;

topo_t *topo_get(void) { return atomic_load_explicit(&current_topology, memory_order_acquire); }

static int discover_once(void)
{
    pthread_mutex_lock(&discovery_lock);
    int rc = 0;
    if (!topo_get()) {
        topo_t *t = NULL;
        rc = topo_discover(&t);
        if (rc == 0)
            atomic_store_explicit(&current_topology, t, memory_order_release);
        else
            loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
    }
    pthread_mutex_unlock(&discovery_lock);
    return rc;
}

int topo_ensure(void)
{
    if (LOCI_LIKELY(topo_get() != NULL))
        return 0;
    return discover_once();
}

topo_t *topo_retire(void (*teardown)(void))
{
    pthread_mutex_lock(&discovery_lock);
    topo_t *t = atomic_exchange(&current_topology, NULL);
    if (t)
        teardown();
    pthread_mutex_unlock(&discovery_lock);
    return t;
}
