/*
 * Allocator objects: a resolved intent plus one pool heap per candidate
 * target (made when first needed). Shared by the allocation functions, the
 * arenas and the front ends.
 */
#ifndef LOCI_ALLOCATOR_H
#define LOCI_ALLOCATOR_H

#include "intent/intent.h"
#include "pool/pool.h"

#include <stdatomic.h>

/* One resolution of an allocator's intent with the heaps of its candidates
 * (made when first needed). A plan is never changed once published: when
 * the topology changes (targets appear or go away at run time) a new plan
 * replaces it whole (allocator.c), so a thread that loaded one sees one
 * consistent list. Replaced plans stay until loci_fini: a thread may still
 * read one. */
typedef struct allocator_plan {
    resolution_t res;
    _Atomic(pool_heap_t *) heaps[RESOLVE_MAX_CANDIDATES];
    bool stranded;                  /* nothing satisfies the intent any more: res is the last
                                     * that did, on targets that went away (allocations refused) */
    char why[512];                  /* stranded: the resolver's message */
    struct allocator_plan *replaced; /* the plan before this one */
} allocator_plan_t;

struct loci_allocator {
    char intent[INTENT_MAX_TEXT]; /* canonical text */
    int initiator;                /* the node it was resolved from */
    _Atomic(pool_heap_t *) primary; /* heap of the plan's best candidate: the fast path */
    _Atomic(allocator_plan_t *) plan;
    struct loci_allocator *next;  /* in the cache */
};

/** The allocator's current resolution (see allocator_plan_t). */
static inline const resolution_t *allocator_res(const loci_allocator_t *a)
{
    return &atomic_load_explicit(&((loci_allocator_t *)a)->plan, memory_order_acquire)->res;
}

/** The cached allocator for `intent` from the calling thread's initiator. */
loci_allocator_t *allocator_get(const char *intent);

/** The heap of candidate i of plan p of a, created on first use; NULL + loci__fail. */
pool_heap_t *allocator_plan_heap(loci_allocator_t *a, allocator_plan_t *p, int i);
/** The same in a's current plan. */
pool_heap_t *allocator_heap(loci_allocator_t *a, int i);

/** The pool's failure hook of an allocator's best heap: applies the fallback. */
void *allocator_on_fail(pool_heap_t *primary, const pool_request_t *req);

/* --- the intent's fallback (fallback.c) ------------------------------------- */

/** Whether a candidate takes what the caller asks (it records what it got in
 *  arg): candidate i of the caller's own resolution when local is NULL
 *  (fallback=next), candidate 0 of the local allocator `local` when not
 *  (fallback=default; it may be the caller's own allocator). */
typedef bool (*allocator_try_fn)(loci_allocator_t *local, int i, void *arg);

/** The best candidate of resolution r (of `intent`) could not take it
 *  (`why`, for the message of fallback=abort): try what the intent's
 *  fallback allows — r's candidates 1... (next), candidate 0 of the local
 *  allocator allocator_get("") (default) — until one takes it; print why and
 *  abort (abort); nothing (null). True when one took it. */
bool allocator_fallback(const resolution_t *r, const char *intent, const char *why, allocator_try_fn try_on,
                        void *arg);

/** Nothing took `size` bytes: NULL + loci__fail(code), the message naming
 *  `what` ("intent", "arena") of `intent`, r's candidates, its fallback and
 *  why the best candidate said no (`reason`). */
void *allocator_fallback_failed(const char *what, const char *intent, const resolution_t *r, int code, size_t size,
                                const char *reason);

/** "next", "default", "null" or "abort". */
const char *allocator_fallback_name(intent_fallback_t f);

/** How a file tier holds what `res` places there (mode=, cache=, chunk=). */
void allocator_file_mode(const resolution_t *res, place_t *out);

/** How a candidate's extents are placed (policy, nodes, provider flags). */
void allocator_place(const resolution_t *res, int i, place_t *out);

/* --- partition=interleave (interleave.c) --------------------------------- */

/** Weights in proportion to n bandwidths (MB/s), as small as the kernel's
 *  1..255 allows with every node's share within 1 % of its bandwidth's
 *  share. LOCI_ENOTSUP, with all weights 1, when a bandwidth is unknown (0). */
int interleave_weights(const uint64_t *bandwidth, int n, unsigned *weights);

/** The NUMA targets on the nodes of `nodemask`: their nodes and bandwidths
 *  from `initiator` (at most max). Returns how many. */
int interleave_nodes(int initiator, const uint64_t *nodemask, int *nodes, uint64_t *bandwidth, int max);

/** Once per process, for the first weighted-interleave place: say (info)
 *  when the kernel's system weights for its nodes are not in proportion to
 *  the nodes' bandwidths from `initiator`, and how to set them. */
void interleave_check(const place_t *place, int initiator);

/** Visit every allocator made so far (for stats). */
void allocator_foreach(void (*fn)(loci_allocator_t *a, void *arg), void *arg);

/** Forget every allocator (loci_fini; the pool's heaps go with pool_fini). */
void allocator_fini(void);
/** fork() handler (core/fork.c): the allocator cache, then heap creation. */
void allocator_fork(loci_fork_phase_t phase);

#endif
