/*
 * The DRAM chunk cache of the paged provider (NVMalloc §III-D), made, freed
 * and counted. A fixed number of slots (budget / chunk) is all the DRAM it
 * holds, plus a few bounce buffers; regions of the same target, budget and
 * chunk size share it. What follows from its shape is set here once: the
 * dirty thresholds, the readahead window and batch, the runs of chunks
 * written behind or dropped at once. What the cache does is in the files
 * above this one, in the order paged_internal.h gives: faults fill chunks
 * and dirty pages (cache_fill.c), evictions make room (cache_evict.c), dirty
 * pages go back to the store in runs (writeback_runs.c), mostly written
 * behind (write_behind.c).
 *
 * Loads from resident pages never reach loci, so "least recently used" means
 * least recently faulted — as in NVMalloc, whose FUSE cache sat below the
 * kernel's page cache. One mutex guards the slots; store I/O and copies run
 * outside it, with the slot marked busy (filling, writing, evicting) so that
 * others wait on the condition variable.
 */
#include "paged/paged_internal.h"
#include "os/vm.h"

#include <stdlib.h>

#define WINDOW 32    /* chunks read ahead of a sequential reader (at most a quarter of the cache) */
#define BATCH_BYTES ((size_t)1 << 20) /* a readahead batch reads this much at most (at least a chunk): 2 MiB was slower */
#define RUN_BYTES ((size_t)2 << 20) /* adjacent chunks written behind, or dropped, at once: at most this much */
#define FAULT_SLACK 4 /* slots the fault threads may be filling for writers beyond the dirty limit */

chunk_cache_t *cache_create(const struct loci_target *t, const cache_shape_t *shape, int uffd, bool uffd_moves,
                            bool whole_chunks)
{
    size_t budget = shape->budget, chunk = shape->chunk;
    chunk_cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating a chunk cache");
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_t monotonic; /* both timed by clock_mono_ns (wait_until) */
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&c->changed, &monotonic);
    pthread_cond_init(&c->wb_work, &monotonic);
    pthread_condattr_destroy(&monotonic);
    c->target = t;
    c->budget = budget;
    c->chunk = chunk;
    c->page = vm_page_size();
    c->pages = (unsigned)(chunk / c->page);
    c->words = (c->pages + 63) / 64;
    c->uffd = uffd;
    c->whole_chunks = whole_chunks;
    c->move = uffd_moves;
    c->nslots = (int)(budget / chunk);
    c->shape = *shape;
    /* The limit leaves room for the fills the fault threads may have let
     * through at once, and the write-behind starts below it. */
    c->dirty_max = (unsigned)((uint64_t)c->nslots * shape->dirty_limit / 100);
    if (c->dirty_max > (unsigned)c->nslots - FAULT_SLACK)
        c->dirty_max = (unsigned)c->nslots - FAULT_SLACK;
    if (c->dirty_max == 0)
        c->dirty_max = 1;
    c->dirty_bg = (unsigned)((uint64_t)c->nslots * shape->dirty_background / 100);
    if (c->dirty_bg == 0) /* one chunk at least: a single writer's own never goes before it is done */
        c->dirty_bg = 1;
    if (c->dirty_bg >= c->dirty_max)
        c->dirty_bg = c->dirty_max - 1;
    /* A store's units (objects) are read whole, several in flight: the
     * window holds four where the cache has room. */
    c->unit = shape->unit_chunks > 1 ? (unsigned)shape->unit_chunks : 1;
    unsigned window = c->unit > 1 && 4 * c->unit > WINDOW ? 4 * c->unit : WINDOW;
    c->window = (unsigned)c->nslots / 4 < window ? (unsigned)c->nslots / 4 : window;
    /* Batches of a quarter of the window at most, so that several are in flight. */
    c->batch = c->unit > 1 ? c->unit : (unsigned)(BATCH_BYTES / chunk);
    if (c->batch > READAHEAD_BATCH)
        c->batch = READAHEAD_BATCH;
    if (c->batch > c->window / 4)
        c->batch = c->window / 4;
    if (c->batch == 0)
        c->batch = 1;
    /* Runs of adjacent chunks (RUN_BYTES), but never more than an eighth of
     * the cache at once, nor half the room between the two thresholds. */
    c->wb_run = (unsigned)(RUN_BYTES / chunk) > c->unit ? (unsigned)(RUN_BYTES / chunk) : c->unit;
    if (c->wb_run > (c->dirty_max - c->dirty_bg) / 2)
        c->wb_run = (c->dirty_max - c->dirty_bg) / 2;
    if (c->wb_run == 0)
        c->wb_run = 1;
    c->drop_run = c->wb_run < (unsigned)c->nslots / 8 ? c->wb_run : (unsigned)c->nslots / 8;
    if (c->drop_run == 0)
        c->drop_run = 1;
    c->lru = c->nslots;
    for (c->nbuckets = 16; c->nbuckets < 2u * (unsigned)c->nslots; c->nbuckets *= 2)
        ;
    c->slots = calloc((size_t)c->nslots + 1, sizeof *c->slots);
    c->heads = malloc(c->nbuckets * sizeof *c->heads);
    c->bits = calloc((size_t)c->nslots * c->words, sizeof *c->bits);
    bool ok = c->slots && c->heads && c->bits;
    /* Mapped now, paged in on first use; private to this process and in 4 KiB
     * pages, as UFFDIO_MOVE takes them. */
    for (unsigned i = 0; ok && i < NBOUNCE; i++) {
        c->bounce[i] = vm_map_lazy(c->batch * chunk);
        ok = c->bounce[i] != MAP_FAILED;
        if (ok)
            vm_advise_no_fork_no_huge(c->bounce[i], c->batch * chunk);
    }
    c->zeros = ok ? vm_map_lazy(c->batch * chunk) : MAP_FAILED;
    ok = c->zeros != MAP_FAILED;
    if (!ok) {
        cache_destroy(c);
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating a chunk cache of %zu slots", (size_t)c->nslots);
    }
    for (unsigned b = 0; b < c->nbuckets; b++)
        c->heads[b] = NIL;
    c->free = NIL;
    for (int i = c->nslots - 1; i >= 0; i--) {
        c->slots[i].dirty = c->bits + (size_t)i * c->words;
        push_free(c, &c->slots[i]);
    }
    c->slots[c->lru].prev = c->slots[c->lru].next = c->lru;
    c->st.cache_bytes = budget;
    return c;
}

