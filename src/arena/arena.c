/*
 * The calls on an arena, above every other file of arena/, each dispatching
 * to whoever does the work — a private arena's pool heap, a shared arena's
 * allocator (shared.c), a move (move.c), the topology listener
 * (target_gone.c): creation, allocation under max_bytes, an empty arena's
 * fallback, a tier=auto arena's spill, realloc, stats, destroy, and the
 * fork handler and loci_fini of every arena.
 *
 * max_bytes caps the usable bytes of live blocks. Frees take no arena lock,
 * so they cannot subtract: `used` only grows, and when it would pass the cap
 * the arena recounts its live bytes from the pool with allocations stopped
 * (the write lock) and tries once more. Far from the cap that costs one
 * atomic add per allocation.
 *
 * An arena is bound to its target and never spills: its data travels
 * together. But while it is empty (no block ever allocated from it, so none
 * of its memory exists; not placed by loci_arena_move), a first block its
 * target cannot take goes where the intent's fallback says, through the
 * allocators' fallback code (allocator_fallback), and the whole arena with
 * it: its heap is re-homed there, which moves nothing.
 */
#include "alloc/allocator.h"
#include "arena/arena.h"
#include "units.h"

#include <errno.h>
#include <string.h>

/* How an arena of `res` lives on t — bound there; on a file tier with
 * mode=paged, in loci's chunk cache as for loci_alloc — and the provider
 * that maps it. LOCI_ENOTSUP when t cannot hold an arena. */
static int arena_home(const char *intent, const resolution_t *res, bool shareable, bool base_pages,
                      const struct loci_target *t, place_t *place, const provider_ops_t **ops)
{
    arena_place(t, res->pinned, shareable, place);
    place->base_pages = base_pages;
    if (t->numa_node < 0)
        allocator_file_mode(res, place);
    place->managed = res->managed;
    place->gpu_pinned = res->gpu_pinned;
    *ops = provider_for_place(place);
    bool gpu = *ops && (*ops)->device; /* GPU memory, zeroed and copied by the driver */
    if (!*ops || !(gpu || (t->flags & LOCI_TARGET_CPU_ACCESSIBLE)))
        return loci__fail(LOCI_ENOTSUP, "arena for intent \"%s\": its target %s cannot hold an arena "
                                        "(arenas live on NUMA nodes, file tiers and GPUs)", intent, t->name);
    return 0;
}

loci_arena_t *arena_create(const intent_t *in, const resolution_t *res, const struct loci_target *t, bool shareable,
                           bool base_pages, const uint64_t *budget, size_t max_bytes)
{
    arena_follow_topology(); /* arenas on a target that goes away move to the best one left */
    place_t place;
    const provider_ops_t *ops;
    int rc = arena_home(in->canonical, res, shareable, base_pages, t, &place, &ops);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    loci_arena_t *ar = arena_new(in->canonical, t, max_bytes);
    if (!ar)
        return NULL;
    ar->res = *res;
    if (budget)
        memcpy(ar->budget, budget, sizeof ar->budget);
    ar->pinned = res->pinned;
    ar->shareable = shareable;
    arena_rehome(ar, t, ops, &place);
    if (!(ar->heap = pool_heap_create(ops, &ar->place, ar))) {
        arena_free(ar);
        return NULL;
    }
    pool_heap_set_owner_kind(ar->heap, POOL_OWNER_ARENA);
    arena_register(ar);
    return ar;
}

/* ---- allocation ---------------------------------------------------------- */

static void *heap_alloc(loci_arena_t *ar, size_t align, size_t size)
{
    return align ? pool_aligned_alloc(ar->heap, align, size) : pool_alloc(ar->heap, size);
}

/* Count p against max_bytes; over the cap, p goes back and false. */
static bool budget_take(loci_arena_t *ar, void *p)
{
    size_t u = pool_usable_size(p);
    if (atomic_fetch_add_explicit(&ar->used, u, memory_order_relaxed) + u <= ar->max_bytes)
        return true;
    atomic_fetch_sub_explicit(&ar->used, u, memory_order_relaxed);
    pool_free(p);
    return false;
}

/* Slow path: the cap looked passed. Recount with allocations stopped, then
 * try once more. */
static __attribute__((noinline)) void *alloc_recount(loci_arena_t *ar, size_t align, size_t size)
{
    pool_stats_t st;
    pthread_rwlock_wrlock(&ar->lock);
    if (pool_stats_heap(ar->heap, &st) == 0)
        atomic_store_explicit(&ar->used, st.bytes_in_use, memory_order_relaxed);
    pthread_rwlock_unlock(&ar->lock);

    pthread_rwlock_rdlock(&ar->lock);
    void *p = heap_alloc(ar, align, size);
    bool over = p && !budget_take(ar, p);
    size_t used = atomic_load_explicit(&ar->used, memory_order_relaxed);
    pthread_rwlock_unlock(&ar->lock);
    if (!over)
        return p;
    char cap[32], inuse[32];
    return loci__fail_null(LOCI_ENOMEM, "arena \"%s\": %zu more bytes would pass its max_bytes of %s (%s in use); "
                                        "free some of its blocks or create it with a larger max_bytes",
                           ar->intent, size, units_format_size(ar->max_bytes, cap, sizeof cap),
                           units_format_size(used, inuse, sizeof inuse));
}

