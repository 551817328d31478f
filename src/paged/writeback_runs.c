/*
 * Dirty pages written back in runs: the dirty runs of adjacent chunks
 * write-protected with one UFFDIO_WRITEPROTECT (a later store dirties them
 * again), their pages written with as few store requests as the store
 * allows, and the store's answer kept — its health. A store that refuses
 * writes: the chunks stay dirty in DRAM and the write-behind retries at a
 * growing interval (WB_RETRY_*), one message when it starts failing and one
 * when it recovers; writers wait at the limit until it takes writes again,
 * for the store's patience at most (its target's timeout: a distributed or
 * device failure ends in bounded time), or not at all when it is full
 * (ENOSPC: waiting would not end). Past that they go on, and a chunk that
 * no slot can be written for is dropped, its unflushed pages lost and
 * reported by the next flush. A flush writes itself and returns the
 * store's error (bounded by the store's timeout).
 */
#include "paged/paged_internal.h"
#include "topo/topo.h"

#include <errno.h>
#include <string.h>

#define WB_RETRY_MIN_MS 50    /* after a failed write, the write-behind waits this long before it tries again, */
#define WB_RETRY_MAX_MS 5000  /* doubled per failure up to this: a bounded rate while the store is away */

/* The next run of set bits in b[0..n) from *p: its start, and *p past it. */
static bool next_run(const uint64_t *b, unsigned n, unsigned *p, unsigned *start)
{
    while (*p < n && !bit(b, *p))
        (*p)++;
    if (*p == n)
        return false;
    *start = *p;
    while (*p < n && bit(b, *p))
        (*p)++;
    return true;
}

/* A write to store s, sent at `sent` (clock_mono_ns), ended with rc (lock
 * held): the first failure after writes that worked says so once, with its
 * message, and starts the write-behind's back-off and the store's patience;
 * the first success after failures says so once and ends both. */
static void store_answered(chunk_cache_t *c, int rc, const chunkstore_t *s, uint64_t sent)
{
    if (rc == 0 && c->store_error == 0)
        return;
    if (rc == 0) {
        loci__log(LOCI_LOG_WARN, "mode=paged: the store of a %s cache takes writes again; writing back its %u dirty "
                                 "chunk(s)", c->target->name, c->ndirty);
        c->store_error = 0;
        c->backoff_ms = 0;
        c->gave_up = false;
        pthread_cond_broadcast(&c->wb_work);
        pthread_cond_broadcast(&c->changed);
        return;
    }
    if (c->store_error == 0) {
        c->patience_s = s->patience_s;
        c->give_up_ns = sent + (uint64_t)s->patience_s * 1000000000u;
        if (rc == LOCI_ENOSPC)
            loci__log(LOCI_LOG_ERROR, "mode=paged: a write-back failed; the dirty chunks stay in DRAM and are tried "
                                      "again every %d s at most (the next flush reports it): %s",
                      WB_RETRY_MAX_MS / 1000, loci_last_error());
        else
            loci__log(LOCI_LOG_ERROR, "mode=paged: a write-back failed; the dirty chunks stay in DRAM and are tried "
                                      "again every %d s at most, writers waiting at the dirty limit for %u s at most "
                                      "(the next flush reports it): %s",
                      WB_RETRY_MAX_MS / 1000, s->patience_s, loci_last_error());
    }
    c->store_error = rc;
    c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : WB_RETRY_MIN_MS;
    if (c->backoff_ms > WB_RETRY_MAX_MS)
        c->backoff_ms = WB_RETRY_MAX_MS;
    c->retry_ns = clock_mono_ns() + (uint64_t)c->backoff_ms * 1000000u;
    pthread_cond_broadcast(&c->changed); /* a full store lifts the limit: throttled writers go on */
}

/* Write-protect the dirty pages of the n adjacent chunks of run[] whose
 * bits are in snap (lock held): runs that continue across a chunk boundary
 * (a sequential writer's) are one UFFDIO_WRITEPROTECT, one TLB shootdown. */
static int protect_runs(chunk_cache_t *c, slot_t *const *run, unsigned n, const uint64_t *snap)
{
    uintptr_t from = 0, to = 0; /* the range gathered so far */
    int rc = 0;
    for (unsigned i = 0; i < n && rc == 0; i++) {
        uintptr_t base = chunk_addr(run[i]->region, run[i]->chunk);
        unsigned np = (unsigned)(chunk_len(run[i]->region, run[i]->chunk) / c->page), p = 0, first;
        while (rc == 0 && next_run(snap + (size_t)i * c->words, np, &p, &first)) {
            if (base + first * c->page != to) { /* a gap: protect what was gathered */
                if (to > from)
                    rc = uffd_protect(c->uffd, (void *)from, to - from);
                from = base + first * c->page;
            }
            to = base + p * c->page;
        }
    }
    if (rc == 0 && to > from)
        rc = uffd_protect(c->uffd, (void *)from, to - from);
    return rc;
}

