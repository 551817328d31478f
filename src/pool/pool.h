/*
 * The pool: a size-class allocator over provider extents, with all metadata
 * out of band (DESIGN.md §5). Allocating or freeing never reads or writes the
 * managed memory itself, so the same pool serves DRAM, file-backed tiers and
 * device memory.
 *
 * A heap = (provider, place): memory of one target under one policy,
 * typically one per allocator object and target. Heaps are shared by all
 * threads; each thread keeps a cache per heap (per size class: a stack of
 * freed blocks and a run of fresh ones, pointers in DRAM) so the common path
 * takes no lock and no atomic read-modify-write. Any thread may free any
 * pool pointer (pool_free needs no heap); the block joins the freeing
 * thread's cache.
 *
 * Sizes: blocks up to POOL_SMALL_MAX come from size classes (8 B ... 256 KiB,
 * at most 12.5 % rounding above 128 B) carved from slabs (runs of 64 KiB
 * slices of 4 MiB segments); larger blocks up to POOL_CARVE_MAX (2 MiB) are
 * runs of slices themselves, page-aligned (a thread keeps up to 4 of those
 * it freed, 4 MiB at most, for its next big block of the same size: no
 * lock); larger still get a dedicated extent, page-aligned. A page map (64 KiB granularity) finds any pointer's slab or
 * extent in O(1); a state byte per block start says whether it is live,
 * which catches double and foreign frees.
 *
 * Retention: memory freed is kept resident for reuse (faulting pages in
 * again costs far more than keeping them), within limits, and goes back to
 * the kernel (provider purge, unmap) after sustained frees:
 *  - empty slabs, the slices of freed big blocks (dirty slices, carved
 *    again for a block of any size), and freed dedicated extents (in a
 *    per-heap extent cache, out of the page map, reused for a block of the
 *    same size to 1/8 more), stay ready, still charged to the target while
 *    their pages are resident;
 *  - budget: a heap keeps at most max(64 MiB, twice its recent peak of
 *    bytes in use) that way (free memory is split by size class); past it
 *    the oldest go at once;
 *  - age: what stayed unused for the purge delay (10 s by default,
 *    pool_set_purge_delay_ms) goes back — a class still refilling keeps its
 *    empty slabs up to ten delays; a cached extent is purged, then unmapped
 *    one delay later;
 *  - pool_heap_collect() gives everything back at once, and so does a charge
 *    that would fail (capacity cap, node free memory) before failing;
 *  - pinned heaps never purge pages: they unmap, or keep, whole extents.
 * The checks run on the pool's slow paths (refills, full caches, big blocks),
 * never on the fast paths, and release a bounded amount each time; a heap
 * left idle keeps what it retains until its next slow path or collect.
 * Every byte committed is first charged to the target (capacity cap, node
 * free memory), see pool_alloc.
 *
 * Errors: pointer functions return NULL and set errno (ENOMEM, EINVAL) with
 * loci_last_error() explaining; int functions return 0 or a LOCI_E* code.
 * Every function is thread-safe; a heap must not be used during or after
 * its destruction.
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
const provider_ops_t *pool_heap_ops(const pool_heap_t *h);

/** What a heap's owner is, so that a pointer's heap leads to an allocator or
 *  an arena (loci_realloc, loci_ptr_arena). Heaps start as allocators'. Set
 *  it before the heap's first allocation: an arena's heap maps its extents
 *  2 MiB-aligned, in 2 MiB multiples (pool__extent_align). */
typedef enum { POOL_OWNER_ALLOCATOR = 0, POOL_OWNER_ARENA } pool_owner_kind_t;
void pool_heap_set_owner_kind(pool_heap_t *h, pool_owner_kind_t kind);
pool_owner_kind_t pool_heap_owner_kind(const pool_heap_t *h);

