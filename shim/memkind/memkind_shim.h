/*
 * libmemkind.so.0 on loci: memkind's and hbwmalloc's API (Debian's memkind
 * 1.14 headers and ABI) implemented with loci's public API (docs/MEMKIND.md).
 * This header is what crosses its files.
 *
 * A kind is a loci intent and a way of taking its candidates (kinds.c). Its
 * blocks live in loci arenas of its own, one per target it has used
 * (plan.c): an arena never spills, so memkind's "bind" holds, the kind's
 * fallback is the order of its arenas, and loci_ptr_arena tells the kind of
 * any block (detect.c). Interleaved kinds are the exception: an arena lives
 * on one node, so their blocks come from a loci allocator with
 * partition=interleave.
 */
#ifndef LOCI_MEMKIND_SHIM_H
#define LOCI_MEMKIND_SHIM_H

#include "log.h" /* src/util */

#include <hbwmalloc.h>
#include <loci.h>
#include <loci_tier.h>
#include <memkind.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Everything is hidden (-fvisibility=hidden) but memkind's API. */
#define MK_EXPORT __attribute__((visibility("default")))

/** "loci-memkind: <level>: message" on stderr, filtered by LOCI_LOG. */
#define mk_log(level, ...) loci__log_as("loci-memkind", level, __VA_ARGS__)

#define MK_NAME_LEN 64        /* memkind_private.h's MEMKIND_NAME_LENGTH_PRIV */
#define MK_MAX_TARGETS 64     /* loci targets a kind can have arenas on */
#define MK_MAX_INITIATORS 64  /* NUMA nodes a kind keeps a plan for */
#define MK_INTENT_LEN 160

/* How a kind takes the candidates of its intent (kind_spec_t.take). */
enum {
    TAKE_BEST = 1u << 0,      /* the best candidate only: memkind's bind to the nearest node, ENOMEM when full */
    THEN_DRAM = 1u << 1,      /* after its candidates, the local DRAM and then the others: memkind's preferred */
    TAKE_FILES = 1u << 2,     /* file tiers are its candidates (pmem kinds); else NUMA nodes only */
    INTERLEAVED = 1u << 3,    /* pages round-robin over the candidates: a loci allocator, not arenas */
    THEN_ANY = 1u << 4,       /* after its candidates, every other NUMA node: the kernel's default policy */
    NO_CAPACITY = 1u << 5,    /* memkind_get_capacity answers -1, as memkind's does for this kind */
};

/** Which node list a MEMKIND_*_NODES variable may replace (kind_spec_t.nodes_env). */
typedef enum { NODES_OWN, NODES_HBW, NODES_DAX_KMEM } node_class_t;

/** The candidates of one kind seen from one NUMA node, best first: the
 *  loci target indexes whose arenas it tries in turn. */
typedef struct {
    int n;
    int why; /* MEMKIND_SUCCESS, or why n is 0: MEMKIND_ERROR_UNAVAILABLE, MEMKIND_ERROR_ENVIRON */
    int target[MK_MAX_TARGETS];
} plan_t;

/* A kind's lifecycle (struct memkind.state). */
enum { KIND_FREE = 0, KIND_STATIC, KIND_LIVE, KIND_DESTROYED };

struct memkind {
    /* The first fields of memkind's own struct (memkind_private.h), so that
     * code that reads a kind's name or partition through memkind's internal
     * header still does; loci has no ops table. */
    const void *ops;
    unsigned int partition;
    char name[MK_NAME_LEN];

