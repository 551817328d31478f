/*
 * Pointer → arena. A private arena's heap owns its extents in the pool's page
 * map, so any address inside one (block start or not) leads to its arena in
 * O(1); shared arenas are looked up among the few attached in this process.
 */
#include "arena/arena.h"

loci_arena_t *arena_of_block(const void *p)
{
    pool_heap_t *h = pool_heap_of(p);
    if (h)
        return pool_heap_owner_kind(h) == POOL_OWNER_ARENA ? pool_heap_owner(h) : NULL;
    return arena_shared_any() ? arena_shared_of(p) : NULL;
}

loci_arena_t *loci_ptr_arena(const void *ptr)
{
    loci_arena_t *ar = ptr ? arena_of_block(ptr) : NULL;
    return ar ? ar : loci__fail_null(LOCI_ENOENT, "%p is in no arena", ptr);
}