/** Re-home h: its memory goes to `place` through `ops`, at the same addresses
 *  (an arena moving to another target). First charges h's committed bytes to
 *  place->target (its cap, and free memory on a NUMA node: LOCI_ENOMEM and
 *  nothing done). Then, under the heap lock (no extent comes or goes),
 *  calls move(base, size, arg) for each extent; the first nonzero value
 *  stops the walk and is returned, h unchanged: `move` must undo what it did
 *  before returning it. When all succeed, h maps new extents from `ops` per
 *  `place` and its bytes count on the new target instead of the old. No
 *  allocation from h may run meanwhile; frees may (those that give memory
 *  back wait for the walk). */
int pool_heap_rebase(pool_heap_t *h, const provider_ops_t *ops, const place_t *place,
                     int (*move)(void *base, size_t size, void *arg), void *arg);

/** What an allocation that failed asked for (see pool_heap_set_on_fail). */
typedef enum { POOL_REQ_ALLOC, POOL_REQ_CALLOC, POOL_REQ_ALIGNED } pool_req_kind_t;
typedef struct {
    pool_req_kind_t kind;
    size_t size;  /* bytes (POOL_REQ_CALLOC: of one element) */
    size_t n;     /* POOL_REQ_CALLOC: elements; else 1 */
    size_t align; /* POOL_REQ_ALIGNED: the alignment; else 0 */
} pool_request_t;

/** Called on the allocating thread when pool_alloc / pool_calloc /
 *  pool_aligned_alloc on h cannot serve a request (the target is full, its
 *  provider failed...), with errno and loci_last_error() saying why. What it
 *  returns is what the caller gets (a calloc's memory must be zeroed); NULL
 *  keeps the failure. This is where an allocator applies its fallback
 *  without a test on its own fast path: loci_alloc can be a tail call. */
typedef void *(*pool_on_fail_fn)(pool_heap_t *h, const pool_request_t *req);

/** Install (or with NULL remove) h's failure hook. Thread-safe. */
void pool_heap_set_on_fail(pool_heap_t *h, pool_on_fail_fn fn);

/** Give memory back now: flush the calling thread's cache for h, purge
 *  every empty slab (whatever its age), unmapping empty segments, and unmap
 *  the freed extents h keeps for reuse. Other threads' caches keep what they
 *  hold until they refill, flush or exit. */
void pool_heap_collect(pool_heap_t *h);

/** Call cb(base, size, arg) for each extent the heap has mapped (slab
 *  segments and dedicated blocks), under the heap lock: cb must not allocate
 *  from or free into this heap. Stops at, and returns, the first nonzero
 *  value cb returns; 0 otherwise. */
int pool_heap_foreach_extent(pool_heap_t *h, int (*cb)(void *base, size_t size, void *arg), void *arg);

/* ---------------------------------------------------------- allocation -- */

/** `size` bytes (size 0: a unique freeable pointer). Blocks are aligned to
 *  the largest power of two dividing their size class (so any type that fits
 *  is aligned), blocks above POOL_SMALL_MAX to the page.
 *  Before memory is committed (a new slab, a big block) its bytes are charged
 *  to the heap's target; the charge is refused when it would pass the
 *  target's capacity cap (capacity from the config), or, for real NUMA
 *  placement on one target (bind or preferred), leave less than a safety
 *  margin of the nodes' free memory. Strict (bind) memory is also faulted
 *  in at once, so a full node answers ENOMEM here, not with the OOM killer.
 *  Failure: the heap's failure hook if any, else NULL + ENOMEM and
 *  loci_last_error() naming the target, its cap or free memory, and usage. */
void *pool_alloc(pool_heap_t *h, size_t size);

/** n * size zeroed bytes; NULL + ENOMEM when n * size overflows. */
void *pool_calloc(pool_heap_t *h, size_t n, size_t size);

/** `size` bytes aligned to `align` (a power of two). Alignments up to 64 KiB
 *  use a size class whose blocks all have it (when it wastes at most half a
 *  block); others, and big sizes, get a dedicated extent aligned as asked.
 *  NULL + EINVAL when align is not a power of two. */
void *pool_aligned_alloc(pool_heap_t *h, size_t align, size_t size);

/** Resize p (which must be a pool pointer, not NULL) within its heap: in place
 *  when the new size still fits its block well, else a new block with the
 *  contents copied and p freed. On failure returns NULL and p is untouched.
 *  Alignment beyond the natural one is not preserved when the block moves. */
