/*
 * What crosses files inside the pool: the out-of-band metadata structures,
 * the page map, size classes and the per-thread caches. Only src/pool/ sees
 * this; other layers use pool.h, except the two per-block entry points of
 * loci.h (loci_alloc in src/alloc, loci_free in src/core), which carry the
 * pool's fast paths inline (pool__alloc_fast, pool__free_fast, at the end)
 * so that a block costs no call between the layers.
 *
 *   heap ──┬─ class[c]: lock, partial slabs, empty slabs (retained, oldest at the tail)
 *          ├─ segments (4 MiB extents of 64 KiB slices; slabs are runs of slices)
 *          ├─ large extents (one block each)
 *          └─ extent cache: freed large extents kept mapped for reuse (heap lock)
 *   page map: slice (64 KiB) → tagged slab or large descriptor, 2-level radix
 *   thread cache (per thread, per heap), per class: a stack of freed
 *          {block, its state byte}, a run of consecutive fresh blocks that
 *          refills the stack a batch at a time, and the slab it refills
 *          from; pop/push without locks or atomics.
 *
 * Block state lives in a byte array beside the slab (BLOCK_LIVE / BLOCK_FREE):
 * free checks and clears it (double free detection), alloc sets it. Which
 * free blocks are still in the slab (not in any cache) is a bitmap under the
 * class lock. All of it is DRAM the pool allocates with malloc; the managed
 * memory is never read or written.
 *
 * The files call each other one way (no circle), each only files listed
 * before it: classes, thread (the thread's TLS), registry, account, pagemap,
 * segment, extent_cache, retain (what freed memory stays resident), slab,
 * tcache, large, stats, heap; and the entry points lookup, free, alloc,
 * fork. A file low in the order that needs something done above it (a
 * thread's kept big blocks freed on reclaim) holds that piece itself.
 */
#ifndef LOCI_POOL_INTERNAL_H
#define LOCI_POOL_INTERNAL_H

#include "pool/pool.h"
#include "clock.h"
#include "list.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SLICE_SHIFT 16
#define SLICE_SIZE ((size_t)1 << SLICE_SHIFT)
#define SEG_SLICES (POOL_SEGMENT_SIZE / SLICE_SIZE) /* 64: one bit each in segment->used */
#define NCLASSES 104                                /* 8 B ... 256 KiB */
#define MAGIC_SHIFT 40                              /* block index = offset * magic >> 40 */

typedef _Atomic uint64_t counter_t;

/* --- size classes (classes.c) -------------------------------------------- */
/* 8..128 B in steps of 8, then 8 classes per doubling up to 256 KiB. */

extern uint32_t pool_class_size[NCLASSES];
extern uint16_t pool_class_slices[NCLASSES]; /* slab size in slices */
extern uint16_t pool_class_cap[NCLASSES];    /* thread cache capacity */
extern uint16_t pool_class_batch[NCLASSES];  /* fresh blocks a run puts on the stack at a time */
extern size_t pool_page_size;

/* Class of a size above 128 B and at most POOL_SMALL_MAX; s1 = size - 1. */
static inline unsigned pool_size_class_big(size_t s1)
{
    unsigned b = 63u - (unsigned)__builtin_clzll(s1); /* 2^b < size <= 2^(b+1) */
    return 16 + (b - 7) * 8 + (unsigned)(s1 >> (b - 3)) - 8;
}

/* Class of any size up to POOL_SMALL_MAX (0 is the smallest class). */
static inline unsigned pool_size_class(size_t size)
{
    if (size <= 128)
        return size ? (unsigned)((size - 1) >> 3) : 0;
    return pool_size_class_big(size - 1);
}

void pool__classes_init(void);

/* --- descriptors ---------------------------------------------------------- */

enum { DESC_SLAB = 1, DESC_LARGE = 2 }; /* (pool__free_at tests DESC_SLAB's bit alone) */
enum { BLOCK_FREE = 0, BLOCK_LIVE = 1 };
/* Where a slab is: on no list (all its blocks out), on its class's partial
 * or empty list, or owned by one thread's cache (which refills from it
 * alone, so threads do not share slabs' metadata lines). */
enum { SLAB_UNUSED = 0, SLAB_FULL, SLAB_PARTIAL, SLAB_EMPTY, SLAB_OWNED };

struct segment;

/* A run of slices holding blocks of one class, with its metadata in DRAM
 * (one cache-line-aligned allocation): this descriptor, then one state byte
 * per `1 << shift` bytes of the slab (shift: the largest power of two
 * dividing the block size, at most PM_MAX_SHIFT, so every block start has a
 * byte of its own and no interior address that could pass for a start
 * shares it), then the bitmap. The first fields are fixed while the slab is
 * in the page map (set before it enters); the second line is under the
 * class lock. */
