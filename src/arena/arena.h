/*
 * Arenas (SICM, DESIGN.md §2): data that travels together.
 *
 * A private arena is one pool heap of its own on one target, bound there:
 * its extents never share a page with anything else's, so moving it moves
 * exactly its data (move.c), and any pointer into it leads back to it
 * through the page map (lookup.c). A shared arena is a named segment mapped
 * at the same address in every process of a job, with its own allocator
 * whose bookkeeping lives in a second, shared metadata segment (shared.c,
 * shared_heap.c).
 *
 * An empty private arena (no block allocated from it yet, not moved) whose
 * target cannot take its first block goes where its intent's fallback says
 * (arena.c); once it has held a block, only loci_arena_move moves it.
 *
 * Locking: an arena's rwlock is held for reading by allocations and for
 * writing by moves, max_bytes recounts, an empty arena's fallback and
 * destroy, so an allocation waits for a move and never sees half of one.
 * Frees take no arena lock.
 *
 * The files call each other one way (no circle), each only files listed
 * before it: arena_base (the object: its record, the list of every arena,
 * where it lives, its memory), room (which candidate can take an arena),
 * shared_heap, shared, move, move_async, move_part, target_gone, lookup;
 * and arena, the calls that dispatch to them (create, alloc, realloc, stats,
 * destroy, fork, fini).
 */
#ifndef LOCI_ARENA_H
#define LOCI_ARENA_H

#include "intent/intent.h"
#include "pool/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

typedef struct shared_arena shared_arena_t;
typedef struct sh_meta sh_meta_t;

struct loci_arena {
    _Atomic(const struct loci_target *) target; /* where it lives now */
    char intent[INTENT_MAX_TEXT];               /* canonical text, for messages */
    size_t max_bytes;                           /* 0 = unbounded */
    pthread_rwlock_t lock;
    /* --- private arenas (sh == NULL) --- */
    pool_heap_t *heap;
    const provider_ops_t *ops; /* under lock */
    place_t place;             /* under lock */
    resolution_t res;          /* its intent, resolved at creation: where its fallback goes */
    bool pinned, shareable;    /* from the intent: kept across moves */
    bool paged;                /* in loci's chunk cache (mode=paged): never moves */
    bool moved;                /* loci_arena_move chose its target: no fallback takes it elsewhere */
    _Atomic bool parted;       /* part of it was moved elsewhere (arena_move_part): loci_ptr_target
                                * asks the kernel where a pointer's page is */
    uint64_t budget[RESOLVE_MAX_CANDIDATES]; /* tier=auto: bytes auto arenas may hold on each candidate
                                              * (tiering's budgets), where it spills first */
    /* Usable bytes handed out since the last exact count: >= the live bytes,
     * since frees do not subtract (they take no arena lock). Recounted from
     * the pool when max_bytes would be passed. */
    _Atomic size_t used;
    /* --- shared arenas --- */
    shared_arena_t *sh;
    /* --- asynchronous moves still running (destroy waits for them) --- */
    pthread_mutex_t async_lock;
    pthread_cond_t async_done;
    unsigned async_pending;
    struct loci_arena *next, *prev; /* every arena, for loci_fini */
};

/* --- arena_base.c: the object ------------------------------------------------ */

/** A zeroed arena with its locks, for `intent` on target t (not registered). */
loci_arena_t *arena_new(const char *intent, const struct loci_target *t, size_t max_bytes);
/** Free what arena_new made. */
void arena_free(loci_arena_t *ar);
/** Add to / remove from the list loci_fini empties. */
void arena_register(loci_arena_t *ar);
void arena_unregister(loci_arena_t *ar);
/** One registered arena, NULL when none is left (loci_fini destroys them one by one). */
loci_arena_t *arena_first(void);
/** fn(ar, arg) for every arena, under the registry lock: none is created
 *  or destroyed meanwhile. */
void arena_foreach(void (*fn)(loci_arena_t *ar, void *arg), void *arg);
/** fork() handler of the registry and each arena's lock (arena_fork). */
void arena_registry_fork(loci_fork_phase_t phase);
/** How a private arena on t is placed: bound to t's node (an arena is where
 *  loci_arena_target says), pinned and shareable as its intent asked. */
