/*
 * The process's topology, discovered on first use: the one way every layer
 * reaches it (topo_ensure, then topo_get). Discovery runs once, is
 * thread-safe, and is retried on the next call after a failure so that a
 * fixed config is picked up; the failure message is repeated to every
 * caller. Later, memory that comes or goes is merged in (topo_refresh, or
 * the watcher thread of watch.c by itself). The topology itself lives in
 * live.c; this file, above it and the watcher, keeps the two in step: the
 * watcher starts after a live discovery, is stopped before loci_fini
 * (core) retires the topology, and is forgotten in a fork's child.
 */
#include "topo/topo_internal.h"

#include <stdatomic.h>

int topo_ensure(void)
{
    if (LOCI_LIKELY(topo_get() != NULL)) {
        if (LOCI_UNLIKELY(atomic_load_explicit(&topo_watch_pending, memory_order_relaxed)))
            topo_watch_start();
        return 0;
    }
    int rc = topo_live_discover();
    if (rc == 0)
        topo_watch_start(); /* after discovery's lock: the watcher takes none of it to start */
    return rc;
}

int topo_refresh(void)
{
    int rc = topo_ensure();
    return rc ? rc : topo_live_refresh();
}

void topo_fork(loci_fork_phase_t phase)
{
    topo_live_fork(phase);
    if (phase == LOCI_FORK_CHILD)
        topo_watch_forked();
}

topo_t *topo_retire(void (*teardown)(void))
{
    topo_watch_stop(); /* before the locks: its refresh may be waiting for them */
    return topo_live_detach(teardown);
}

/* ---- public ------------------------------------------------------------- */

int loci_topology_refresh(void) { return topo_refresh(); }