typedef struct slab {
    pool_heap_t *heap;
    uint8_t cls;
    uint8_t shift;
    uint16_t nslices;
    uint32_t bsize;
    uint32_t nblocks;
    uint32_t first; /* first slice in the segment */
    uint64_t magic; /* ceil(2^40 / bsize): block index = offset * magic >> 40 */
    uintptr_t base;
    struct segment *seg;
    uint64_t *avail; /* bit per block, set: in the slab (not live, not cached) */
    /* --- under the class lock, on a cache line of its own --- */
    uint32_t navail __attribute__((aligned(64)));
    uint32_t scan; /* first bitmap word that may have a bit */
    struct slab *next, *prev;
    uint64_t empty_since; /* ms, set when navail reached nblocks */
    uint8_t where;        /* SLAB_* list it is on */
    _Atomic uint8_t state[] __attribute__((aligned(64))); /* BLOCK_LIVE / BLOCK_FREE per unit */
} slab_t;

/* A big block: a dedicated extent, or, up to POOL_CARVE_MAX, a run of
 * slices of a segment (seg set). A dedicated one, freed, waits in its heap's
 * extent cache (out of the page map then); carved ones go back to their
 * segment as dirty slices. */
typedef struct large {
    _Atomic uint8_t live;
    uint8_t purged; /* cached: its pages were given back (reads as zeros) */
    uint8_t busy;   /* cached: being purged (not to be taken), heap lock */
    uint8_t first;  /* carved: first slice in seg */
    uint8_t nslices; /* carved: slices (size rounded up to a slice) */
    struct segment *seg; /* carved: its segment; NULL for a dedicated extent */
    uintptr_t base;
    size_t size;
    pool_heap_t *heap;
    struct large *next, *prev;   /* heap->larges, or a cache age list; under heap->lock */
    struct large *bnext, *bprev; /* cached: its size bin */
    uint64_t since;              /* cached: ms when cached (or purged) */
} large_t;

/* A 4 MiB extent cut into 64 KiB slices; slabs and carved big blocks are
 * runs of slices (segment.c). Under heap->lock. */
typedef struct segment {
    uintptr_t base;
    uint64_t used;  /* bit per slice: a slab's or a block's */
    uint64_t dirty; /* bit per free slice still resident and charged (retained) */
    uint64_t dirty_ms; /* when slices were last made dirty */
    bool full;      /* on h->segs_full (used == all ones), else on h->segments */
    struct segment *next, *prev;   /* h->segments or h->segs_full */
    struct segment *dnext, *dprev; /* h->dirty, while dirty != 0 */
    slab_t *slabs[SEG_SLICES]; /* the slab starting at slice i, or NULL */
} segment_t;

/* --- thread caches (tcache.c) --------------------------------------------- */

typedef struct {
    void *p;
    _Atomic uint8_t *state;
} tentry_t;

/* One size class in a thread's cache: a stack of freed blocks, and a run
 * of consecutive blocks claimed from a slab in one go (fresh memory costs
 * one lock per slab, not per batch). The run moves onto the stack a batch
 * at a time (pool__run_fill), so the allocation fast path only pops. The
 * counts are written by the owning thread only (and read by stats). */
typedef struct {
    /* The stack: slots[0] .. top[-1], top[-1] the next block given; end =
     * slots + capacity. Pointers, not counts, so that a push or a pop is
     * one compare and no index arithmetic. All NULL until first used. */
    _Atomic(tentry_t *) top;
    tentry_t *end;
    _Atomic(tentry_t *) slots;
    _Atomic uint32_t run_n;   /* blocks left in the run */
    uint32_t run_step;        /* state bytes from one block of the run to the next */
    uintptr_t run_p;          /* next block of the run */
    _Atomic uint8_t *run_st;  /* its state byte */
    counter_t nfree;          /* blocks freed into this cache (stats) */
    struct slab *own;         /* the slab this cache refills from (class lock) */
} tbin_t;

static inline tentry_t *bin_top(const tbin_t *b)
{
    return atomic_load_explicit((_Atomic(tentry_t *) *)&b->top, memory_order_relaxed);
}

static inline tentry_t *bin_slots(const tbin_t *b)
{
    return atomic_load_explicit((_Atomic(tentry_t *) *)&b->slots, memory_order_relaxed);
}

/* Blocks on the stack (any thread: stats reads other threads' caches and
 * may see the two pointers of different moments, hence the clamp). */
static inline uint32_t bin_count(const tbin_t *b)
{
    tentry_t *top = bin_top(b), *slots = bin_slots(b);
    return slots && top > slots ? (uint32_t)(top - slots) : 0;
}

static inline uint32_t bin_cap(const tbin_t *b) { return (uint32_t)(b->end - bin_slots(b)); }

static inline void bin_set_count(tbin_t *b, uint32_t n)
{
    tentry_t *slots = bin_slots(b);
    atomic_store_explicit(&b->top, slots ? slots + n : NULL, memory_order_relaxed);
}

static inline uint32_t run_count(const tbin_t *b)
{
    return atomic_load_explicit((_Atomic uint32_t *)&b->run_n, memory_order_relaxed);
}

/* Carved big blocks a thread's cache keeps (see pool__tcache_big_put). */
#define TBIG_MAX 4u
#define TBIG_BYTES ((size_t)4 << 20)

