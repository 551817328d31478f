/*
 * Eviction, which makes room for a chunk: it takes the least recently
 * faulted clean chunk (a dirty one, written back synchronously, only when no
 * clean one is left): it write-protects the chunk (writers wait), writes only
 * the dirty pages, merged into runs, and drops the chunk (MADV_DONTNEED) so
 * that the next access faults again. A clean victim goes with the clean
 * chunks after it that the LRU would take next (a sequential pass): one
 * MADV_DONTNEED. Each protect and drop is a TLB shootdown (an interrupt to
 * every CPU running the process): per run of chunks instead of per chunk.
 */
#include "paged/paged_internal.h"

#include <errno.h>
#include <string.h>

slot_t *cache_victim(chunk_cache_t *c)
{
    slot_t *dirty = NULL;
    for (int i = node(c, c->lru)->prev; i != c->lru; i = c->slots[i].prev)
        if (c->slots[i].state == SLOT_RESIDENT) {
            if (!c->slots[i].counted)
                return &c->slots[i];
            dirty = dirty ? dirty : &c->slots[i];
        }
    return dirty;
}

void cache_unslot(chunk_cache_t *c, slot_t *s)
{
    cache_remember_gone(c, s);
    hash_remove(c, s);
    set_counted(c, s, false);
    s->region = NULL;
    s->state = SLOT_FREE;
    c->st.resident_bytes -= c->chunk;
}

bool cache_evict(chunk_cache_t *c, slot_t *s, bool force, int *rc_out)
{
    s->state = SLOT_EVICTING;
    lru_unlink(c, s);
    uint64_t bytes;
    int rc = *rc_out = cache_write_run(c, &s, 1, true, &bytes);
    if (rc != 0 && !force) {
        s->state = SLOT_RESIDENT;
        lru_push(c, s);
        recount(c, s);
        pthread_cond_broadcast(&c->changed);
        return false;
    }
    if (rc != 0) {
        char why[400];
        snprintf(why, sizeof why, "%s", loci_last_error());
        loci__fail(rc, "unflushed pages lost: the store did not take them, and their chunk left the cache (%s)",
                   why);
        record_error(s->region, rc);
        if (worth_logging(&c->dropped))
            loci__log(LOCI_LOG_ERROR, "mode=paged: a dirty chunk that cannot be written back is dropped to make "
                                      "room, its unwritten pages lost (%llu so far): %s",
                      (unsigned long long)atomic_load(&c->dropped), why);
        backing_drop(s->region, chunk_addr(s->region, s->chunk), chunk_len(s->region, s->chunk));
    }
    cache_unslot(c, s);
    c->st.evictions++;
    pthread_cond_broadcast(&c->changed);
    return true;
}

void cache_evict_clean(chunk_cache_t *c, slot_t *s)
{
    paged_region_t *r = s->region;
    slot_t *run[c->drop_run];
    unsigned n = 0;
    for (slot_t *t = s; n < c->drop_run && t->region == r && t->chunk == s->chunk + n && t->state == SLOT_RESIDENT &&
                        !t->counted; t = node(c, t->prev)) /* (the sentinel has no region) */
        run[n++] = t;
    for (unsigned i = 0; i < n; i++) {
        run[i]->state = SLOT_EVICTING;
        lru_unlink(c, run[i]);
    }
    pthread_mutex_unlock(&c->lock);
    uint64_t last = s->chunk + n - 1;
    if (backing_drop(r, chunk_addr(r, s->chunk), (size_t)(n - 1) * c->chunk + chunk_len(r, last)) != 0)
        loci__log(LOCI_LOG_ERROR, "mode=paged: dropping the pages of %u chunk(s): %s", n, strerror(errno));
    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < n; i++) {
        cache_unslot(c, run[i]);
        if (i > 0)
            push_free(c, run[i]);
    }
    c->st.evictions += n;
    pthread_cond_broadcast(&c->changed);
}
