/*
 * The pool: a size-class allocator over provider extents, with all metadata
 * out of band (DESIGN.md §5). Allocating or freeing never reads or writes the
 * managed memory itself, so the same pool serves DRAM, file-backed tiers and
 * device memory.
 *
 * A heap = (provider, place): memory of one target under one policy,
 * typically one per allocator object and target. Heaps are shared by all
 * threads; each thread keeps a small cache per heap so the common path takes
 * no lock. Any thread may free any pool pointer (pool_free needs no heap).
 *
 * Sizes: blocks up to POOL_SMALL_MAX come from size classes (8 B ... 256 KiB,
 * at most 12.5 % rounding above 128 B) carved from slabs in 4 MiB segments;
 * larger blocks get a dedicated extent, page-aligned, unmapped when freed.
 *
 * Errors: pointer functions return NULL and set errno (ENOMEM, EINVAL) with
 * loci_last_error() explaining; int functions return 0 or a LOCI_E* code.
 */
#ifndef LOCI_POOL_H
#define LOCI_POOL_H

#include "provider/provider.h"

#include <stddef.h>
#include <stdint.h>

#define POOL_SMALL_MAX (256u * 1024) /* largest size served from slabs */
#define POOL_SEGMENT_SIZE (4u << 20) /* slab segments: 64 slices of 64 KiB */

typedef struct pool_heap pool_heap_t;

/* ---------------------------------------------------------------- heaps -- */

/** A heap drawing extents from `ops` placed per `place` (copied). `owner` is
 *  any pointer the layer above wants back from pool_heap_owner() (allocator,
 *  arena). place->target may be NULL (no capacity accounting then).
 *  NULL + errno on failure. */
pool_heap_t *pool_heap_create(const provider_ops_t *ops, const place_t *place, void *owner);

/** Free everything allocated in the heap (live blocks included), unmap all
 *  its extents and destroy it. No thread may use the heap or its blocks
 *  during or after the call; other threads' caches for it are dropped. */
void pool_heap_destroy(pool_heap_t *h);

void *pool_heap_owner(const pool_heap_t *h);
const place_t *pool_heap_place(const pool_heap_t *h);
const provider_ops_t *pool_heap_ops(const pool_heap_t *h);

/** Give memory back now: flush the calling thread's cache for h and purge
 *  every empty slab (whatever its age), unmapping empty segments. */
void pool_heap_collect(pool_heap_t *h);

/** Call cb(base, size, arg) for each extent the heap has mapped (slab
 *  segments and dedicated blocks), under the heap lock: cb must not allocate
 *  from or free into this heap. Stops at, and returns, the first nonzero
 *  value cb returns; 0 otherwise. */
int pool_heap_foreach_extent(pool_heap_t *h, int (*cb)(void *base, size_t size, void *arg), void *arg);

/* ---------------------------------------------------------- allocation -- */

/** `size` bytes (size 0: a unique freeable pointer). Blocks are aligned to
 *  the largest power of two dividing their size class (so any type that fits
 *  is aligned), blocks above POOL_SMALL_MAX to the page. NULL + ENOMEM. */
void *pool_alloc(pool_heap_t *h, size_t size);

/** n * size zeroed bytes; NULL + ENOMEM when n * size overflows. */
void *pool_calloc(pool_heap_t *h, size_t n, size_t size);

/** `size` bytes aligned to `align` (a power of two, any size up to the
 *  provider's limits; 2 MiB and more get a dedicated aligned extent).
 *  NULL + EINVAL when align is not a power of two. */
void *pool_aligned_alloc(pool_heap_t *h, size_t align, size_t size);

/** Resize p (which must be a pool pointer, not NULL) within its heap: in place
 *  when the new size still fits its block well, else a new block with the
 *  contents copied and p freed. On failure returns NULL and p is untouched.
 *  Alignment beyond the natural one is not preserved when the block moves. */
void *pool_realloc(void *p, size_t size);

/** Free a block of any heap. NULL is fine (0). A pointer loci did not make,
 *  one inside a block, or a block already freed returns LOCI_EINVAL: it is
 *  logged as a warning and reported in loci_last_error(), and nothing changes. */
int pool_free(void *p);

/* -------------------------------------------------------------- lookups -- */
/* O(1) through the page map; any address inside a pool extent is resolved. */

/** Usable bytes of the live block starting at p (>= the size asked), 0 when
 *  p is not the start of a live pool block. */
size_t pool_usable_size(const void *p);

/** The live block containing address p: its start, and its usable size in
 *  *size (may be NULL). NULL when p is not inside a live block. */
void *pool_block_of(const void *p, size_t *size);

/** The heap whose extent contains address p (interior pointers too), or NULL. */
pool_heap_t *pool_heap_of(const void *p);

/** The target p's heap charges (place->target), or NULL. */
const struct loci_target *pool_target_of(const void *p);

/* ---------------------------------------------------------------- stats -- */

/** Counters of a heap or a target. "Bytes" of blocks are usable bytes (the
 *  size class, or the page-rounded size of dedicated blocks), not the sizes
 *  asked for: the pool never stores requested sizes. */
typedef struct {
    uint64_t bytes_in_use;    /* live blocks now (exact at the time of the call) */
    uint64_t bytes_committed; /* slabs and dedicated extents now: what is charged
                               * to the target (>= bytes_in_use: includes free
                               * blocks in slabs and thread caches) */
    uint64_t bytes_peak;      /* high-water mark of bytes_committed (so >= the peak
                               * of bytes_in_use); kept where memory is committed,
                               * off the allocation fast path */
    uint64_t bytes_mapped;    /* address space mapped: segments + dedicated extents */
    uint64_t allocs, frees;   /* successful calls since creation */
    uint64_t extents_mapped;  /* extents mapped now */
    uint64_t extents_total;   /* extents mapped since creation */
    uint64_t purges;          /* slabs given back to the OS */
} pool_stats_t;

/** Counters of one heap. */
int pool_stats_heap(const pool_heap_t *h, pool_stats_t *st);

/** Counters of all heaps on target t, past and present (bytes_peak is the
 *  target's own high-water mark of committed bytes). Zeros for a target
 *  never used. */
int pool_stats_target(const struct loci_target *t, pool_stats_t *st);

/* ------------------------------------------------------------- control -- */

/** How long an empty slab stays ready for reuse before its pages are given
 *  back to the OS (default 100 ms; 0 = at once). Returns the old value. */
unsigned pool_set_purge_delay_ms(unsigned ms);

/** Safety margin kept free on a NUMA node under strict (bind) placement
 *  (default: 1/64 of the node's capacity, at least 32 MiB, at most 256 MiB).
 *  0 restores the default. */
void pool_set_node_margin(uint64_t bytes);

/** Flush the calling thread's caches of every heap back to the heaps. */
void pool_thread_flush(void);

/** Destroy every heap still alive and forget per-target accounts (called by
 *  loci_fini, before the topology goes away). */
void pool_fini(void);

#endif