typedef struct tcache {
    _Atomic(pool_heap_t *) heap; /* NULL once detached (heap destroyed) */
    struct tcache *next, *prev;  /* in heap->tcaches, under the registry lock */
    /* blocks (and bytes) this thread took out of slabs minus those it put
     * back, live or cached: wrap below zero when other threads return them */
    counter_t held_blocks, held_bytes;
    tbin_t bins[NCLASSES];
    /* freed carved big blocks, newest last: still linked in the heap, their
     * slices used and charged, out of the page map (so a second free is
     * caught as a foreign pointer). Counts written by the owner only. */
    struct large *big[TBIG_MAX];
    _Atomic uint32_t nbig;
    counter_t big_bytes, big_nfree;
} tcache_t;

typedef struct {
    tcache_t *last; /* the cache used last (never NULL: a dummy with no heap) */
    uintptr_t leaf_key;       /* page-map root slot of the leaf below (UINTPTR_MAX: none) */
    struct pm_entry *leaf;    /* the page-map leaf used last (leaves are never freed) */
    tcache_t **v;   /* indexed by heap id */
    uint32_t n;
    uint32_t ticks; /* slow paths taken (the decay clock is read every 8th) */
    uint8_t dead;   /* thread exiting: no caches any more */
    uint8_t keyed;
} tlocal_t;

/* The calling thread's pool state and the cache that matches no heap (thread.c). */
extern __thread tlocal_t pool__tl __attribute__((tls_model("initial-exec")));
extern tcache_t pool__no_cache;

/* Slow path of pool__tcache_of: by heap id, attaching a cache on first use;
 * NULL when the thread cannot have one (exiting, out of memory). */
tcache_t *pool__tcache_find(pool_heap_t *h);
/* The calling thread's cache for h if it has one (never attaches one; thread.c). */
tcache_t *pool__tcache_mine(pool_heap_t *h);
/* Registry lock held: drop every cache of h (heap being destroyed). */
void pool__tcache_detach_all(pool_heap_t *h);
/* Return the cached blocks of tc to its heap (registry lock held, or the
 * owning thread with its heap alive). */
void pool__tcache_flush(tcache_t *tc);
/* The calling thread's cache of big blocks (large.c). Put: keep the freed
 * carved block d of h (false: no room, the caller frees it). Take: from the
 * calling thread's cache tc, a kept block of n slices, resized to `bytes`,
 * or NULL. (They go back with pool__free_carved_kept, retain.c.) */
bool pool__tcache_big_put(pool_heap_t *h, struct large *d);
struct large *pool__tcache_big_take(tcache_t *tc, unsigned n, size_t bytes);
/* Slow paths of the fast paths in alloc.c / free.c. Alloc: a cache to
 * attach, an empty bin to refill. Free: the block is already marked free;
 * put it in a cache (flushing half of a full one) or its slab. aux: its
 * page-map entry's second word (heap | class). */
void *pool__alloc_small_slow(pool_heap_t *h, unsigned cls);
int pool__free_small_slow(uintptr_t aux, void *p, _Atomic uint8_t *state);
/* Registry lock held: allocations, frees and bytes in use of h. */
void pool__heap_counts(const pool_heap_t *h, uint64_t *allocs, uint64_t *frees, uint64_t *in_use);

/* Counters written by one thread only: plain load and store, no lock prefix.
 * counter_inc is on the free fast path: on x86-64 one non-locked add to
 * memory (the compiler keeps an atomic load and store as three
 * instructions); an aligned 8-byte store is single-copy atomic there, so
 * readers' relaxed loads see the old or the new count. ThreadSanitizer
 * builds keep the C form, which it can check. */
static inline void counter_inc(counter_t *c)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
    __asm__("addq $1, %0" : "+m"(*(uint64_t *)c));
#else
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
#endif
}

static inline void counter_add(counter_t *c, int64_t d)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + (uint64_t)d, memory_order_relaxed);
}

static inline uint64_t counter_get(const counter_t *c)
{
    return atomic_load_explicit((counter_t *)c, memory_order_relaxed);
}

