/*
 * Arenas whose target went away at run time (topo_refresh: a node's memory
 * offlined, a device-DAX instance reconfigured). The kernel moved their
 * pages elsewhere before it let the memory go (it offlines nothing it
 * cannot empty), so their data is intact, on some other node. Each such
 * arena is named in a warning and moved the way loci_arena_move moves
 * (addresses unchanged) to the best remaining target of its intent, which
 * is where it then counts as living and where its new memory comes from.
 * When nothing satisfies its intent any more (target=NAME! of that target),
 * it stays, and what needs new memory there is refused (LOCI_ENODEV).
 */
#include "arena/arena.h"

#include <stdio.h>

/* Under the registry's lock (arena_base.c): no arena is destroyed meanwhile. */
static void rehome(loci_arena_t *ar, void *arg)
{
    (void)arg;
    const struct loci_target *from = loci_arena_target(ar);
    const char *gone = topo_target_gone(from);
    if (!gone || ar->sh)
        return;
    intent_t in;
    resolution_t res;
    if (intent_parse(ar->intent, &in) != 0 || intent_resolve_from(&in, ar->res.initiator, &res) != 0) {
        loci__log(LOCI_LOG_WARN, "arena \"%s\" (%p) was on %s, which went away (%s), and nothing else satisfies "
                                 "its intent (%s): it stays, and its allocations that need new memory are refused",
                  ar->intent, (void *)ar, from->name, gone, loci_last_error());
        return;
    }
    const struct loci_target *to = res.candidates[0];
    if (arena_move(ar, to, true) != 0) {
        loci__log(LOCI_LOG_WARN, "arena \"%s\" (%p) was on %s, which went away (%s); moving it to %s failed: %s",
                  ar->intent, (void *)ar, from->name, gone, to->name, loci_last_error());
        return;
    }
    pthread_rwlock_wrlock(&ar->lock);
    ar->res = res; /* its fallback chooses among what is left */
    pthread_rwlock_unlock(&ar->lock);
    loci__log(LOCI_LOG_WARN, "arena \"%s\" (%p) was on %s, which went away (%s): moved to %s, the best "
                             "remaining target of its intent",
              ar->intent, (void *)ar, from->name, gone, to->name);
}

static void rehome_all(void) { arena_foreach(rehome, NULL); }

static void listen(void) { topo_on_change(rehome_all); }

void arena_follow_topology(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, listen);
}