/* ---- an empty arena's first block: the intent's fallback ------------------- */

/* Under the write lock. Empty: no block was ever allocated from it, so none
 * of its memory exists (a failed try maps nothing: the pool charges a
 * target before it maps), and no loci_arena_move chose its target. */
static bool is_empty(loci_arena_t *ar)
{
    pool_stats_t st;
    return !ar->moved && pool_stats_heap(ar->heap, &st) == 0 && st.allocs == 0 && st.extents_mapped == 0;
}

/* What the fallback asks of a candidate, and what it got. */
struct first_block {
    loci_arena_t *ar;
    size_t align, size;
    void *p;
};

/* The empty arena's heap goes to the candidate (an empty heap: no extent to
 * move, so no move function) and the block is tried there; when it does not
 * fit, the heap goes back. */
static bool first_block_on(loci_allocator_t *local, int i, void *arg)
{
    struct first_block *f = arg;
    loci_arena_t *ar = f->ar;
    const struct loci_target *home = loci_arena_target(ar);
    const struct loci_target *t = local ? allocator_res(local)->candidates[0] : ar->res.candidates[i];
    place_t place;
    const provider_ops_t *ops;
    if (t == home || arena_home(ar->intent, &ar->res, ar->shareable, ar->place.base_pages, t, &place, &ops) != 0 ||
        pool_heap_rebase(ar->heap, ops, &place, NULL, NULL) != 0)
        return false;
    if ((f->p = heap_alloc(ar, f->align, f->size))) {
        loci__log(LOCI_LOG_INFO, "arena \"%s\": %s full, its first block (%zu bytes) and all its memory go to %s",
                  ar->intent, home->name, f->size, t->name);
        arena_rehome(ar, t, ops, &place);
        return true;
    }
    /* should its own target refuse even an empty heap (a node below its
     * safety margin), the record follows the heap: both name one target */
    if (pool_heap_rebase(ar->heap, ar->ops, &ar->place, NULL, NULL) != 0)
        arena_rehome(ar, t, ops, &place);
    return false;
}

/* `err` and `reason`: why its target could not take the block. */
static void *first_block_elsewhere(loci_arena_t *ar, size_t align, size_t size, int err, const char *reason)
{
    char why[600];
    snprintf(why, sizeof why, "cannot allocate %zu bytes for an empty arena: %s", size, reason);
    struct first_block f = {ar, align, size, NULL};
    if (allocator_fallback(&ar->res, ar->intent, why, first_block_on, &f))
        return f.p;
    return allocator_fallback_failed("arena", ar->intent, &ar->res, err == ENOSPC ? LOCI_ENOSPC : LOCI_ENOMEM, size,
                                     reason);
}

static void *arena_alloc_with(loci_arena_t *ar, size_t align, size_t size);

/* A tier=auto arena holding data whose target `full` cannot take a block:
 * the whole arena goes down to the first lower candidate with room for it
 * and the block — under its budget there, else memory alone — that takes it
 * (addresses kept; the tiering thread promotes it again once it earns it),
 * so that its allocation never fails while a lower candidate has room. */
static void *alloc_after_spill(loci_arena_t *ar, const struct loci_target *full, size_t align, size_t size,
                               int err, const char *reason)
{
    int below = 0;
    while (below < ar->res.ncandidates && ar->res.candidates[below] != full)
        below++;
    uint64_t need = arena_bytes(ar) + size;
    char moving[600] = "";
    for (int pass = 0; pass < 2; pass++)
        for (int i = below + 1;
             (i = arena_first_with_room(&ar->res, i, need, pass ? NULL : ar->budget, arena_auto_bytes_on)) >= 0;
             i++) {
            const struct loci_target *t = ar->res.candidates[i];
            if (arena_move(ar, t, true) != 0) {
                snprintf(moving, sizeof moving, "; %s", loci_last_error());
                continue;
            }
            loci__log(LOCI_LOG_INFO, "arena \"%s\": %s full (%s); the arena moved to %s for a block of %zu bytes",
                      ar->intent, full->name, reason, t->name, size);
            return arena_alloc_with(ar, align, size);
        }
    errno = err;
    char sz[32];
    return loci__fail_null(err == ENOSPC ? LOCI_ENOSPC : LOCI_ENOMEM,
                           "arena \"%s\" (tier=auto): %s cannot take %zu more bytes (%s), and no lower candidate "
                           "has room for the whole arena and the block (%s)%s", ar->intent, full->name, size, reason,
                           units_format_size(need, sz, sizeof sz), moving);
}

