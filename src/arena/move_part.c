/*
 * Part of a private arena on another target than the rest: the pages of one
 * range moved there, their addresses and stores kept, while the arena stays
 * where it is — tiering's placement by granule of an arena larger than its
 * fast memory, whose granules differ in heat (one big array with a hot
 * window, a key-value store's values). Only between NUMA nodes of the
 * arena's own provider: its `move` (a copy under write-protection, or mbind
 * with MPOL_MF_MOVE) works on any page-aligned range and leaves the range's
 * policy bound to the new node, so that its pages freed and faulted in again
 * stay there. A file tier would need the range's mapping replaced: not a
 * part's move.
 *
 * The heap's lock is held for the move (pool_heap_foreach_extent), so the
 * extent cannot be unmapped under it and its address given to someone
 * else's mapping; the arena's read lock keeps a whole move out.
 */
#include "arena/arena.h"
#include "heat/heat.h"
#include "os/vm.h"

#include <stdint.h>

typedef struct {
    uintptr_t base;
    size_t size;
    const provider_ops_t *ops;
    const place_t *to;
    int rc;
    bool found;
} part_move_t;

/* pool_heap_foreach_extent's callback: the move, inside the extent that holds the part. */
static int move_in_extent(void *base, size_t size, void *arg)
{
    part_move_t *m = arg;
    uintptr_t lo = (uintptr_t)base;
    if (m->base < lo || m->base - lo + m->size > size)
        return 0;
    m->found = true;
    /* heat's sampled pages of the range are mapped back first: the move
     * takes only mapped pages along (heat.h) */
    m->rc = heat_hold((void *)m->base, m->size);
    if (m->rc == 0) {
        m->rc = m->ops->move->move((void *)m->base, m->size, m->to);
        heat_release((void *)m->base, m->size);
    }
    return 1;
}

static bool moves_part(const loci_arena_t *ar, const struct loci_target *dst)
{
    return !ar->sh && !ar->paged && dst->numa_node >= 0 && provider_can_move(ar->ops) &&
           provider_for_move(ar->ops, dst, ar->shareable) == ar->ops && !provider_has(ar->ops, PROVIDER_NO_CPU);
}

bool arena_moves_part(loci_arena_t *ar, const struct loci_target *dst)
{
    pthread_rwlock_rdlock(&ar->lock);
    bool can = moves_part(ar, dst);
    pthread_rwlock_unlock(&ar->lock);
    return can;
}

int arena_move_part(loci_arena_t *ar, void *base, size_t size, const struct loci_target *dst)
{
    pthread_rwlock_rdlock(&ar->lock);
    if (!moves_part(ar, dst)) {
        pthread_rwlock_unlock(&ar->lock);
        return loci__fail(LOCI_ENOTSUP, "cannot move part of arena \"%s\" to %s: a part moves only between NUMA "
                                        "nodes, of a private arena whose memory moves in place", ar->intent,
                          dst->name);
    }
    place_t to;
    arena_move_place(ar, dst, ar->ops, &to);
    part_move_t m = {.base = (uintptr_t)base, .size = size, .ops = ar->ops, .to = &to};
    pool_heap_foreach_extent(ar->heap, move_in_extent, &m);
    if (m.found && m.rc == 0)
        atomic_store_explicit(&ar->parted, true, memory_order_release);
    pthread_rwlock_unlock(&ar->lock);
    if (!m.found)
        return loci__fail(LOCI_ENOENT, "%zu bytes at %p are no longer memory of arena \"%s\" (freed): nothing "
                                       "moved", size, base, ar->intent);
    return m.rc;
}

const struct loci_target *arena_part_target(loci_arena_t *ar, void *base, size_t size)
{
    const struct loci_target *home = loci_arena_target(ar);
    int node; /* a simulated node's placement is recorded, not made: the kernel cannot say */
    if ((home->flags & LOCI_TARGET_SIMULATED) || vm_range_node(base, size, &node) != 0)
        return home;
    /* none mapped: the faults source may have unmapped them for its window (its pages stay in
     * the page cache, on their node); held still, they are mapped back (a CI run of vm_parts
     * was told a hot window's page was home, on the slow node, while it sat on the fast one) */
    if (node < 0 && heat_hold(base, size) == 0) {
        if (vm_range_node(base, size, &node) != 0)
            node = -1;
        heat_release(base, size);
    }
    if (node < 0 || node == home->numa_node)
        return home;
    for (int k = 0; k < ar->res.ncandidates; k++)
        if (ar->res.candidates[k]->numa_node == node)
            return ar->res.candidates[k];
    return home;
}