    _Atomic int state;
    char intent[MK_INTENT_LEN]; /* its candidates, ranked by loci from the calling thread */
    node_class_t nodes;         /* which MEMKIND_*_NODES variable overrides them */
    unsigned take;              /* TAKE_*, THEN_DRAM, INTERLEAVED */
    size_t max_bytes;           /* a pmem kind's max_size (0: the file system's) */
    unsigned long destroyed_seq; /* when it was destroyed: the oldest slot is reused first */
    _Atomic(plan_t *) plans[MK_MAX_INITIATORS];
    _Atomic(loci_arena_t *) arenas[MK_MAX_TARGETS];
    _Atomic(loci_arena_t *) tiered; /* its tier=auto arena under loci run --tier auto (tiered.c) */
    atomic_bool used;           /* an interleaved kind has allocated (detect.c) */
};

/* --- kinds.c: the static kinds and the checks on a kind handle ----------- */

/** The static kinds, indexed by memkind's partition numbers. */
extern struct memkind mk_static_kinds[MEMKIND_NUM_BASE_KIND];

/** Whether k is one of the static kinds. */
bool kind_is_static(const struct memkind *k);

/** MEMKIND_SUCCESS for a kind the program may use, else
 *  MEMKIND_ERROR_INVALID with the reason said once per call site's kind
 *  (NULL, not a kind, destroyed). fn names the call. */
int kind_check(const char *fn, memkind_t kind);

/* --- registry.c: kinds made at run time (memkind_create_pmem) ------------- */

/** A free slot made a live kind named after its index, or NULL when
 *  MEMKIND_MAX_KIND kinds are alive (MEMKIND_ERROR_TOOMANY). */
struct memkind *registry_take(void);

/** Give a destroyed kind's slot back (its arenas destroyed already). */
void registry_give_back(struct memkind *k);

/** Whether k points at a slot of the registry (alive or not). */
bool registry_holds(const struct memkind *k);

/** Call fn on every live or static kind until it returns true; that kind. */
struct memkind *kinds_find(bool (*fn)(struct memkind *k, const void *arg), const void *arg);

/* --- nodes.c: MEMKIND_HBW_NODES, MEMKIND_DAX_KMEM_NODES ------------------- */

/** The NUMA nodes of class c as a loci nodemask in *out (bit n: node n):
 *  the override's when its variable is set, else those of the kinds loci
 *  classified (hbm, pmem NUMA nodes). MEMKIND_SUCCESS,
 *  MEMKIND_ERROR_ENVIRON (the variable does not parse: said once) or
 *  MEMKIND_ERROR_UNAVAILABLE (no such node). */
int nodes_of_class(node_class_t c, unsigned long *mask, unsigned long maxnode);

/** Whether c's variable is set (and parses): its nodes replace loci's. */
bool nodes_overridden(node_class_t c);

/* --- plan.c: where a kind's blocks go ------------------------------------- */

/** The plan of k from the calling thread's NUMA node (made on first use).
 *  NULL when the kind has no candidate here: *why gets the MEMKIND_ERROR_*
 *  (UNAVAILABLE, ENVIRON). */
const plan_t *plan_of(struct memkind *k, int *why);

/** The arena of k on target index t (made on first use), NULL if loci
 *  cannot make one there. */
loci_arena_t *plan_arena(struct memkind *k, int t);

/** The loci allocator of an INTERLEAVED kind from the calling thread. */
loci_allocator_t *plan_interleaved(struct memkind *k);

/** Destroy k's arenas (freeing every block in them) and plans. */
void plan_release(struct memkind *k);

/* --- tiered.c: kinds under loci run --memkind --tier auto ------------------ */

/** Whether k's blocks go to a tier=auto arena (LOCI_TIER=auto, and k neither
 *  file-backed nor interleaved). */
bool tiered_wanted(const struct memkind *k);

/** k's tier=auto arena (made on first use), NULL when loci refuses one (said). */
loci_arena_t *tiered_arena(struct memkind *k);

/* --- heap.c: blocks of a kind --------------------------------------------- */

/** size bytes (aligned to alignment when not 0) of kind k, zeroed with
 *  zero; NULL + errno ENOMEM when no candidate has room. */
void *heap_alloc(struct memkind *k, size_t alignment, size_t size, bool zero);

#endif
