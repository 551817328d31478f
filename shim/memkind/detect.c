/*
 * memkind_detect_kind: loci knows the arena of any of its blocks
 * (loci_ptr_arena), and each arena belongs to one kind. Interleaved kinds
 * have no arenas (an arena lives on one node): their blocks are told by
 * elimination, as the first interleaved kind in use whose candidates hold
 * the block's target (docs/MEMKIND.md, "What differs").
 */
#include "memkind_shim.h"

static bool owns_arena(struct memkind *k, const void *arena)
{
    if (atomic_load(&k->tiered) == arena)
        return true;
    for (int i = 0; i < MK_MAX_TARGETS; i++)
        if (atomic_load(&k->arenas[i]) == arena)
            return true;
    return false;
}

static bool interleaves_on(struct memkind *k, const void *target)
{
    if (!(k->take & INTERLEAVED) || !atomic_load(&k->used))
        return false;
    const loci_target_t *c[MK_MAX_TARGETS];
    loci_allocator_t *a = plan_interleaved(k);
    int n = a ? loci_allocator_targets(a, c, MK_MAX_TARGETS) : 0;
    loci_allocator_destroy(a);
    for (int i = 0; i < n && i < MK_MAX_TARGETS; i++)
        if (c[i] == target)
            return true;
    return false;
}

MK_EXPORT memkind_t memkind_detect_kind(void *ptr)
{
    if (!ptr)
        return NULL;
    loci_arena_t *a = loci_ptr_arena(ptr);
    if (a)
        return kinds_find(owns_arena, a);
    if (!loci_usable_size(ptr))
        return NULL;
    return kinds_find(interleaves_on, loci_ptr_target(ptr));
}
