/*
 * Where and how an extent is placed: the request every provider and every
 * kernel primitive (vm.h) works from. A place with `simulated` set (injected
 * topology) is recorded, not applied.
 */
#ifndef LOCI_OS_PLACE_H
#define LOCI_OS_PLACE_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loci_target;

typedef enum {
    PLACE_LOCAL = 0,          /* kernel default (first touch) */
    PLACE_BIND,               /* MPOL_BIND: only these nodes */
    PLACE_PREFERRED,          /* MPOL_PREFERRED(_MANY): these first, then anywhere */
    PLACE_INTERLEAVE,         /* MPOL_INTERLEAVE over the nodes */
    PLACE_WEIGHTED_INTERLEAVE /* MPOL_WEIGHTED_INTERLEAVE where the kernel has it, else interleave */
} place_policy_t;

#define PLACE_MAX_NODES 1024

/** How a file tier holds memory (intent mode=): mapped through the kernel's
 *  page cache, or paged through loci's own DRAM chunk cache (provider_paged). */
typedef enum {
    FILE_MMAP = 0,   /* mode=mmap, or no mode */
    FILE_PAGED,      /* mode=paged: mmap instead where paging cannot run */
    FILE_PAGED_ONLY  /* mode=paged!: paged or nothing */
} file_mode_t;

/** Where and how an extent is placed. */
typedef struct {
    place_policy_t policy;
    uint64_t nodemask[PLACE_MAX_NODES / 64]; /* NUMA nodes, bit per node */
    const struct loci_target *target;        /* the target this extent is charged to */
    bool pinned;                             /* mlock the extent */
    bool shared;                             /* must be mappable by other processes (shm) */
    bool simulated;                          /* injected topology: record, do not mbind */
    bool base_pages;                         /* no transparent huge pages (MADV_NOHUGEPAGE): tier=auto
                                              * under a heat source that sees a huge page as one */
    file_mode_t file_mode;                   /* file tiers: page cache or chunk cache */
    uint64_t cache, chunk;                   /* paged: DRAM budget, chunk size (0 = 64 MiB, 256 KiB) */
    uint64_t object;                         /* paged on a store: bytes per object (0 = the target's, else 4 MiB) */
    unsigned dirty_limit, dirty_background;  /* paged: % of the cache (0 = the target's, else 50 %, 10 %) */
    bool managed;                            /* GPU memory: managed memory, not device memory */
    int cuda_device;                         /* managed memory placed on the host: the GPU whose
                                              * driver context allocates it (an arena moved there) */
    bool gpu_pinned;                         /* pinned host memory registered with the GPU driver */
} place_t;

/** True when the placement must hold or fail: a real (not simulated) bind.
 *  The pool then checks the nodes' free memory before mapping and populates
 *  new memory at once, so that a full node gives ENOMEM, not the OOM killer. */
static inline bool place_is_strict(const place_t *p)
{
    return p->policy == PLACE_BIND && !p->simulated;
}

/** Set node `node` in p->nodemask (ignored outside 0..PLACE_MAX_NODES-1). */
static inline void place_add_node(place_t *p, int node)
{
    if (node >= 0 && node < PLACE_MAX_NODES)
        p->nodemask[node / 64] |= 1ull << (node % 64);
}

#endif
