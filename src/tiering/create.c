/*
 * loci_arena_create and loci_arena_destroy, the public entry points of
 * every private arena: here, above arena/, so that an arena created with
 * tier=auto is registered with the tiering thread (started with the first
 * one) while arena/ knows nothing of tiering. Other intents go straight to
 * arena_create on their best candidate, as before.
 *
 * Where an auto arena starts: the best candidate with room for its first
 * segment (arena_target_room: memory that can be had, not a share of a
 * capacity) whose auto arenas hold less than its budget; when every budget
 * is taken, the last candidate with room, else the last (the plan moves
 * arenas down as budgets require, and up as heat earns it). Its first block
 * follows the intent's fallback when that target is full after all, and an
 * arena holding data whose target fills moves down as a whole (arena.c): an
 * auto arena's allocation does not fail while a lower candidate has room.
 * With a profile (profile.c), an arena whose site it knows starts on the
 * site's profiled target instead, when that target has room and budget for
 * what the profile saw there after its hotter sites, else below it.
 */
#include "tiering/tiering.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Room an arena needs to start on a target: its first segment. */
#define START_ROOM POOL_SEGMENT_SIZE

/* The first candidate from `from` on with room for a start, under its
 * budget (budget[i]: candidate i's, charged with the parts of arenas placed
 * by granule where they are); when every budget is taken, the last with
 * room, else the last. Under the lock. */
static const struct loci_target *first_with_room(const resolution_t *res, int from, const uint64_t *budget)
{
    int i = arena_first_with_room(res, from, START_ROOM, budget, tiering_held_on);
    for (int k = res->ncandidates - 1; i < 0 && k >= from; k--)
        if (arena_first_with_room(res, k, START_ROOM, NULL, NULL) == k)
            i = k;
    return res->candidates[i >= 0 ? i : res->ncandidates - 1];
}

/* The bytes of t this process's auto arenas may fill where a new one
 * starts: its budget, at most what the other processes' reserves left of
 * the node budget at the last interval (ledger.c): a start never takes
 * memory another process holds or may fill. */
static uint64_t start_budget(const tiering_config_t *c, const struct loci_target *t)
{
    uint64_t own = tiering_budget_bytes(c, t), node = tiering_ledger_room(t);
    return own < node ? own : node;
}

/* The site of the arena to make (its ordinal: live auto arenas of the same
 * site before it), and where it starts: without a profile entry, the first
 * candidate with room; with one, its profiled target when that target's
 * budget has room for the bytes the profile saw, both now and after the
 * profile's hotter sites there (made yet or not) — else the first candidate
 * with room below it, leaving the room to the hotter ones. *profiled: the
 * profile placed it (*heat: the profile's). */
static const struct loci_target *site_and_start(const tiering_config_t *c, const resolution_t *res,
                                                const uint64_t *budget, const loci_frame_t *frames, int nframes,
                                                unsigned size_class,
                                                tiering_site_t *site, bool *profiled, double *heat)
{
    tiering_site_of(frames, nframes, size_class, site);
    tiering_lock();
    for (tier_arena_t *t = tiering_arenas(); t && site->context; t = t->next)
        site->ordinal += t->site.context == site->context && t->site.size_class == size_class;
    const struct loci_target *at = NULL;
    uint64_t bytes, hotter;
    bool known = tiering_profile_place(site, res, &at, &bytes, heat, &hotter);
    uint64_t at_budget = known ? start_budget(c, at) : 0;
    *profiled = known && tiering_held_on(at) + bytes <= at_budget && hotter + bytes <= at_budget &&
                arena_target_room(at) >= bytes;
    if (!*profiled) {
        int below = 0;
        while (known && below < res->ncandidates && res->candidates[below] != at)
            below++;
        at = first_with_room(res, known ? below + 1 : 0, budget);
    }
    tiering_unlock();
    return at;
}

