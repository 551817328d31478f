/*
 * `loci run --tier auto` for OpenMP programs: with LOCI_TIER=auto (which
 * loci run sets) and libloci-tier.so loaded (which it preloads), the
 * default allocator — omp_default_mem_alloc, and omp_null_allocator while
 * it stands for it — gives a block of at least libloci-tier's threshold an
 * arena of the program's allocation site, exactly as malloc's big blocks
 * get one: the caller of omp_alloc (or of GOMP_alloc, __kmpc_alloc...) and
 * the size class make the site. Every memory space the program names keeps
 * its meaning, and so do allocators with traits of their own.
 * libloci-tier.so's functions are weak references: NULL when it is absent.
 */
#include "shim.h"

#include <loci_tier.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static bool on;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void decide(void)
{
    const char *mode = getenv("LOCI_TIER");
    if (!mode || strcmp(mode, "auto") != 0)
        return;
    if (!loci_tier_alloc || !loci_tier_free) {
        shim_log(LOCI_LOG_WARN, "LOCI_TIER=auto, and libloci-tier.so is not loaded: the default allocator "
                 "places its blocks as without tiering (loci run --tier auto preloads it)");
        return;
    }
    on = true;
}

void *shim_tiered_alloc(const shim_allocator_t *al, const void *site, size_t alignment, size_t size, bool zero)
{
    if (al->handle != OMP_DEFAULT_MEM_ALLOC)
        return NULL;
    pthread_once(&once, decide);
    return on ? loci_tier_alloc(site, alignment, size, zero) : NULL;
}

void shim_tiered_free(void *p) { loci_tier_free(p); }
