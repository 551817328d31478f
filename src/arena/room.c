/*
 * Room: which target can take an arena. One function decides "the first
 * candidate with room", for a tier=auto arena's start (tiering's create.c,
 * under the budgets of the targets) and for an auto arena that holds data
 * and whose target filled (arena.c, the whole arena down to a lower
 * candidate): room is the budget the auto arenas there have not taken yet
 * (when the caller has budgets), and free memory for the bytes that must
 * fit.
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

int arena_first_with_room(const resolution_t *res, int from, uint64_t need, const uint64_t *budget)
{
    for (int i = from; i < res->ncandidates; i++) {
        const struct loci_target *t = res->candidates[i];
        if (budget) {
            uint64_t held = arena_auto_bytes_on(t);
            if (held >= budget[i] || need > budget[i] - held)
                continue;
        }
        if (need && need > arena_target_free(t)) /* nothing to fit (a start): the provider is not asked */
            continue;
        return i;
    }
    return -1;
}