void arena_place(const struct loci_target *t, bool pinned, bool shareable, place_t *out);
/** ar now lives on t (its record, under the write lock; the heap is the
 *  caller's): t's provider `ops`, placed per `place`. */
void arena_rehome(loci_arena_t *ar, const struct loci_target *t, const provider_ops_t *ops, const place_t *place);
/** A private arena's memory now: the bytes its heap has committed (0 when
 *  the pool cannot say). */
uint64_t arena_bytes(const loci_arena_t *ar);
/** fn(base, size, arg) for every extent of a private arena (what a heat
 *  source watches of it), as pool_heap_foreach_extent: fn must not allocate
 *  from or free into ar; the first nonzero fn returns, else 0. */
int arena_foreach_extent(const loci_arena_t *ar, int (*fn)(void *base, size_t size, void *arg), void *arg);

/* --- room.c: which candidate can take an arena -------------------------------- */

/** The room on t now: bytes an arena placed there can still get — on a
 *  NUMA node its free memory above the kernel's reserve (vm_nodes_free) less
 *  the pool's safety margin, on a file tier its free space; UINT64_MAX when
 *  unknown (a simulated node). */
uint64_t arena_target_room(const struct loci_target *t);
/** The room on t for a move of pages already made (tiering's plan): as
 *  arena_target_room without the pool's margin, which guards allocations
 *  to come; a move into it gets its pages within the kernel's reserve or
 *  fails (room.c). */
uint64_t arena_target_move_room(const struct loci_target *t);
/** Bytes the tier=auto arenas on t hold now (arena_bytes summed). */
uint64_t arena_auto_bytes_on(const struct loci_target *t);
/** The index of the first of res's candidates from `from` on with room for
 *  `need` more bytes, -1 when none has: arena_target_room at least `need`
 *  (unknown counts as room) and, with budget (budget[i]: the bytes tier=auto
 *  arenas may hold on candidate i), the auto arenas there holding less than
 *  it by `need` at least, as held_on(target) counts them (arena_auto_bytes_on,
 *  or tiering's count with the parts of arenas placed by granule). Where an
 *  auto arena starts (room for its first segment, its budgets) and where one
 *  that filled its target spills (its bytes and the block's, its budgets,
 *  then memory alone). */
int arena_first_with_room(const resolution_t *res, int from, uint64_t need, const uint64_t *budget,
                          uint64_t (*held_on)(const struct loci_target *));

/* --- shared_heap.c: the allocator of a shared arena ------------------------------
 * All of its state is in the metadata segment (sh_meta_t, below), which every
 * attached process maps; the data segment holds nothing but user data. One
 * process-shared robust mutex guards it. Every change is journaled first, so
 * that when a process dies holding the lock the next one to take it (seeing
 * EOWNERDEAD) rolls the change back (an allocation the dead process never
 * got) or forward (a free it had started), recounts, and goes on. */

#define SH_PAGE 4096u      /* the shared allocator's page, whatever the system's */
#define SH_NCLASSES 24     /* size classes 16 B ... 2 KiB; larger: runs of pages */
#define SH_WORDS 4         /* bitmap words per page (256 blocks of 16 B) */
#define SH_MAX_PAGES ((1u << 28) - 1)

enum { SH_OP_NONE = 0, SH_OP_ALLOC_SMALL, SH_OP_FREE_SMALL, SH_OP_ALLOC_RUN, SH_OP_FREE_RUN };

typedef struct {
    uint32_t op;   /* SH_OP_* in progress */
    uint32_t page; /* the slab page, or the first page of the run */
    uint32_t n;    /* run: its pages; small alloc: 1 when the slab page was free */
    uint32_t bit;  /* small: the block's index in its page */
} sh_journal_t;

/* The metadata segment: this header, then uint32_t pages[npages] (page
 * states), then uint64_t bits[npages][SH_WORDS] (live blocks of slab pages). */