/* Slow path: the arena's target `tried` could not take the block. With
 * other allocations stopped (the write lock): an arena another thread's
 * fallback or move took elsewhere meanwhile tries there; an empty one goes
 * where its fallback says; a tier=auto one moves down (alloc_after_spill);
 * otherwise the failure stands. */
static __attribute__((noinline)) void *alloc_elsewhere(loci_arena_t *ar, const struct loci_target *tried,
                                                       size_t align, size_t size)
{
    int err = errno;
    if (err != ENOMEM && err != ENOSPC) /* a full tier is full too; other errors stand */
        return NULL;
    char reason[512];
    snprintf(reason, sizeof reason, "%s", loci_last_error());
    pthread_rwlock_wrlock(&ar->lock);
    void *p = NULL;
    bool spill = false;
    if (loci_arena_target(ar) != tried)
        p = heap_alloc(ar, align, size);
    else if (is_empty(ar))
        p = first_block_elsewhere(ar, align, size, err, reason);
    else if (!(spill = ar->res.tier_auto))
        errno = err;
    bool over = p && ar->max_bytes && !budget_take(ar, p);
    pthread_rwlock_unlock(&ar->lock);
    if (spill) /* the move takes the lock itself */
        return alloc_after_spill(ar, tried, align, size, err, reason);
    return LOCI_LIKELY(!over) ? p : alloc_recount(ar, align, size);
}

static void *arena_alloc_with(loci_arena_t *ar, size_t align, size_t size)
{
    if (LOCI_UNLIKELY(!ar))
        return loci__fail_null(LOCI_EINVAL, "NULL arena; create one with loci_arena_create(intent, max_bytes)");
    if (ar->sh)
        return arena_shared_alloc(ar, align, size);
    pthread_rwlock_rdlock(&ar->lock);
    const struct loci_target *tried = atomic_load_explicit(&ar->target, memory_order_relaxed);
    void *p = heap_alloc(ar, align, size);
    bool over = p && ar->max_bytes && !budget_take(ar, p);
    pthread_rwlock_unlock(&ar->lock);
    if (LOCI_UNLIKELY(!p))
        return alloc_elsewhere(ar, tried, align, size);
    return LOCI_LIKELY(!over) ? p : alloc_recount(ar, align, size);
}

void *loci_arena_alloc(loci_arena_t *ar, size_t size) { return arena_alloc_with(ar, 0, size); }

void *loci_arena_aligned_alloc(loci_arena_t *ar, size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)))
        return loci__fail_null(LOCI_EINVAL, "alignment %zu is not a power of two (e.g. 64, 4096, 2097152)",
                               alignment);
    return arena_alloc_with(ar, alignment, size);
}

/* A block of ar goes back to the allocator that made it. */
static int shared_block_free(void *p)
{
    return arena_shared_free(p) ? 0 : LOCI_EINVAL;
}

void *arena_realloc(loci_arena_t *ar, void *p, size_t size)
{
    size_t old = ar->sh ? arena_shared_usable(p) : pool_usable_size(p);
    if (!old)
        return loci__fail_null(LOCI_EINVAL, "loci_realloc(%p): not a live block of its arena", p);
    if (size <= old && size > old / 2) /* fits, and moving would give back little */
        return p;
    void *q = arena_alloc_with(ar, 0, size);
    return q ? pool_realloc_into(q, p, size < old ? size : old, ar->sh ? shared_block_free : pool_free) : NULL;
}

/* ---- queries and destruction ---------------------------------------------- */

int loci_arena_stats(const loci_arena_t *ar, loci_stats_t *out)
{
    if (!ar || !out)
        return loci__fail(LOCI_EINVAL, "loci_arena_stats: NULL argument");
    if (ar->sh)
        return arena_shared_stats(ar, out);
    pool_stats_t st;
    int rc = pool_stats_heap(ar->heap, &st);
    if (rc == 0)
        *out = (loci_stats_t){st.bytes_in_use, st.bytes_peak, st.allocs, st.frees};
    return rc;
}

static void destroy(loci_arena_t *ar)
{
    arena_async_drain(ar);
    if (ar->sh) {
        arena_shared_destroy(ar);
        return;
    }
    arena_unregister(ar);
    /* no allocation or move may be running into what goes away */
    pthread_rwlock_wrlock(&ar->lock);
    pool_heap_destroy(ar->heap);
    pthread_rwlock_unlock(&ar->lock);
    arena_free(ar);
}

void arena_destroy(loci_arena_t *ar) { destroy(ar); }

void arena_fork(loci_fork_phase_t phase)
{
    arena_registry_fork(phase);
    arena_shared_fork(phase);
}

void arena_fini(void)
{
    for (loci_arena_t *ar; (ar = arena_first());)
        destroy(ar);
}