static loci_arena_t *create_auto(const intent_t *in, const resolution_t *res, size_t max_bytes,
                                 const loci_frame_t *frames, int nframes, unsigned size_class)
{
    tiering_config_t c;
    int rc = tiering_config_read(&c);
    if (rc == 0)
        rc = tiering_start(&c);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    tiering_profile_load();
    tiering_site_t site;
    double heat = 0;
    bool profiled;
    uint64_t budget[RESOLVE_MAX_CANDIDATES], start_at[RESOLVE_MAX_CANDIDATES];
    for (int i = 0; i < res->ncandidates; i++) {
        budget[i] = tiering_budget_bytes(&c, res->candidates[i]);
        start_at[i] = start_budget(&c, res->candidates[i]);
    }
    const struct loci_target *start =
        site_and_start(&c, res, start_at, frames, nframes, size_class, &site, &profiled, &heat);
    if (res->ncandidates == 1) {
        /* nowhere to move: registered (stats, loci tier, profiles), never watched (watch.c) and
         * in private memory; said once per process, since an unmodified program under loci run
         * --tier auto makes one arena per allocation site */
        static atomic_flag said = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&said))
            loci__log(LOCI_LOG_WARN, "arena \"%s\": tier=auto changes nothing here: %s is the only target its "
                                     "intent allows on this machine; the arena works, and stays there (said once "
                                     "per process)", in->canonical, res->candidates[0]->name);
    }
    bool shared = res->access != ACCESS_PROCESS || (res->ncandidates > 1 && tiering_shared_memory());
    bool base_pages = res->ncandidates > 1 && tiering_base_pages();
    loci_arena_t *ar = arena_create(in, res, start, shared, base_pages, budget, max_bytes);
    if (ar && (rc = tiering_register(ar)) != 0) {
        arena_destroy(ar);
        errno = loci__errno_of(rc);
        ar = NULL;
    }
    if (!ar) {
        tiering_site_free(&site);
        return NULL;
    }
    tiering_lock();
    tier_arena_t *t = tiering_find(ar);
    t->site = site;
    if (profiled) { /* the profile's heat until measured: the plan keeps it where the profile put it */
        t->track.heat = t->track.last = heat;
        t->track.heat_seen = true;
    }
    tiering_unlock();
    return ar;
}

static unsigned log2_of(size_t n) { return n ? 63u - (unsigned)__builtin_clzll((unsigned long long)n) : 0; }

static loci_arena_t *create(const char *intent, size_t max_bytes, const loci_frame_t *frames, int nframes,
                            unsigned size_class)
{
    int rc = topo_ensure();
    intent_t in;
    resolution_t res;
    if (rc == 0)
        rc = intent_parse(intent, &in);
    if (rc == 0)
        rc = intent_resolve(&in, &res);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    if (res.tier_auto)
        return create_auto(&in, &res, max_bytes, frames, nframes, size_class);
    return arena_create(&in, &res, res.candidates[0], res.access != ACCESS_PROCESS, false, NULL, max_bytes);
}

loci_arena_t *loci_arena_create(const char *intent, size_t max_bytes)
{
    loci_frame_t caller = {.pc = __builtin_extract_return_addr(__builtin_return_address(0))};
    return create(intent, max_bytes, &caller, 1, log2_of(max_bytes));
}

loci_arena_t *loci_arena_create_site(const char *intent, size_t max_bytes, const void *site, unsigned size_class)
{
    loci_frame_t frame = {.pc = site};
    return create(intent, max_bytes, &frame, 1, size_class);
}

loci_arena_t *loci_arena_create_context(const char *intent, size_t max_bytes, const loci_frame_t *frames, int nframes,
                                        unsigned size_class)
{
    if (!frames || nframes < 1) {
        loci__fail(LOCI_EINVAL, "loci_arena_create_context: %s (give the allocation's calling context, innermost "
                                "frame first)", frames ? "no frame" : "frames is NULL");
        errno = EINVAL;
        return NULL;
    }
    return create(intent, max_bytes, frames, nframes, size_class);
}

void loci_arena_destroy(loci_arena_t *ar)
{
    if (!ar)
        return;
    tiering_lock();
    tier_arena_t *t = ar->res.tier_auto ? tiering_unregister(ar) : NULL;
    if (t)
        tiering_profile_learn(t);
    tiering_unlock();
    if (t)
        tiering_record_free(t);
    arena_destroy(ar);
}
