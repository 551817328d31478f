/*
 * Stale fault messages: which ones an install has answered already.
 *
 * A fault message can be served late: a fault thread reads it, then loses
 * the CPU while a readahead installs the chunk, which wakes the faulting
 * thread; that thread goes on, the chunk may even be evicted, and only then
 * is the message served. Served like a fresh fault it would bring the chunk
 * back after an eviction the program asked for, or mark a page dirty that
 * nobody wrote (a second write-back). So every install gets a number, taken
 * after its pages are in place and its waiters woken, and a fault thread
 * reads the count before each message (cache_install_stamp): a chunk
 * installed after that stamp has already woken the message's thread, and the
 * message is only answered with a wake. Chunks that left the cache are
 * remembered in a ring; past it, a message is assumed stale (a wake costs a
 * thread that still waits one more fault, never a wrong result).
 */
#include "paged/paged_internal.h"

static _Atomic uint64_t installs;

uint64_t cache_install_stamp(void) { return atomic_load(&installs); }

uint64_t cache_install_done(void) { return atomic_fetch_add(&installs, 1) + 1; }

void cache_remember_gone(chunk_cache_t *c, const slot_t *s)
{
    gone_t *g = &c->gone[c->gone_next];
    if (g->region && g->installed > c->gone_lost)
        c->gone_lost = g->installed;
    *g = (gone_t){s->region, s->chunk, s->installed};
    c->gone_next = (c->gone_next + 1) % NGONE;
}

bool cache_gone_since(const chunk_cache_t *c, const paged_region_t *r, uint64_t chunk, uint64_t stamp)
{
    if (c->gone_lost > stamp)
        return true;
    for (unsigned i = 0; i < NGONE; i++)
        if (c->gone[i].region == r && c->gone[i].chunk == chunk && c->gone[i].installed > stamp)
            return true;
    return false;
}