struct sh_meta {
    uint64_t magic;
    uint32_t version;
    _Atomic uint32_t ready;   /* set last by the creator */
    uint64_t meta_size, data_base, data_size, npages;
    uint32_t uid;
    uint32_t populate;        /* fault new pages in at once (a bound node) */
    char target[16];          /* the target's name */
    char intent[INTENT_MAX_TEXT];
    pthread_mutex_t lock;     /* PTHREAD_PROCESS_SHARED | PTHREAD_MUTEX_ROBUST */
    /* --- under the lock --- */
    sh_journal_t journal;
    uint64_t in_use, peak, allocs, frees, free_pages;
    /* hints only (checked before use, reset by recovery) */
    uint32_t cur[SH_NCLASSES];          /* slab page + 1 being filled */
    uint32_t partial[SH_NCLASSES][16];  /* slab pages that got room back */
    uint32_t npartial[SH_NCLASSES];
    uint64_t scan;                      /* where to look for free pages */
};

/** Bytes of the metadata segment for `data_size` bytes of data. */
size_t shheap_meta_size(size_t data_size);
/** Set up a fresh (zeroed) metadata segment; `ready` is left to the caller.
 *  populate: fault pages in as they are handed out (a bound node then says
 *  ENOMEM instead of waking the OOM killer). */
int shheap_init(sh_meta_t *m, size_t meta_size, uintptr_t data_base, size_t data_size, bool populate);
/** Whether an attached segment's header is one this code can use. */
bool shheap_valid(const sh_meta_t *m, size_t meta_size);
/** Take the lock, repairing the state when its last holder died. */
int shheap_lock(sh_meta_t *m);
void shheap_unlock(sh_meta_t *m);
/** NULL + loci__fail (LOCI_ENOMEM when full) */
void *shheap_alloc(sh_meta_t *m, size_t align, size_t size);
/** LOCI_EINVAL for a pointer that is not a live block start (nothing changes). */
int shheap_free(sh_meta_t *m, void *p);
size_t shheap_usable(sh_meta_t *m, const void *p);
void shheap_stats(sh_meta_t *m, loci_stats_t *out);

/* --- shared.c: shared arenas in this process -------------------------------- */

#define SHARED_NAME_MAX 64

/* A shared arena as this process holds it. */
struct shared_arena {
    sh_meta_t *meta; /* the metadata segment (shared_heap.c) */
    size_t meta_size;
    char *data;      /* the data segment, at the same address in every process */
    size_t data_size;
    char name[SHARED_NAME_MAX + 1];
    pid_t creator;   /* the process that created it: it removes the names; 0 when attached */
    unsigned refs;   /* handles of this process (attaching twice gives the same arena) */
};

/** Number of shared arenas attached in this process: while 0, loci_free and
 *  friends skip the shared-arena lookups altogether. */
extern _Atomic unsigned arena__nshared;

static inline bool arena_shared_any(void)
{
    return atomic_load_explicit(&arena__nshared, memory_order_relaxed) != 0;
}

/** The attached shared arena whose data contains p, or NULL. */
loci_arena_t *arena_shared_of(const void *p);
void *arena_shared_alloc(loci_arena_t *ar, size_t align, size_t size);
/** True when p is in a shared arena: then it was freed, or its bad free
 *  reported; false when p is no shared arena's (nothing done). */
bool arena_shared_free(void *p);
size_t arena_shared_usable(const void *p);
int arena_shared_stats(const loci_arena_t *ar, loci_stats_t *out);
/** Detach this process (the creating process also removes the names). */
void arena_shared_destroy(loci_arena_t *ar);
/** fork() handler of the table of shared arenas (arena_fork). */
void arena_shared_fork(loci_fork_phase_t phase);

/* --- move.c / move_async.c ------------------------------------------------ */

/** What loci_arena_move refuses before touching anything (bad arguments, a
 *  shared arena, no provider can move there): 0 or LOCI_E* with a message. */
int arena_move_check(const loci_arena_t *ar, const struct loci_target *dst);
/** Where a move of ar to dst puts its memory, through to_ops (dst's
 *  provider for it): bound there, pinned, shareable and in base pages as ar. */
void arena_move_place(const loci_arena_t *ar, const struct loci_target *dst, const provider_ops_t *to_ops,
                      place_t *out);
