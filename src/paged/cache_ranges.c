/*
 * What the calls on a range of a region do to its chunks: written back
 * (a flush, which has the write-behind threads write the region's dirty
 * chunks alongside) or evicted, purged to zeros, or all of a region's
 * dropped unwritten (it goes away, or its contents were replaced).
 */
#include "paged/paged_internal.h"

#include <errno.h>
#include <string.h>

int cache_writeback(paged_region_t *r, uintptr_t addr, size_t len, bool drop)
{
    chunk_cache_t *c = r->cache;
    uint64_t first = (addr - r->base) / c->chunk, last = (addr + len - 1 - r->base) / c->chunk;
    pthread_mutex_lock(&c->lock);
    if (drop) /* what was queued to read ahead before must not come back after */
        r->epoch++;
    if (!r->readonly) { /* the write-behind threads write r's dirty chunks alongside: many in flight */
        r->flushing++;
        c->flushes++;
        cache_behind_start(c);
        pthread_cond_broadcast(&c->wb_work);
    }
    for (uint64_t k = first; k <= last;) {
        slot_t *s = lookup(c, r, k);
        if (s && busy(s)) {
            wait_change(c);
            continue;
        }
        int e = 0;
        if (s && drop) {
            if (cache_evict(c, s, false, &e)) /* else it stays, dirty: the error is returned below */
                push_free(c, s);
        } else if (s && any_dirty(c, s)) {
            uint64_t bytes;
            s->state = SLOT_WRITING;
            e = cache_write_run(c, &s, 1, false, &bytes);
            s->state = SLOT_RESIDENT;
            recount(c, s);
            pthread_cond_broadcast(&c->changed);
        }
        if (e != 0)
            record_error(r, e);
        k++;
    }
    if (!r->readonly) {
        r->flushing--;
        c->flushes--;
    }
    int rc = r->error;
    if (rc != 0) /* reported once, here, with what failed */
        loci__fail(rc, "mode=paged: a write-back or read of this memory failed since the last flush: %s", r->error_msg);
    r->error = 0;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int cache_purge(paged_region_t *r, uintptr_t addr, size_t len)
{
    chunk_cache_t *c = r->cache;
    uintptr_t end = addr + len;
    int rc = 0;
    pthread_mutex_lock(&c->lock);
    r->epoch++;
    for (uint64_t k = (addr - r->base) / c->chunk; chunk_addr(r, k) < end;) {
        uintptr_t cb = chunk_addr(r, k), ce = cb + chunk_len(r, k);
        uintptr_t from = addr > cb ? addr : cb, to = end < ce ? end : ce;
        slot_t *s = lookup(c, r, k);
        if (s && busy(s)) {
            wait_change(c);
            continue;
        }
        if (s) { /* the purged pages are not written back; the others are */
            for (uintptr_t p = from; p < to; p += c->page)
                bit_clear(s->dirty, (p - cb) / c->page);
            int e;
            cache_evict(c, s, true, &e); /* whatever fails to reach the store is reported */
            push_free(c, s);
        }
        /* Under the lock: nobody refills the chunk from the old data meanwhile. */
        if (from == cb && to == ce && r->fresh)
            bit_set(r->fresh, k);
        else {
            int e = r->store->ops->discard(r->store, from - r->base, to - from);
            rc = rc ? rc : e;
        }
        k++;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Drop every chunk of r without writing anything back (lock held). */
static void drop_all(chunk_cache_t *c, paged_region_t *r)
{
    for (int i = 0; i < c->nslots;) {
        slot_t *s = &c->slots[i];
        if (s->region == r && busy(s)) {
            wait_change(c);
            i = 0;
            continue;
        }
        if (s->region == r) {
            lru_unlink(c, s);
            cache_unslot(c, s);
            push_free(c, s);
        }
        i++;
    }
}

void cache_forget(paged_region_t *r)
{
    chunk_cache_t *c = r->cache;
    pthread_mutex_lock(&c->lock);
    drop_all(c, r);
    pthread_mutex_unlock(&c->lock);
}

int cache_reload(paged_region_t *r)
{
    chunk_cache_t *c = r->cache;
    pthread_mutex_lock(&c->lock);
    r->epoch++; /* readaheads queued before would bring the old contents back */
    drop_all(c, r);
    if (r->fresh) /* the new contents may have data anywhere */
        memset(r->fresh, 0, (r->nchunks + 63) / 64 * sizeof *r->fresh);
    /* Under the lock: no fill of r installs a page between. */
    int rc = backing_drop(r, r->base, r->size) == 0
                 ? 0
                 : loci__fail(LOCI_EIO, "mode=paged: dropping the pages of a region: %s", strerror(errno));
    pthread_mutex_unlock(&c->lock);
    return rc;
}
