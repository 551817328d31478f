/*
 * The arena object, below every other file of arena/: its record (made,
 * freed, its lock), the list of every arena that loci_fini empties, where
 * it lives (placed on a target, re-homed there, loci_arena_target) and its
 * memory as the pool counts it (bytes, extents), for the layer above.
 */
#include "arena/arena.h"
#include "list.h"

#include <stdlib.h>
#include <string.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static loci_arena_t *arenas;

/* An arena's lock: a move must not starve behind a stream of allocations. */
static pthread_rwlockattr_t writer_first;

static void make_writer_first(void)
{
    pthread_rwlockattr_init(&writer_first);
    pthread_rwlockattr_setkind_np(&writer_first, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
}

static const pthread_rwlockattr_t *lock_attr(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_writer_first);
    return &writer_first;
}

loci_arena_t *arena_new(const char *intent, const struct loci_target *t, size_t max_bytes)
{
    loci_arena_t *ar = calloc(1, sizeof *ar);
    if (!ar)
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating an arena");
    snprintf(ar->intent, sizeof ar->intent, "%s", intent);
    atomic_init(&ar->target, t);
    ar->max_bytes = max_bytes;
    pthread_rwlock_init(&ar->lock, lock_attr());
    pthread_mutex_init(&ar->async_lock, NULL);
    pthread_cond_init(&ar->async_done, NULL);
    return ar;
}

void arena_free(loci_arena_t *ar)
{
    pthread_rwlock_destroy(&ar->lock);
    pthread_mutex_destroy(&ar->async_lock);
    pthread_cond_destroy(&ar->async_done);
    free(ar);
}

/* ---- every arena ------------------------------------------------------------ */

void arena_register(loci_arena_t *ar)
{
    pthread_mutex_lock(&registry_lock);
    DLIST_PUSH(arenas, ar, next, prev);
    pthread_mutex_unlock(&registry_lock);
}

void arena_unregister(loci_arena_t *ar)
{
    pthread_mutex_lock(&registry_lock);
    DLIST_UNLINK(arenas, ar, next, prev);
    pthread_mutex_unlock(&registry_lock);
}

loci_arena_t *arena_first(void)
{
    pthread_mutex_lock(&registry_lock);
    loci_arena_t *ar = arenas;
    pthread_mutex_unlock(&registry_lock);
    return ar;
}

void arena_foreach(void (*fn)(loci_arena_t *ar, void *arg), void *arg)
{
    pthread_mutex_lock(&registry_lock);
    for (loci_arena_t *ar = arenas; ar; ar = ar->next)
        fn(ar, arg);
    pthread_mutex_unlock(&registry_lock);
}

void arena_registry_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_PREPARE) /* the list stays as it is until its locks are given back */
        loci__fork_mutex(&registry_lock, phase);
    for (loci_arena_t *ar = arenas; ar; ar = ar->next)
        loci__fork_rwlock(&ar->lock, lock_attr(), phase);
    if (phase != LOCI_FORK_PREPARE)
        loci__fork_mutex(&registry_lock, phase);
}

/* ---- where it lives --------------------------------------------------------- */

void arena_place(const struct loci_target *t, bool pinned, bool shareable, place_t *out)
{
    memset(out, 0, sizeof *out);
    out->target = t;
    out->pinned = pinned;
    out->shared = shareable;
    out->simulated = (t->flags & LOCI_TARGET_SIMULATED) != 0;
    out->cuda_device = t->cuda_device;
    if (t->numa_node >= 0) {
        out->policy = PLACE_BIND;
        place_add_node(out, t->numa_node);
    }
}

void arena_rehome(loci_arena_t *ar, const struct loci_target *t, const provider_ops_t *ops, const place_t *place)
{
    ar->ops = ops;
    ar->place = *place;
    ar->paged = provider_has(ops, PROVIDER_CHUNKED);
    atomic_store_explicit(&ar->target, t, memory_order_release);
}

const loci_target_t *loci_arena_target(const loci_arena_t *ar)
{
    if (!ar)
        return loci__fail_null(LOCI_EINVAL, "loci_arena_target: NULL arena");
    return atomic_load_explicit(&((loci_arena_t *)ar)->target, memory_order_acquire);
}

/* ---- its memory --------------------------------------------------------------- */

uint64_t arena_bytes(const loci_arena_t *ar)
{
    pool_stats_t st;
    return pool_stats_heap(ar->heap, &st) == 0 ? st.bytes_committed : 0;
}

int arena_foreach_extent(const loci_arena_t *ar, int (*fn)(void *base, size_t size, void *arg), void *arg)
{
    return pool_heap_foreach_extent(ar->heap, fn, arg);
}
