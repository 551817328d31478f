/*
 * Library lifecycle. Initialisation is the topology's discovery
 * (topo/current.c), which every entry point runs on first use; loci_init
 * only runs it early. loci_fini lets go of everything, top layer first.
 */
#include "alloc/allocator.h"
#include "arena/arena.h"
#include "ckpt/ckpt.h"
#include "region/region.h"
#include "pool/pool.h"
#include "tiering/tiering.h"
#include "topo/topo.h"

int loci_init(void) { return topo_ensure(); }

/* Layers go in reverse order of their dependencies (the tiering thread
 * first, which moves arenas on its own): checkpoints refer to
 * regions, arenas and allocators hold heaps, heaps hold targets of the
 * topology. */
static void teardown(void)
{
    tiering_fini(); /* its thread moves arenas: stopped before anything goes */
    ckpt_fini();
    region_fini(); /* regions are no heaps: synced and closed first */
    arena_fini();
    allocator_fini();
    pool_fini();
}

void loci_fini(void) { topo_free(topo_retire(teardown)); }
