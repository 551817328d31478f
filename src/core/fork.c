/*
 * fork() while other threads allocate: every lock of loci is taken before
 * the fork, outer layers first (the order the code nests them: a topology
 * refresh, tiering, allocators, arenas, the heat measurements' list, pools, providers' tables), so that none is held half-way through
 * an update by a thread the child will not have; the parent releases them,
 * innermost first, the child makes them usable again and may allocate and free at once.
 * The parent's innermost handler, the providers', first waits until the child has
 * made its own copy of shared memory used privately (provider/shm.c) and its
 * private views of file memory (provider/file.c): meanwhile the parent's
 * other threads cannot allocate, free into or move an arena.
 * Front ends (shim/) register their own handlers after loci's, which runs
 * their prepare first: their locks are the outermost.
 */
#include "alloc/allocator.h"
#include "arena/arena.h"
#include "heat/heat.h"
#include "pool/pool.h"
#include "provider/provider.h"
#include "topo/topo.h"
#include "tiering/tiering.h"
#include "os/vm.h"

#include <pthread.h>

/* Outermost first: a refresh's listeners take the locks below it; tiering's
 * registry lock is taken before the arenas' and the pools'. */
static void (*const layers[])(loci_fork_phase_t) = {topo_fork, tiering_fork, allocator_fork, arena_fork,
                                                    heat_fork, pool_fork,    provider_fork, vm_room_fork};
#define NLAYERS (sizeof layers / sizeof *layers)

static void prepare(void)
{
    for (size_t i = 0; i < NLAYERS; i++)
        layers[i](LOCI_FORK_PREPARE);
}

static void parent(void)
{
    for (size_t i = NLAYERS; i-- > 0;)
        layers[i](LOCI_FORK_PARENT);
}

static void child(void)
{
    for (size_t i = 0; i < NLAYERS; i++)
        layers[i](LOCI_FORK_CHILD);
}

static void watch(void) { pthread_atfork(prepare, parent, child); }

/* At load: before any front end's handlers, whose prepare then runs first. */
__attribute__((constructor)) static void fork_watch(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch);
}
