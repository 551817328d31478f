/*
 * Placement by granule: an auto arena larger than the budget of its best
 * candidate can never go there whole, so where its granules differ in heat
 * — one big array with a hot window, a key-value store whose values share
 * one allocation site — it is placed part by part. Each granule of it that
 * heat reports (HEAT_GRANULE, the sources' own unit) is one *part* the plan
 * places like an arena (the same claims, hysteresis, rent and room), moved
 * by arena_move_part while the arena stays on its target, where its new
 * memory goes. Which arenas: decided once from the budgets (not from free
 * memory, which changes), so that an arena does not flip between being
 * placed whole and by part.
 *
 * A part's place is what tiering moved it to; a granule first seen (an
 * extent new to heat, or reused from the pool's cache with the policy of
 * its last use) starts where the kernel holds most of its pages.
 */
#include "tiering/tiering.h"

#include <stdlib.h>

#define MIN_PARTS 2 /* an arena of fewer granules is placed whole */

void tiering_parts_decide(const tiering_config_t *c, tier_arena_t *t)
{
    const resolution_t *res = &t->ar->res;
    if (t->split || res->ncandidates < 2)
        return;
    const struct loci_target *best = res->candidates[0];
    uint64_t bytes = arena_bytes(t->ar);
    t->split = bytes >= MIN_PARTS * (uint64_t)HEAT_GRANULE && bytes > tiering_budget_bytes(c, best) &&
               arena_moves_part(t->ar, best);
    if (t->split)
        loci__log(LOCI_LOG_DEBUG, "tiering: arena \"%s\" (%llu KiB, more than the budget of %s) is placed by "
                  "granule from now on", t->ar->intent, (unsigned long long)(bytes >> 10), best->name);
}

bool tiering_parts_account(tier_arena_t *t, const heat_sample_t *s, size_t n)
{
    tier_part_t *parts = n ? calloc(n, sizeof *parts) : NULL;
    if (n && !parts)
        return false;
    size_t old = 0;
    for (size_t i = 0; i < n; i++) {
        tier_part_t *p = &parts[i];
        while (old < t->nparts && (uintptr_t)t->parts[old].base < s[i].base)
            old++;
        if (old < t->nparts && (uintptr_t)t->parts[old].base == s[i].base && t->parts[old].size == s[i].size) {
            *p = t->parts[old];
        } else {
            /* its pages have been where they are since the arena last moved whole */
            *p = (tier_part_t){.base = (void *)s[i].base, .size = s[i].size,
                               .track.residence = t->track.residence};
            p->at = arena_part_target(t->ar, p->base, p->size);
        }
        if (s[i].observations) /* nothing seen this interval: its heat stays what it was */
            tiering_track_heat(&p->track, s[i].heat);
        p->track.residence++;
    }
    free(t->parts);
    t->parts = parts;
    t->nparts = n;
    return true;
}

uint64_t tiering_parts_on(const tier_arena_t *t, const struct loci_target *x)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < t->nparts; i++)
        bytes += t->parts[i].at == x ? t->parts[i].size : 0;
    return bytes;
}

uint64_t tiering_held_on(const struct loci_target *x)
{
    uint64_t held = arena_auto_bytes_on(x);
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
        if (t->split) {
            uint64_t whole = loci_arena_target(t->ar) == x ? arena_bytes(t->ar) : 0;
            held = (held > whole ? held - whole : 0) + tiering_parts_on(t, x);
        }
    return held;
}

void tiering_parts_moved(tier_arena_t *t)
{
    const struct loci_target *now = loci_arena_target(t->ar);
    for (size_t i = 0; i < t->nparts; i++) {
        t->parts[i].at = now;
        t->parts[i].track.residence = 0;
    }
}
