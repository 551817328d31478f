/*
 * Room: which target can take an arena. One function decides "the first
 * candidate with room", for a tier=auto arena's start (tiering's create.c,
 * under the budgets of the targets) and for an auto arena that holds data
 * and whose target filled (arena.c, the whole arena down to a lower
 * candidate); tiering's plan reads the same room of each target (step.c).
 *
 * Room is memory that can be had, not a share of a capacity: on a NUMA node
 * what an allocation bound there can still get without reclaiming into the
 * kernel's reserve (vm_nodes_free: free memory above the watermarks, with
 * what the kernel can drop) less the pool's safety margin, which the pool
 * refuses to take; on a file tier its file system's free space. A move's
 * room (arena_target_move_room, tiering's plan) has no pool margin: a move
 * brings pages already made, and gets them as the kernel's reserve allows
 * or fails — a migration gives up where a bound fault would wake the OOM
 * killer, and a copy's destination is populated under the preferred policy
 * (vm_loosen) — while the margin keeps room for allocations yet to come. With
 * budgets (budget[i]: the bytes tier=auto arenas may hold on candidate i),
 * the auto arenas there must also hold less than it, by `need` at least —
 * as the caller counts what they hold: this layer knows each arena's target,
 * tiering also where the parts of an arena placed by granule are.
 */
#include "arena/arena.h"

uint64_t arena_target_move_room(const struct loci_target *t)
{
    place_t place;
    uint64_t avail;
    arena_place(t, false, false, &place);
    const provider_ops_t *ops = provider_for_place(&place);
    return ops && ops->available(&place, &avail) == 0 ? avail : UINT64_MAX;
}

uint64_t arena_target_room(const struct loci_target *t)
{
    uint64_t avail = arena_target_move_room(t);
    if (avail == UINT64_MAX)
        return avail;
    uint64_t margin = t->numa_node >= 0 ? pool_node_margin(t) : 0;
    return avail > margin ? avail - margin : 0;
}

struct on_target {
    const struct loci_target *t;
    uint64_t bytes;
};

static void add_auto(loci_arena_t *ar, void *arg)
{
    struct on_target *on = arg;
    if (ar->res.tier_auto && loci_arena_target(ar) == on->t)
        on->bytes += arena_bytes(ar);
}

uint64_t arena_auto_bytes_on(const struct loci_target *t)
{
    struct on_target on = {t, 0};
    arena_foreach(add_auto, &on);
    return on.bytes;
}

int arena_first_with_room(const resolution_t *res, int from, uint64_t need, const uint64_t *budget,
                          uint64_t (*held_on)(const struct loci_target *))
{
    for (int i = from; i < res->ncandidates; i++) {
        const struct loci_target *t = res->candidates[i];
        if (budget) {
            uint64_t held = held_on(t);
            if (held >= budget[i] || need > budget[i] - held)
                continue;
        }
        if (need > arena_target_room(t))
            continue;
        return i;
    }
    return -1;
}
