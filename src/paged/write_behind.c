/*
 * Write-behind: once more than dirty_background of the slots hold dirty
 * pages, the cache's write-behind threads (WB_THREADS, so that as many
 * writes are in flight) write the oldest dirty chunks back, their dirty
 * runs write-protected first, so that a later store dirties them again.
 * Where the store keeps adjacent chunks side by side (a file), a thread
 * takes the dirty chunks that follow its pick as well (wb_run, from
 * chunk_cache.c's RUN_BYTES): one write-protect and one write for a
 * sequential writer's run of chunks.
 * A writer about to dirty one more chunk while dirty_limit of the slots
 * are dirty waits for them (throttled) — while the store fails, for its
 * patience at most (writeback_runs.c); under the limit it never waits for
 * the store. A flush has them write its region's dirty chunks too.
 * Counting the dirty share against the thresholds is inline
 * (paged_internal.h): every fault that dirties a chunk counts.
 */
#include "paged/paged_internal.h"
#include "thread.h"

/* May s be written behind now (lock held)? Not the chunk a write dirtied
 * last unless writers wait: a writer may still be in it. */
static bool behind_ok(const chunk_cache_t *c, const slot_t *s, bool over)
{
    bool newest = s->region == c->newest && s->chunk >= c->newest_first && s->chunk <= c->newest_last;
    return s->state == SLOT_RESIDENT && (s->region->flushing || (over && (!newest || c->throttled))) &&
           any_dirty(c, s);
}

/* The next chunk to write behind (lock held): the least recently faulted
 * resident dirty one while enough are dirty and not being written
 * already (behind_over), but the one a write dirtied last (written now, the rest of the
 * writer's stores there would dirty it again: its pages would go twice)
 * unless writers wait for it, or
 * one of a region being flushed; NULL when there is none or the
 * store failed lately: then one thread alone tries again once the back-off
 * has passed. */
static slot_t *behind_pick(chunk_cache_t *c)
{
    if (c->store_error && (c->nwriting > 0 || clock_mono_ns() < c->retry_ns))
        return NULL;
    bool over = behind_over(c);
    if (!over && !c->flushes)
        return NULL;
    for (int i = node(c, c->lru)->prev; i != c->lru; i = c->slots[i].prev)
        if (behind_ok(c, &c->slots[i], over))
            return &c->slots[i];
    return NULL;
}

/* The chunks to write behind with s (lock held): s and the chunks after it
 * in its region that may be written too, up to wb_run of them where the
 * store takes adjacent chunks in one write (a file) or in one request (RADOS:
 * all in flight): one write-protect and one I/O or round trip for all. Returns how many, in run[]. */
static unsigned behind_run(chunk_cache_t *c, slot_t *s, slot_t **run)
{
    bool over = c->ndirty - c->nwriting > c->dirty_bg; /* (s itself is taken already) */
    unsigned n = 1;
    run[0] = s;
    const chunkstore_ops_t *ops = s->region->store->ops;
    if (!ops->spans_chunks && !ops->write_runs)
        return n;
    for (slot_t *t; n < c->wb_run && !unit_start(c, s->chunk + n) && (t = lookup(c, s->region, s->chunk + n)) &&
                    behind_ok(c, t, over);)
        run[n++] = t;
    return n;
}

static void *write_behind(void *arg)
{
    chunk_cache_t *c = arg;
    pthread_mutex_lock(&c->lock);
    while (!c->closing) {
        slot_t *s = behind_pick(c);
        if (!s) {
            if (c->store_error && c->nwriting == 0)
                wait_until(c, &c->wb_work, c->retry_ns);
            else
                pthread_cond_wait(&c->wb_work, &c->lock);
            continue;
        }
        slot_t *run[c->wb_run];
        unsigned n = behind_run(c, s, run);
        for (unsigned i = 0; i < n; i++)
            run[i]->state = SLOT_WRITING;
        c->nwriting += n;
        uint64_t bytes;
        cache_write_run(c, run, n, false, &bytes); /* a failure: the pages stay dirty, store_answered backs off */
        c->nwriting -= n;
        c->st.written_behind += bytes;
        for (unsigned i = 0; i < n; i++) {
            run[i]->state = SLOT_RESIDENT;
            recount(c, run[i]);
        }
        pthread_cond_broadcast(&c->changed);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

void cache_behind_start(chunk_cache_t *c)
{
    if (c->nwb == WB_THREADS || c->closing)
        return;
    while (c->nwb < WB_THREADS && thread_start_quiet(&c->wb[c->nwb], write_behind, c) == 0)
        c->nwb++;
}

void cache_throttle_wait(chunk_cache_t *c, bool *counted)
{
    if (!*counted)
        c->st.throttled++;
    *counted = true;
    cache_behind_start(c);
    c->throttled++;
    pthread_cond_signal(&c->wb_work);
    wait_change(c);
    c->throttled--;
}
