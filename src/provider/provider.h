/*
 * Providers: where extents of memory come from. Each is a const ops table;
 * the pool above never knows which one it talks to. Every kernel call that
 * places memory (mmap, mbind, move_pages, memfd, userfaultfd) lives below here.
 */
#ifndef LOCI_PROVIDER_H
#define LOCI_PROVIDER_H

#include "internal.h"
#include "topo/topo.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    PLACE_LOCAL = 0,          /* kernel default (first touch) */
    PLACE_BIND,               /* MPOL_BIND: only these nodes */
    PLACE_PREFERRED,          /* MPOL_PREFERRED(_MANY): these first, then anywhere */
    PLACE_INTERLEAVE,         /* MPOL_INTERLEAVE over the nodes */
    PLACE_WEIGHTED_INTERLEAVE /* MPOL_WEIGHTED_INTERLEAVE where the kernel has it, else interleave */
} place_policy_t;

#define PLACE_MAX_NODES 1024

/** Where and how an extent is placed. */
typedef struct {
    place_policy_t policy;
    uint64_t nodemask[PLACE_MAX_NODES / 64]; /* NUMA nodes, bit per node */
    const struct loci_target *target;        /* the target this extent is charged to */
    bool pinned;                             /* mlock the extent */
    bool shared;                             /* must be mappable by other processes (shm) */
    bool simulated;                          /* injected topology: record, do not mbind */
} place_t;

typedef struct provider_ops {
    const char *name; /* "numa", "file", "shm", ... */
    /** Map `size` bytes (a multiple of the page size) aligned to `alignment`
     *  (a power of two >= page size), placed per `place`. NULL + loci__fail. */
    void *(*alloc)(const place_t *place, size_t size, size_t alignment);
    /** Unmap an extent returned by alloc. */
    int (*free)(void *addr, size_t size);
    /** Optional (NULL = cannot): move the extent's pages to `to`, same addresses. */
    int (*move)(void *addr, size_t size, const place_t *to);
    /** Give the pages back to the OS, keep the range reserved and placed. */
    int (*purge)(void *addr, size_t size);
    /** Optional: make the extent's contents durable (file tiers). */
    int (*flush)(void *addr, size_t size);
} provider_ops_t;

extern const provider_ops_t provider_numa;
extern const provider_ops_t provider_file;
extern const provider_ops_t provider_shm;

/** The provider serving a target and access mode (numa for NUMA targets,
 *  shm for shareable NUMA memory, file for file tiers). NULL if none can. */
const provider_ops_t *provider_for(const struct loci_target *t, bool shared);

#endif
