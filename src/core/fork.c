/*
 * fork() while other threads allocate: every lock of loci is taken before
 * the fork, outer layers first (the order the code nests them: tiering,
 * allocators, arenas, pools, providers' tables), so that none is held half-way through
 * an update by a thread the child will not have; the parent releases them,
 * the child makes them usable again and may allocate and free at once.
 * Front ends (shim/) register their own handlers after loci's, which runs
 * their prepare first: their locks are the outermost.
 */
#include "alloc/allocator.h"
#include "arena/arena.h"
#include "pool/pool.h"
#include "provider/provider.h"
#include "tiering/tiering.h"

#include <pthread.h>

static void each_layer(loci_fork_phase_t phase)
{
    tiering_fork(phase); /* its registry lock is taken before the arenas' and the pools' */
    allocator_fork(phase);
    arena_fork(phase);
    pool_fork(phase);
    provider_fork(phase);
}

static void prepare(void) { each_layer(LOCI_FORK_PREPARE); }
static void parent(void) { each_layer(LOCI_FORK_PARENT); }
static void child(void) { each_layer(LOCI_FORK_CHILD); }

static void watch(void) { pthread_atfork(prepare, parent, child); }

/* At load: before any front end's handlers, whose prepare then runs first. */
__attribute__((constructor)) void loci__fork_watch(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch);
}
