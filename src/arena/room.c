/*
 * Room: which target can take an arena — its free memory, as an arena
 * placed there would see it.
 */
#include "arena/arena.h"

uint64_t arena_target_free(const struct loci_target *t)
{
    place_t place;
    uint64_t avail;
    arena_place(t, false, false, &place);
    const provider_ops_t *ops = provider_for_place(&place);
    return ops && ops->available(&place, &avail) == 0 ? avail : UINT64_MAX;
}
