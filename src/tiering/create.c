/*
 * loci_arena_create and loci_arena_destroy, the public entry points of
 * every private arena: here, above arena/, so that an arena created with
 * tier=auto is registered with the tiering thread (started with the first
 * one) while arena/ knows nothing of tiering. Other intents go straight to
 * arena_create on their best candidate, as before.
 *
 * Where an auto arena starts: the best candidate whose auto arenas hold
 * less than its budget; when every one is at its budget, the last (the
 * plan moves arenas down as budgets require, and up as heat earns it). Its
 * first block follows the intent's fallback when that target is full after
 * all, and an arena holding data whose target fills moves down as a whole
 * (arena.c): an auto arena's allocation does not fail while a lower
 * candidate has room.
 */
#include "tiering/tiering.h"

#include <errno.h>
#include <stdlib.h>

static const struct loci_target *first_with_room(const tiering_config_t *c, const resolution_t *res)
{
    tiering_lock();
    const struct loci_target *t = res->candidates[res->ncandidates - 1];
    for (int i = 0; i < res->ncandidates - 1; i++)
        if (tiering_bytes_on(res->candidates[i]) < tiering_budget_bytes(c, res->candidates[i])) {
            t = res->candidates[i];
            break;
        }
    tiering_unlock();
    return t;
}

static loci_arena_t *create_auto(const intent_t *in, const resolution_t *res, size_t max_bytes)
{
    tiering_config_t c;
    int rc = tiering_config_read(&c);
    if (rc == 0)
        rc = tiering_start(&c);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    if (res->ncandidates == 1)
        loci__log(LOCI_LOG_WARN, "arena \"%s\": tier=auto changes nothing here: %s is the only target its intent "
                                 "allows on this machine; the arena works, and stays there", in->canonical,
                  res->candidates[0]->name);
    bool shared = res->access != ACCESS_PROCESS || tiering_shared_memory();
    loci_arena_t *ar = arena_create(in, res, first_with_room(&c, res), shared, max_bytes);
    if (ar && (rc = tiering_register(ar)) != 0) {
        arena_destroy(ar);
        errno = loci__errno_of(rc);
        return NULL;
    }
    return ar;
}

loci_arena_t *loci_arena_create(const char *intent, size_t max_bytes)
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
        return create_auto(&in, &res, max_bytes);
    return arena_create(&in, &res, res.candidates[0], res.access != ACCESS_PROCESS, max_bytes);
}

void loci_arena_destroy(loci_arena_t *ar)
{
    if (!ar)
        return;
    tiering_lock();
    tier_arena_t *t = ar->res.tier_auto ? tiering_unregister(ar) : NULL;
    tiering_unlock();
    if (t) {
        free(t->watched);
        free(t);
    }
    arena_destroy(ar);
}