/* Raise a high-water mark to now (any thread). */
static inline void pool__peak_raise(counter_t *peak, uint64_t now)
{
    uint64_t p = atomic_load_explicit(peak, memory_order_relaxed);
    while (now > p && !atomic_compare_exchange_weak_explicit(peak, &p, now, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

/* --- per-target accounts (account.c) --------------------------------------- */

typedef struct account {
    const struct loci_target *target;
    counter_t charged, peak, mapped, nextents, nextents_total, purges; /* peak: of charged */
    uint64_t retired_allocs, retired_frees; /* of destroyed heaps, registry lock */
    pthread_mutex_t lock;                   /* the node free-memory estimate */
    uint64_t free_seen, charged_seen, seen_ms;
    struct account *next;
} account_t;

/* Registry lock held. NULL target: NULL (nothing to account). */
account_t *pool__account_get(const struct loci_target *t);
account_t *pool__account_find(const struct loci_target *t);
/* Charge bytes to h's target before committing memory: cap and node checks.
 * 0 or LOCI_ENOMEM with a message naming the target. */
int pool__charge(pool_heap_t *h, size_t bytes);
/* The same for the pages of a heap that moves to account a's target, placed
 * per place by ops (its next home): without the node's safety margin, which
 * keeps room for allocations to come — a move brings pages already made, and
 * gets them within the kernel's reserve or fails (arena/room.c). */
int pool__charge_move(account_t *a, const provider_ops_t *ops, const place_t *place, size_t bytes);
/* Heap lock held: h's extents, and its `committed` bytes already charged
 * to `to`, leave its account for `to` (pool_heap_rebase). */
void pool__account_move(pool_heap_t *h, account_t *to, uint64_t committed);
void pool__uncharge(pool_heap_t *h, size_t bytes);
/* Blocks (and bytes) taken out of slabs and large extents (> 0) or put back
 * (< 0), live or cached: on tc's counters, or the heap's when tc is NULL.
 * Live = held - cached; allocations = frees + live. */
void pool__held_add(pool_heap_t *h, tcache_t *tc, int64_t bytes, int64_t blocks);
/* Bytes of slabs and dedicated extents (committed), with its high-water mark. */
void pool__committed_add(pool_heap_t *h, int64_t bytes);
void pool__mapped_add(pool_heap_t *h, int64_t bytes, int extents);
void pool__accounts_free(void);
/* Each account's lock, for pool_fork (registry lock held before). */
void pool__accounts_fork(loci_fork_phase_t phase);

/* --- heaps (heap.c) ---------------------------------------------------------- */

typedef struct hclass {
    pthread_mutex_t lock;
    slab_t *partial;               /* some blocks available */
    slab_t *empty, *empty_tail;    /* all blocks available; head = newest */
    _Atomic uint32_t nempty;
    _Atomic uint64_t refilled_ms;  /* last refill: the class is in use */
    _Atomic uint64_t oldest_ms;    /* empty_since of empty_tail; UINT64_MAX when none */
} __attribute__((aligned(64))) hclass_t;

/* Zero block bytes: through the provider when the CPU must not touch them
 * (GPU memory), else memset. 0 or LOCI_E* with loci__fail. (Copies: pool_copy.) */
static inline int pool__zero(const provider_ops_t *ops, void *p, size_t n)
{
    if (ops->device)
        return ops->device->zero(p, n);
    memset(p, 0, n);
    return 0;
}

/* The extent cache's size bins: 8 per doubling from one page (4 KiB) up. */
#define LC_BINS (8 * (48 - 12))

struct pool_heap {
    uint32_t id; /* index of this heap's cache in every thread */
    /* (128-aligned: page-map entries carry the heap with the class in its low bits) */
    bool strict; /* place_is_strict: check node free memory, populate */
    bool purgeable;
    uint8_t owner_kind; /* pool_owner_kind_t */
    const provider_ops_t *ops;
    void *owner;
    /* atomic: pool_heap_rebase switches it while other threads free */
    _Atomic(account_t *) acct;
    place_t place;
    pthread_mutex_t lock; /* segments, larges */
    segment_t *segments, *segs_full; /* with free slices; without (segment.c) */
    segment_t *dirty, *dirty_tail;   /* with dirty slices, last freed into first */
    _Atomic uint32_t ndirty;         /* segments on that list */
    large_t *larges;
    tcache_t *tcaches;             /* registry lock */
    struct pool_heap *next, *prev; /* registry list */
    _Atomic(pool_on_fail_fn) on_fail;
    counter_t committed, peak, mapped, nextents, nextents_total, purges;
    /* outside thread caches (large blocks, no cache), and folded from finished caches */
    counter_t frees, held_blocks, held_bytes;
    /* retention (retain.c): bytes kept ready for reuse (empty slabs, resident
     * cached extents), the peaks of bytes in use (committed - retained) in
     * this window and the last, and the decay clock */
    _Atomic uint64_t retained, peak_cur, peak_prev, window_ms, next_decay_ms;
    _Atomic uint32_t npurging; /* purges in flight outside the locks (rebase waits) */
    /* extent cache (extent_cache.c), under lock: age lists (head newest) of resident
     * and purged extents, and size bins */
    _Atomic uint32_t lc_count;
    large_t *lc_res, *lc_res_tail, *lc_pur, *lc_pur_tail;
    large_t *lc_bin[LC_BINS];
    hclass_t cls[NCLASSES];
} __attribute__((aligned(128)));

/* The registry (registry.c): its lock guards heaps, ids, caches' links and
 * accounts. An id is a heap's index in every thread's caches: take one
 * (UINT32_MAX: out of memory), drop it, free them all (pool_fini). */
extern pthread_mutex_t pool__registry;
extern pool_heap_t *pool__heaps;
uint32_t pool__heap_id_take(pool_heap_t *h);
void pool__heap_id_drop(uint32_t id);
void pool__heap_ids_free(void);

/* Heap lock held: big block d enters or leaves h->larges. */
static inline void pool__large_link(pool_heap_t *h, large_t *d) { DLIST_PUSH(h->larges, d, next, prev); }
static inline void pool__large_unlink(pool_heap_t *h, large_t *d) { DLIST_UNLINK(h->larges, d, next, prev); }


/* --- page map (pagemap.c) ---------------------------------------------------- */
/* 48-bit addresses: 14 bits of root, 18 bits of leaf, 16 bits within a slice.
 * Root slots hold the byte offset of their leaf from a shared all-zero leaf
 * (so an empty slot needs no test); each thread also remembers the last leaf
 * it used. An entry is two words:
 *   e:   0 (nothing of loci's), or a pointer (bits 2..47) tagged with its
 *        kind in bits 0..1: for a large block its descriptor; for a slab the
 *        slab's state byte of the slice's first byte, with the slab's state
 *        shift in bits 56..61 and the slice's index in the slab in bits
 *        48..55, so the state byte of an address is one shift and one add
 *        away, and the descriptor is known too (pm_slab);
 *   aux: for slabs, the heap (128-aligned) | the size class: what pool_free
 *        needs to find the thread's cache, without reading the descriptor.
 * Writers set aux before e (release) and clear e first. */

#define PM_ADDR_BITS 48
#define PM_LEAF_BITS 18
#define PM_ROOT_BITS (PM_ADDR_BITS - SLICE_SHIFT - PM_LEAF_BITS)
#define PM_TAG_MASK ((uintptr_t)3)
#define PM_PTR_MASK ((((uintptr_t)1 << PM_ADDR_BITS) - 1) & ~(uintptr_t)3)
#define PM_MAX_SHIFT 14 /* state units of at most 16 KiB: slice offsets of state stay 4-aligned */
#define PM_CLS_MASK ((uintptr_t)127)

typedef struct pm_entry {
    _Atomic uintptr_t e, aux;
} __attribute__((aligned(16))) pm_entry_t;

extern pm_entry_t pool__pm_zero_leaf[(size_t)1 << PM_LEAF_BITS];
extern _Atomic uintptr_t pool__pm_root[(size_t)1 << PM_ROOT_BITS];
extern pm_entry_t *pool__pm_leaves[(size_t)1 << PM_ROOT_BITS]; /* what leak checkers see of the leaves (pagemap.c) */

static inline size_t pm_index(uintptr_t a)
{
    return (a >> SLICE_SHIFT) & (((uintptr_t)1 << PM_LEAF_BITS) - 1);
}

/* The entry of address a through the root (and remember the leaf for this
 * thread); the all-zero entry when loci has nothing there. */
const pm_entry_t *pool__pagemap_slot_slow(uintptr_t a);

/* The page-map entry of address a (each thread remembers its last leaf). */
static inline const pm_entry_t *pool__pagemap_slot(uintptr_t a)
{
    if (LOCI_LIKELY(a >> (SLICE_SHIFT + PM_LEAF_BITS) == pool__tl.leaf_key))
        return &pool__tl.leaf[pm_index(a)];
    return pool__pagemap_slot_slow(a);
}

/* Tagged descriptor of the slice holding a, 0 when loci has nothing there. */
static inline uintptr_t pool__pagemap_entry(uintptr_t a)
{
    return atomic_load_explicit(&pool__pagemap_slot(a)->e, memory_order_acquire);
}

static inline unsigned pm_shift(uintptr_t e) { return (unsigned)(e >> 56); }
static inline unsigned pm_slice(uintptr_t e) { return (unsigned)(e >> 48) & 0xff; }

/* The slab of a slab entry (NULL for others). */
static inline slab_t *pm_slab(uintptr_t e)
{
    if ((e & PM_TAG_MASK) != DESC_SLAB)
        return NULL;
    uintptr_t st = (e & PM_PTR_MASK) - ((uintptr_t)pm_slice(e) << (SLICE_SHIFT - pm_shift(e)));
    return (slab_t *)(st - offsetof(slab_t, state));
}

static inline large_t *pm_large(uintptr_t e) { return (e & PM_TAG_MASK) == DESC_LARGE ? (large_t *)(e & PM_PTR_MASK) : NULL; }

/* Offset of address a in the slab of entry e (a slab entry). */
static inline uintptr_t pm_offset(uintptr_t e, uintptr_t a)
{
    return (uintptr_t)pm_slice(e) << SLICE_SHIFT | (a & (SLICE_SIZE - 1));
}

/* The state byte for offset off of the slab of entry e. Only offsets that
 * are multiples of 1 << shift may be block starts (see pm_misaligned). */
static inline _Atomic uint8_t *pm_state(uintptr_t e, uintptr_t off)
{
    return &pm_slab(e)->state[off >> pm_shift(e)];
}

/* Nonzero when no block can start at offset off. */
static inline uintptr_t pm_misaligned(uintptr_t e, uintptr_t off)
{
    return off & (((uintptr_t)1 << pm_shift(e)) - 1);
}

/* The entry of the first slice of s (the next ones: + pm_slab_step(s)). */
static inline uintptr_t pm_slab_entry(const slab_t *s)
{
    return (uintptr_t)s->state | (uintptr_t)s->shift << 56 | DESC_SLAB;
}

static inline uintptr_t pm_slab_step(const slab_t *s)
{
    return ((uintptr_t)1 << 48) + ((uintptr_t)1 << (SLICE_SHIFT - s->shift));
}

/* Map the slices of [base, base+size) to (e, aux), (e + step, aux), ... */
int pool__pagemap_set(uintptr_t base, size_t size, uintptr_t e, uintptr_t step, uintptr_t aux);
/* The lock that guards making leaves, for pool_fork. */
void pool__pagemap_fork(loci_fork_phase_t phase);
void pool__pagemap_clear(uintptr_t base, size_t size);

/* --- slabs (slab.c) ------------------------------------------------------------ */

/* Blocks of class cls for a thread's cache: without one, a single block;
 * else refill bin b of cache tc (a run or a batch) and return its first
 * block. NULL when no slab could be had (the reason in loci_last_error). */
void *pool__slab_alloc_one(pool_heap_t *h, unsigned cls);
void *pool__slab_refill(pool_heap_t *h, tcache_t *tc, tbin_t *b, unsigned cls);
/* Return n cached entries (of blocks marked free) to their slabs; tc is the
 * cache they come from (its counters), NULL for none. */
void pool__flush_entries(pool_heap_t *h, tcache_t *tc, unsigned cls, const tentry_t *e, unsigned n);
/* Return the bin's run to its slab and give up the slab it owns. */
void pool__bin_release(pool_heap_t *h, tcache_t *tc, unsigned cls, tbin_t *b);
/* Unmap every segment (heap destroy). */
void pool__segments_release(pool_heap_t *h);

/* --- retention (retain.c) ------------------------------------------------------- */

extern _Atomic unsigned pool__purge_delay_ms;
/* Class lock held: s goes on its class's empty list, stamped now (retained);
 * s leaves it. */
void pool__slab_retain(hclass_t *hc, slab_t *s, uint64_t now);
void pool__slab_unretain(hclass_t *hc, slab_t *s);
/* Slabs of class cls went empty (its lock released): retire them at once
 * with no delay, or trim what exceeds the budget. */
void pool__retain_slabs_emptied(pool_heap_t *h, unsigned cls);
/* Retire every empty slab and drop the extent cache (pool_heap_collect). */
void pool__collect(pool_heap_t *h);
/* On slow paths: now and then, retire what has been unused too long or
 * exceeds the budget, a bounded amount each time. */
void pool__maybe_decay(pool_heap_t *h);
/* Bytes kept ready for reuse: change, budget, and note that bytes in use grew. */
static inline void pool__retained_add(pool_heap_t *h, int64_t bytes)
{
    atomic_fetch_add_explicit(&h->retained, (uint64_t)bytes, memory_order_relaxed);
}
uint64_t pool__retain_budget(pool_heap_t *h);
void pool__note_in_use(pool_heap_t *h);
/* Over budget: release the oldest retained things, at most max of them. */
void pool__retain_trim(pool_heap_t *h, unsigned max);
/* A charge failed: release everything retained (other classes than `held`,
 * whose lock the caller holds, only if their locks are free). True when
 * something was released (worth charging again). */
bool pool__reclaim(pool_heap_t *h, int held);
/* A carved block leaves the heap for good (out of the page map already):
 * its slices dirty or released, its descriptor freed. Takes the heap lock
 * only (callable with a class lock held). Kept: every carved block the
 * thread cache tc keeps, so. */
void pool__free_carved(pool_heap_t *h, large_t *d);
void pool__free_carved_kept(pool_heap_t *h, tcache_t *tc);

/* --- segments (segment.c) ------------------------------------------------------ */

/* Big blocks up to this size (slice-rounded) are carved from segments. */
#define POOL_CARVE_MAX ((size_t)2 << 20)

/* An arena's heap maps its extents on 2 MiB boundaries and in multiples of
 * 2 MiB (x86-64's and 4 KiB-page arm64's PMD size): then no transparent huge
 * page, made at a fault or by khugepaged, holds memory of two heaps, and
 * moving one arena, which migrates whole huge pages, never takes another's
 * pages along (tests/vm/README.md, "Two kernels"). The cost is address space
 * (and, under a strict intent, the populated tail of a dedicated extent). */
#define POOL_HUGE_SIZE ((size_t)2 << 20)

/* The unit of h's extents: POOL_HUGE_SIZE for an arena's heap (its kind is set before its
 * first extent, arena.c), else 0 (none). */
static inline size_t pool__extent_unit(const pool_heap_t *h)
{
    return h->owner_kind == POOL_OWNER_ARENA ? POOL_HUGE_SIZE : 0;
}

static inline size_t pool__extent_align(const pool_heap_t *h, size_t align)
{
    size_t least = pool__extent_unit(h) > SLICE_SIZE ? pool__extent_unit(h) : SLICE_SIZE;
    return align > least ? align : least;
}

/* A dedicated extent's size for a page-rounded block of `bytes`. */
static inline size_t pool__extent_size(const pool_heap_t *h, size_t bytes)
{
    size_t unit = pool__extent_unit(h);
    return unit ? (bytes + unit - 1) & ~(unit - 1) : bytes;
}

/* Heap lock held: n free slices (a dirty run first, then any free run, then
 * a new segment): their segment, the first slice in *first, and how many of
 * them were dirty in *ndirty (may be NULL; their bytes are uncharged here:
 * the caller charged the whole run). NULL when the provider fails. */
segment_t *pool__slices_take(pool_heap_t *h, unsigned n, unsigned *first, unsigned *ndirty);
/* No lock held: give slices back, purged (with the `charged` bytes they held,
 * uncharged); the segment goes when nothing is left in it. */
void pool__slices_release(pool_heap_t *h, segment_t *g, unsigned first, unsigned n, size_t charged);
/* Heap lock held: slices of a freed block stay resident and charged, as
 * retained dirty slices (now: ms). */
void pool__slices_keep(pool_heap_t *h, segment_t *g, unsigned first, unsigned n, uint64_t now);
/* No lock held: give back the dirty slices of the segment freed into least
 * recently if that was at or before `before`; of those not freed into for
 * `delay` (at most max segments); all. Each returns how many segments. */
unsigned pool__dirty_purge_oldest(pool_heap_t *h, uint64_t before);
unsigned pool__dirty_decay(pool_heap_t *h, uint64_t now, uint64_t delay, unsigned max);
unsigned pool__dirty_drop(pool_heap_t *h);
/* Heap destroy, after the slabs and blocks in them are gone: unmap all. */
void pool__segments_unmap_all(pool_heap_t *h);

/* --- big blocks (large.c) ------------------------------------------------------ */

/* A big block (zero: its bytes read as zeros, for calloc). */
void *pool__alloc_large(pool_heap_t *h, size_t size, size_t align, bool zero);
int pool__free_large(large_t *d, void *p);
void pool__larges_release(pool_heap_t *h);

/* --- the extent cache (extent_cache.c) ------------------------------------------ */

/* Heap lock held: put freed extent d in the cache (now: ms), returning the
 * extent to unmap (with pool__extent_unmap, after unlocking) when the cache
 * was full, else NULL; take an extent of `bytes` to 1/8 more, aligned to
 * align, or NULL. */
large_t *pool__lcache_put(pool_heap_t *h, large_t *d, uint64_t now);
large_t *pool__lcache_take(pool_heap_t *h, size_t bytes, size_t align);
/* An extent out of the heap's books goes back to its provider (no lock). */
void pool__extent_unmap(const provider_ops_t *ops, large_t *d);
/* The extent cache (no lock held): purge resident extents unused for the
 * delay and unmap those purged a delay ago (at most max); purge the oldest
 * resident extent if it was cached at or before `before` (ms); unmap all.
 * Each returns how many extents it released. */
unsigned pool__lcache_decay(pool_heap_t *h, uint64_t now, uint64_t delay, unsigned max);
unsigned pool__lcache_purge_oldest(pool_heap_t *h, uint64_t before);
unsigned pool__lcache_drop(pool_heap_t *h);
/* Heap lock held: call cb for each cached extent (rebase, foreach). */
int pool__lcache_foreach(pool_heap_t *h, int (*cb)(void *base, size_t size, void *arg), void *arg);

/* --- the fast paths' shared pieces ---------------------------------------------- */

/* The calling thread's cache for h. */
static inline tcache_t *pool__tcache_of(pool_heap_t *h)
{
    tcache_t *tc = pool__tl.last;
    if (LOCI_LIKELY(atomic_load_explicit(&tc->heap, memory_order_relaxed) == h))
        return tc;
    return pool__tcache_find(h);
}

/* Pop a block from the stack, whose top is top (> slots). */
static inline void *pool__bin_pop(tbin_t *b, tentry_t *top)
{
    tentry_t e = *--top;
    atomic_store_explicit(&b->top, top, memory_order_relaxed);
    atomic_store_explicit(e.state, BLOCK_LIVE, memory_order_relaxed);
    if (!e.p) /* never: no block is at address 0; lets the callers' NULL tests vanish */
        __builtin_unreachable();
    return e.p;
}

/* Move the next batch of the run (which has blocks) onto bin b's stack,
 * which is empty (slab.c). The run's blocks are fresh to the cache: no
 * allocator code touches a block's memory (the metadata lives beside the
 * blocks), so the program's first write into each one would wait for
 * memory. The batch's first lines are prefetched for writing here, which
 * hides that wait (bench/alloc: 192 B - 4 KiB blocks with one byte written
 * went from 12-27 to 8.5-22 ns/op); a batch is at most a few KiB so that
 * they are still in the cache when the blocks are handed out. A prefetch
 * never faults, so one into memory the CPU cannot touch (a GPU's) is
 * dropped. */
void pool__run_fill(tbin_t *b, unsigned cls);

/* A block of class c from the calling thread's cache for h, or NULL when
 * the cache is another heap's or its stack is empty (then the caller takes
 * a slow path). */
static inline void *pool__tcache_take(pool_heap_t *h, size_t c)
{
    tcache_t *tc = pool__tl.last;
    if (LOCI_LIKELY(atomic_load_explicit(&tc->heap, memory_order_relaxed) == h)) {
        tbin_t *b = &tc->bins[c];
        tentry_t *top = bin_top(b);
        if (LOCI_LIKELY(top != bin_slots(b)))
            return pool__bin_pop(b, top);
    }
    return NULL;
}

static inline void *pool__alloc_class(pool_heap_t *h, unsigned c)
{
    void *p = pool__tcache_take(h, c);
    return LOCI_LIKELY(p != NULL) ? p : pool__alloc_small_slow(h, c);
}

/* pool_alloc off its fast path: a refill, a big block, a failure (alloc.c). */
void *pool__alloc_slow(pool_heap_t *h, size_t size);

/* pool_alloc's fast path: size to class, pop from the calling thread's
 * cache. No lock, no atomic read-modify-write, no look at the block's
 * memory. */
static inline __attribute__((always_inline)) void *pool__alloc_fast(pool_heap_t *h, size_t size)
{
    size_t s1 = size - 1; /* size 0 wraps around: the slow path serves it */
    size_t c;
    if (LOCI_LIKELY(s1 < 128))
        c = s1 >> 3;
    else if (LOCI_LIKELY(s1 < POOL_SMALL_MAX))
        c = pool_size_class_big(s1);
    else
        return pool__alloc_slow(h, size);
    void *p = pool__tcache_take(h, c);
    return LOCI_LIKELY(p != NULL) ? p : pool__alloc_slow(h, size);
}

/* What a free does with an address the pool never handed out (the caller
 * may know it as other memory): pool_free's is pool__free_foreign, which
 * says so in loci_last_error() and returns LOCI_ENOENT. */
typedef int (*pool_foreign_fn)(void *p);
int pool__free_foreign(void *p);

/* pool_free off its fast path (free.c). Other: big blocks and everything
 * wrong, with e the page-map entry of p. Lookup: a pointer outside the page
 * map leaf the thread used last. Both return what pool_free returns, or
 * foreign's answer for an address the pool never handed out. */
int pool__free_other(void *p, uintptr_t e, pool_foreign_fn foreign);
int pool__free_lookup(void *p, pool_foreign_fn foreign);

/* A small block: mark it free if it was live, cache it. Only a block's
 * start has a live state byte, so interior pointers fail the same test.
 * The heap and class come with the page-map entry: the slab descriptor is
 * not read. */
static inline __attribute__((always_inline)) int pool__free_block(void *p, uintptr_t e, uintptr_t aux,
                                                                  pool_foreign_fn foreign)
{
    uintptr_t off = (uintptr_t)p & (SLICE_SIZE - 1); /* in the slice */
    unsigned shift = pm_shift(e);
    /* off rotated right by shift: the unit when off is a multiple of 1 <<
     * shift, else its low bits land on top and it is no unit of a slice
     * (one rotate and one compare, where a shift back would need a copy) */
    uintptr_t unit = off >> shift | off << ((64 - shift) & 63);
    if (LOCI_UNLIKELY(unit >= SLICE_SIZE)) /* not where a block can start */
        return pool__free_other(p, e, foreign);
    _Atomic uint8_t *st = (_Atomic uint8_t *)(e & PM_PTR_MASK) + unit;
    /* One atomic step: of two threads freeing the block at once, exactly
     * one sees it live (a load, then a store, let both cache it). Writing
     * FREE over a byte that was not LIVE changes nothing. */
    if (LOCI_UNLIKELY(atomic_exchange_explicit(st, BLOCK_FREE, memory_order_relaxed) != BLOCK_LIVE))
        return pool__free_other(p, e, foreign);
    tcache_t *tc = pool__tl.last;
    /* aux = heap | class: the class when tc is the heap's cache, else more */
    uintptr_t cls = aux ^ (uintptr_t)atomic_load_explicit(&tc->heap, memory_order_relaxed);
    if (LOCI_LIKELY(cls <= PM_CLS_MASK)) {
        tbin_t *b = &tc->bins[cls];
        tentry_t *top = bin_top(b);
        if (LOCI_LIKELY(top != b->end)) {
            *top = (tentry_t){p, st};
            atomic_store_explicit(&b->top, top + 1, memory_order_relaxed);
            counter_inc(&b->nfree);
            return 0;
        }
    }
    return pool__free_small_slow(aux, p, st);
}

/* pool_free's fast path: the page map (through the leaf the thread used
 * last) gives the slab, the block's state byte says it is live, the block
 * goes on the calling thread's cache for its heap — whichever thread
 * allocated it. Every slow path is a tail call. */
static inline __attribute__((always_inline)) int pool__free_at(void *p, const pm_entry_t *x, pool_foreign_fn foreign)
{
    uintptr_t e = atomic_load_explicit(&x->e, memory_order_acquire);
    if (LOCI_LIKELY(e & DESC_SLAB)) /* the one tag with bit 0 set: one test */
        return pool__free_block(p, e, atomic_load_explicit(&x->aux, memory_order_relaxed), foreign);
    return pool__free_other(p, e, foreign);
}

static inline __attribute__((always_inline)) int pool__free_fast(void *p, pool_foreign_fn foreign)
{
    uintptr_t a = (uintptr_t)p;
    if (LOCI_UNLIKELY(a >> (SLICE_SHIFT + PM_LEAF_BITS) != pool__tl.leaf_key))
        return pool__free_lookup(p, foreign);
    return pool__free_at(p, &pool__tl.leaf[pm_index(a)], foreign);
}

/* Index of the block containing address p of slab s (exact for offsets
 * below 2^21 and sizes up to 2^18, which slabs never exceed). */
static inline uint32_t pool__block_index(const slab_t *s, uintptr_t p)
{
    return (uint32_t)(((uint64_t)(p - s->base) * s->magic) >> MAGIC_SHIFT);
}

#endif