void cache_destroy(chunk_cache_t *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock); /* no region is left: the write-behind threads are idle */
    c->closing = true;
    pthread_cond_broadcast(&c->wb_work);
    pthread_mutex_unlock(&c->lock);
    for (unsigned i = 0; i < c->nwb; i++)
        pthread_join(c->wb[i], NULL);
    pthread_cond_destroy(&c->wb_work);
    for (unsigned i = 0; i < NBOUNCE; i++)
        if (c->bounce[i] && c->bounce[i] != MAP_FAILED)
            vm_unmap(c->bounce[i], c->batch * c->chunk);
    if (c->zeros && c->zeros != MAP_FAILED)
        vm_unmap(c->zeros, c->batch * c->chunk);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->changed);
    free(c->slots);
    free(c->heads);
    free(c->bits);
    free(c);
}

void cache_stats(chunk_cache_t *c, loci_cache_stats_t *out)
{
    pthread_mutex_lock(&c->lock);
    const loci_cache_stats_t *s = &c->st;
    out->cache_bytes += s->cache_bytes;
    out->resident_bytes += s->resident_bytes;
    out->resident_peak += s->resident_peak;
    out->faults += s->faults;
    out->hits += s->hits;
    out->misses += s->misses;
    out->prefetched += s->prefetched;
    out->pages_dirtied += s->pages_dirtied;
    out->bytes_read += s->bytes_read;
    out->bytes_written += s->bytes_written;
    out->writebacks += s->writebacks;
    out->evictions += s->evictions;
    out->dirty_bytes += (uint64_t)c->ndirty * c->chunk;
    out->dirty_peak += s->dirty_peak;
    out->written_behind += s->written_behind;
    out->throttled += s->throttled;
    pthread_mutex_unlock(&c->lock);
}

const struct loci_target *cache_target(const chunk_cache_t *c) { return c->target; }
const cache_shape_t *cache_shape(const chunk_cache_t *c) { return &c->shape; }