/** The move itself (checked first): takes the arena lock for writing.
 *  keep_stores: every store the program's threads make meanwhile must be
 *  kept (every move loci makes by itself); where that cannot be done (a file
 *  tier without the userfaultfd it takes) LOCI_ENOTSUP, nothing moved. Not
 *  keep_stores (loci_arena_move): such a move copies with the arena idle,
 *  LOCI_EBUSY when another thread is inside it. */
int arena_move(loci_arena_t *ar, const struct loci_target *dst, bool keep_stores);
/** Whether arena_move(ar, dst, true) can be made (what tiering plans):
 *  allowed at all, and keeping every store. Takes the arena lock for
 *  reading. */
bool arena_moves_live(loci_arena_t *ar, const struct loci_target *dst);
/** Block until no asynchronous move of ar is running (destroy). */
void arena_async_drain(loci_arena_t *ar);

/* --- move_part.c: part of an arena elsewhere ------------------------------ */

/** Move the pages of [base, base+size) — page-aligned, inside one extent of
 *  private arena ar — to dst, keeping their addresses and every store the
 *  program's threads make meanwhile (tiering's placement by granule of an
 *  arena larger than its fast memory: tiering.h). The arena itself stays on
 *  its target, where its new memory goes and its bytes are charged; only a
 *  NUMA node its own provider moves pages to can take a part (arena_moves_part).
 *  Takes the arena lock for reading (a whole move waits) and the heap's
 *  (the extent stays mapped). 0; LOCI_ENOENT when the range is no longer
 *  the arena's (freed meanwhile: nothing moved); else the provider's error,
 *  the part where it was or partly moved (vm_check_placed's message). */
int arena_move_part(loci_arena_t *ar, void *base, size_t size, const struct loci_target *dst);
/** Whether arena_move_part(ar, ..., dst) can be made: a private arena whose
 *  provider moves its pages in place (numa, shm) to dst's NUMA node. */
bool arena_moves_part(loci_arena_t *ar, const struct loci_target *dst);
/** Where most resident pages of [base, base+size) of ar are: the candidate
 *  of its intent on that NUMA node; the arena's target when none is
 *  resident, the node is none of its candidates, or the arena's target is
 *  simulated (placement recorded, not made). Pages a heat source unmapped
 *  for its window are resident: held still (heat_hold), they are looked at. */
const struct loci_target *arena_part_target(loci_arena_t *ar, void *base, size_t size);

/* --- target_gone.c ------------------------------------------------------- */

/** From the first arena on: after every topology refresh, arenas whose
 *  target went away are moved to the best remaining target of their intent,
 *  with a warning naming them. */
void arena_follow_topology(void);

/* --- lookup.c ------------------------------------------------------------- */

/** The arena whose memory contains p (interior pointers too), or NULL. */
loci_arena_t *arena_of_block(const void *p);

/* --- arena.c: the calls that dispatch ----------------------------------------- */

/** A private arena for the parsed and resolved intent, on t (one of its
 *  candidates), registered: loci_arena_create's work below the tiering
 *  layer, which chooses t (the best candidate, or for tier=auto the best
 *  with room under its budget). shareable: mapped as shared memory
 *  (access=node, or the faults source of tiering must see it); base_pages:
 *  never in transparent huge pages, across moves too (tiering's damon
 *  source must see it); budget (tier=auto, else NULL): the bytes auto arenas
 *  may hold on each candidate, which a spill keeps to first. NULL + errno
 *  and loci_last_error(). */
loci_arena_t *arena_create(const intent_t *in, const resolution_t *res, const struct loci_target *t, bool shareable,
                           bool base_pages, const uint64_t *budget, size_t max_bytes);
/** Release ar and all its memory (loci_arena_destroy below tiering): waits
 *  for its moves; a shared arena is detached. */
void arena_destroy(loci_arena_t *ar);
/** Resize a block of arena ar (loci_realloc), within ar and its max_bytes. */
void *arena_realloc(loci_arena_t *ar, void *p, size_t size);
/** fork() handler (core/fork.c): the registry, each arena's lock, the
 *  table of shared arenas. */
void arena_fork(loci_fork_phase_t phase);
/** Destroy every arena (loci_fini, before the pool goes). */
void arena_fini(void);

#endif