void *pool_realloc(void *p, size_t size);

/** Copy n bytes between blocks of any heaps (a block moving to another
 *  heap): memcpy, or the provider's copy when either side is memory the CPU
 *  must not touch (GPU device memory). 0 or LOCI_E* with loci__fail. */
int pool_copy(void *dst, const void *src, size_t n);

/** The end of every realloc by moving (pool_realloc, loci_realloc, an
 *  arena's): block src's first n bytes into the new block dst (pool_copy),
 *  then src given back with `release` (pool_free, or the free of the heap
 *  both came from: a shared arena's); dst. When the copy fails, dst is
 *  released, src kept: NULL with errno set. */
void *pool_realloc_into(void *dst, void *src, size_t n, int (*release)(void *));

/** Free a block of any heap. NULL is fine (0). A pointer inside a block or a
 *  block already freed returns LOCI_EINVAL: logged as a warning and reported
 *  in loci_last_error(), and nothing changes. An address the pool never
 *  handed out returns LOCI_ENOENT, reported in loci_last_error() but not
 *  logged: the caller may know it as other memory (core: a region's). */
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
 *  asked for: the pool never stores requested sizes. Threads count in their
 *  own caches and the reader sums them: exact when the heap is quiescent,
 *  a consistent-enough snapshot while other threads allocate. */
typedef struct {
    uint64_t bytes_in_use;    /* live blocks now (exact at the time of the call) */
    uint64_t bytes_committed; /* slabs, carved blocks and dedicated extents now:
                               * what is charged to the target (>= bytes_in_use:
                               * includes free blocks in slabs and thread caches,
                               * empty slabs, dirty slices and freed extents kept
                               * for reuse) */
    uint64_t bytes_peak;      /* high-water mark of bytes_committed (so >= the peak
                               * of bytes_in_use); kept where memory is committed,
                               * off the allocation fast path */
    uint64_t bytes_mapped;    /* address space mapped: segments + dedicated extents */
    uint64_t frees;           /* successful pool_free calls since creation */
    uint64_t allocs;          /* successful allocations: frees + live blocks */
    uint64_t extents_mapped;  /* extents mapped now (cached freed ones too) */
    uint64_t extents_total;   /* extents mapped since creation */
    uint64_t purges;          /* slabs, dirty slices and cached extents given back to the OS */
} pool_stats_t;

/** Counters of one heap. */
int pool_stats_heap(const pool_heap_t *h, pool_stats_t *st);

/** Counters of all heaps on target t, past and present (bytes_peak is the
 *  target's own high-water mark of committed bytes). Zeros for a target
 *  never used. */
int pool_stats_target(const struct loci_target *t, pool_stats_t *st);

/* ------------------------------------------------------------- control -- */

/** How long retained memory (an empty slab, a freed big extent) may stay
 *  unused before its pages go back to the OS (default 10 s; a size class
 *  still refilling keeps its empty slabs ten times longer; a purged extent
 *  is unmapped one delay later). Within it, each heap still keeps at most
 *  max(64 MiB, twice its recent peak in use). 0 = retain nothing: slabs go
 *  back as they empty, freed extents are unmapped at once. Returns the old
 *  value. */
unsigned pool_set_purge_delay_ms(unsigned ms);

/** Safety margin kept free on a NUMA node under placement on one target
 *  (bind or preferred; default: 1/64 of the node's capacity, at least
 *  32 MiB, at most 256 MiB). 0 restores the default. */
void pool_set_node_margin(uint64_t bytes);

/** The safety margin the pool keeps free on target t's node (the one set,
 *  else t's default): memory above it is what an arena can get there. */
uint64_t pool_node_margin(const struct loci_target *t);

/** Flush the calling thread's caches of every heap back to the heaps. */
void pool_thread_flush(void);

/** Destroy every heap still alive and forget per-target accounts (called by
 *  loci_fini, before the topology goes away). */
void pool_fini(void);

/** fork() handler of the pool (core/fork.c): every lock, see pool/fork.c. */
void pool_fork(loci_fork_phase_t phase);

#endif
