/*
 * The live topology: the one object every layer reads (topo_get), discovered
 * once, then merged into by each refresh that discovers the machine again,
 * with the generation and the listeners that tell the layers above. The
 * object stays the same, so every pointer into it stays valid. Nothing here
 * starts or stops the watcher: watch.c, above, refreshes through this file,
 * and current.c, above both, keeps the watcher in step with the topology.
 */
#include "topo/topo_internal.h"

#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t discovery_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(topo_t *) current_topology;

_Atomic bool topo_watch_pending;

/* One refresh at a time, its listeners included; taken before any lock of
 * the layers above, which the listeners take. */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned generation;
#define MAX_LISTENERS 8
static void (*_Atomic listeners[MAX_LISTENERS])(void);

topo_t *topo_get(void) { return atomic_load_explicit(&current_topology, memory_order_acquire); }

int topo_live_discover(void)
{
    pthread_mutex_lock(&discovery_lock);
    int rc = 0;
    if (!topo_get()) {
        topo_t *t = NULL;
        rc = topo_discover(&t);
        if (rc == 0) {
            atomic_store_explicit(&current_topology, t, memory_order_release);
            atomic_store(&topo_watch_pending, !t->simulated);
        } else {
            loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
        }
    }
    pthread_mutex_unlock(&discovery_lock);
    return rc;
}

unsigned topo_generation(void) { return atomic_load_explicit(&generation, memory_order_acquire); }

void topo_on_change(void (*fn)(void))
{
    for (int i = 0; i < MAX_LISTENERS; i++) {
        void (*expected)(void) = NULL;
        if (atomic_load(&listeners[i]) == fn || atomic_compare_exchange_strong(&listeners[i], &expected, fn))
            return;
    }
    loci__log(LOCI_LOG_ERROR, "topo_on_change: more than %d listeners", MAX_LISTENERS);
}

int topo_live_refresh(void)
{
    pthread_mutex_lock(&refresh_lock);
    topo_t *fresh = NULL;
    int rc = topo_discover(&fresh);
    if (rc == 0) {
        pthread_mutex_lock(&discovery_lock);
        topo_t *live = topo_get();
        rc = live ? topo_merge(live, fresh) : 0;
        pthread_mutex_unlock(&discovery_lock);
        topo_free(fresh);
    }
    if (rc > 0) {
        atomic_fetch_add_explicit(&generation, 1, memory_order_acq_rel);
        for (int i = 0; i < MAX_LISTENERS; i++) {
            void (*fn)(void) = atomic_load(&listeners[i]);
            if (fn)
                fn();
        }
    }
    pthread_mutex_unlock(&refresh_lock);
    return rc;
}

void topo_live_fork(loci_fork_phase_t phase) { loci__fork_mutex(&refresh_lock, phase); }

topo_t *topo_live_detach(void (*teardown)(void))
{
    pthread_mutex_lock(&refresh_lock);
    pthread_mutex_lock(&discovery_lock);
    topo_t *t = atomic_exchange(&current_topology, NULL);
    atomic_store(&topo_watch_pending, false);
    if (t)
        teardown();
    pthread_mutex_unlock(&discovery_lock);
    pthread_mutex_unlock(&refresh_lock);
    return t;
}