bool cache_store_given_up(chunk_cache_t *c)
{
    if (!c->store_error)
        return false;
    if (c->store_error == LOCI_ENOSPC || c->gave_up)
        return true;
    if (clock_mono_ns() < c->give_up_ns)
        return false;
    c->gave_up = true;
    loci__log(LOCI_LOG_ERROR, "mode=paged: the store of a %s cache has taken no write for %u s: writers no longer "
                              "wait for it, and a dirty chunk that cannot be written back when its slot is needed is "
                              "dropped, its pages since the last flush lost (the next flush of its memory reports "
                              "it); the write-behind keeps trying", c->target->name, c->patience_s);
    return true;
}

int cache_write_run(chunk_cache_t *c, slot_t *const *run, unsigned n, bool evict, uint64_t *bytes)
{
    paged_region_t *r = run[0]->region;
    uintptr_t base = chunk_addr(r, run[0]->chunk);
    size_t len = chunk_len(r, run[0]->chunk);
    unsigned w = c->words;
    uint64_t snap[n * w], failed[n * w];
    bool clean = true; /* then it is protected already: a page is writable only while dirty */
    for (unsigned i = 0; i < n; i++) {
        memcpy(snap + i * w, run[i]->dirty, w * sizeof *snap);
        memset(run[i]->dirty, 0, w * sizeof *snap);
        for (unsigned k = 0; k < w; k++)
            clean = clean && snap[i * w + k] == 0;
    }
    memset(failed, 0, sizeof failed);
    int rc = evict && !r->readonly && !clean ? uffd_protect(c->uffd, (void *)base, len) : 0;
    if (!evict && rc == 0)
        rc = protect_runs(c, run, n, snap);
    if (rc != 0) /* a store could slip past the write-back: say so */
        loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
    pthread_mutex_unlock(&c->lock);
    uint64_t sent = clock_mono_ns();

    /* The store runs, in order: offsets in r's store, the pages' own memory. */
    unsigned npages = c->pages, cap = n * (npages / 2 + 1); /* runs alternate with clean pages */
    chunkstore_run_t runs[cap];
    unsigned owner[cap], nrun = 0; /* owner: the slot of each run */
    for (unsigned i = 0; i < n; i++) {
        uintptr_t cb = chunk_addr(r, run[i]->chunk);
        unsigned p = 0, first, np = (unsigned)(chunk_len(r, run[i]->chunk) / c->page);
        while (next_run(snap + i * w, np, &p, &first)) {
            runs[nrun] = (chunkstore_run_t){cb - r->base + first * c->page, backing_io_at(r, cb + first * c->page),
                                            (size_t)(p - first) * c->page};
            owner[nrun++] = i;
        }
    }
    uint64_t written = 0, nwrites = 0;
    bool tried[n]; /* a write of it was sent: the store may hold data for it now, even when it failed */
    memset(tried, 0, sizeof tried);
    int error = 0;
    /* A store that can takes all the runs in one request (one per chunk,
     * in flight at once); one whose chunks lie side by side takes runs that
     * continue each other as one write. */
    const chunkstore_ops_t *ops = r->store->ops;
    for (unsigned i = 0, j; i < nrun; i = j) {
        size_t span = runs[i].len;
        for (j = i + 1; j < nrun; j++) {
            bool continues = runs[j].off == runs[i].off + span;
            if (!ops->write_runs && !(ops->spans_chunks && continues))
                break;
            span += runs[j].len;
        }
        int e = ops->write_runs ? ops->write_runs(r->store, &runs[i], j - i)
                                : ops->write(r->store, runs[i].off, runs[i].buf, span);
        /* (a failure of several chunks at once: those written go again later) */
        for (unsigned k = i; k < j; k++) {
            unsigned o = owner[k];
            size_t q0 = (size_t)(runs[k].off - (chunk_addr(r, run[o]->chunk) - r->base)) / c->page;
            for (size_t q = q0; e != 0 && q < q0 + runs[k].len / c->page; q++)
                bit_set(failed + o * w, q);
            tried[o] = true;
        }
        if (e != 0)
            error = error ? error : e;
        else {
            written += span;
            nwrites += ops->write_runs ? j - i : 1;
        }
    }
    if (evict && !error && backing_drop(r, base, len) != 0)
        loci__log(LOCI_LOG_ERROR, "mode=paged: dropping the pages of a chunk: %s", strerror(errno));

    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < n; i++) {
        for (unsigned k = 0; error && k < w; k++)
            run[i]->dirty[k] |= failed[i * w + k];
        if (tried[i] && r->fresh) /* the store holds data for it now (or may) */
            bit_clear(r->fresh, run[i]->chunk);
    }
    c->st.bytes_written += written;
    c->st.writebacks += nwrites;
    *bytes = written;
    if (nrun)
        store_answered(c, error, r->store, sent);
    return error;
}
