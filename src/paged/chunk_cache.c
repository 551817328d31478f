/*
 * The DRAM chunk cache of the paged provider (NVMalloc §III-D). A fixed
 * number of slots (budget / chunk) is all the DRAM it holds, plus a few
 * bounce buffers; regions of the same target, budget and chunk size share it.
 *
 *  - A missing page faults: its whole chunk is read from the store into a
 *    bounce buffer and installed write-protected (UFFDIO_COPY), evicting the
 *    least recently faulted chunk when no slot is free. Pages that start
 *    dirty (a write fault's, the rest of the chunk for a sequential writer)
 *    are moved in instead where the kernel can (UFFDIO_MOVE: no copy); a
 *    moved page is writable, so a clean page is never moved: a write
 *    between its move and its protection would go unseen. A chunk never
 *    written (fresh) is not read: its pages are copied from a mapping that
 *    was never written (the kernel's zero page, always in the CPU's cache).
 *  - The first write to a clean page faults again: the page is marked dirty
 *    and unprotected (the rest of the chunk too for a sequential writer, the
 *    whole chunk with whole_chunks).
 *  - Write-behind: once more than dirty_background of the slots hold dirty
 *    pages, the cache's write-behind threads (WB_THREADS, so that as many
 *    writes are in flight) write the oldest dirty chunks back, their dirty
 *    runs write-protected first, so that a later store dirties them again.
 *    Where the store keeps adjacent chunks side by side (a file), a thread
 *    takes the dirty chunks that follow its pick as well (RUN_BYTES): one
 *    write-protect and one write for a sequential writer's run of chunks.
 *    A writer about to dirty one more chunk while dirty_limit of the slots
 *    are dirty waits for them (throttled); under the limit it never waits
 *    for the store. A flush has them write its region's dirty chunks too.
 *  - Eviction takes the least recently faulted clean chunk (a dirty one,
 *    written back synchronously, only when no clean one is left): it
 *    write-protects the chunk (writers wait), writes only the dirty pages,
 *    merged into runs, and drops the chunk (MADV_DONTNEED) so that the next
 *    access faults again. A clean victim goes with the clean chunks after it
 *    that the LRU would take next (a sequential pass): one MADV_DONTNEED.
 *    Each protect and drop is a TLB shootdown (an interrupt to every CPU
 *    running the process): per run of chunks instead of per chunk.
 *  - A store that refuses writes: the chunks stay dirty in DRAM and the
 *    write-behind retries at a growing interval (WB_RETRY_*), one message
 *    when it starts failing and one when it recovers; writers wait at the
 *    limit until it takes writes again (or, when it is full, ENOSPC, go on:
 *    then a chunk that no slot can be written for is dropped, its unflushed
 *    pages lost and reported by the next flush). A flush writes itself and
 *    returns the store's error (bounded by the store's timeout).
 *  - A fault right after the two chunks before it (a sequential reader)
 *    queues the next chunks for the readahead threads, a batch at a time:
 *    consecutive chunks are read with one store request (one larger read
 *    of a file, or all chunks in flight at once) and installed together.
 *
 * A region may instead be backed by shared memory (shared_backing.c: where
 * the system gives it huge pages): then a fill reads the store straight into
 * the memory file's pages and maps them (UFFDIO_CONTINUE, write-protected but
 * the pages that start dirty), with no bounce buffer and no copy, and a drop
 * removes the file's pages. Everything else — dirty bits, write-behind,
 * evictions — is the same.
 *
 * Loads from resident pages never reach loci, so "least recently used" means
 * least recently faulted — as in NVMalloc, whose FUSE cache sat below the
 * kernel's page cache. One mutex guards the slots; store I/O and copies run
 * outside it, with the slot marked busy (filling, writing, evicting) so that
 * others wait on the condition variable.
 */
#include "paged/paged_internal.h"
#include "os/vm.h"
#include "topo/topo.h"
#include "clock.h"
#include "thread.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBOUNCE 8    /* buffers store reads land in before they are installed: one per thread */
#define WINDOW 32    /* chunks read ahead of a sequential reader (at most a quarter of the cache) */
#define BATCH_BYTES ((size_t)1 << 20) /* a readahead batch reads this much at most (at least a chunk): 2 MiB was slower */
#define NIL (-1)
#define NGONE 256    /* chunks that left the cache lately, remembered to tell stale fault messages */
#define WB_THREADS 16 /* write-behinds in flight per cache, at most (rados bench's default -t) */
#define WB_RETRY_MIN_MS 50    /* after a failed write, the write-behind waits this long before it tries again, */
#define WB_RETRY_MAX_MS 5000  /* doubled per failure up to this: a bounded rate while the store is away */
#define RUN_BYTES ((size_t)2 << 20) /* adjacent chunks written behind, or dropped, at once: at most this much */
#define FAULT_SLACK 4 /* slots the fault threads may be filling for writers beyond the dirty limit */

typedef enum { SLOT_FREE, SLOT_FILLING, SLOT_RESIDENT, SLOT_WRITING, SLOT_EVICTING } slot_state_t;

typedef struct {
    paged_region_t *region; /* NULL when free */
    uint64_t chunk;         /* index in the region */
    slot_state_t state;
    int prev, next;         /* LRU (resident and writing slots), or the free list (next) */
    int hnext;              /* hash chain */
    uint64_t *dirty;        /* a bit per page of the chunk */
    uint64_t installed;     /* the number of the install that filled it */
    bool counted;           /* in ndirty: dirty pages, a write-back of them running, or filling for a writer */
} slot_t;

/* A chunk that left the cache: which, and the number of its last install. */
typedef struct {
    const paged_region_t *region;
    uint64_t chunk, installed;
} gone_t;

struct chunk_cache {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a slot changed state, a bounce buffer came back */
    const struct loci_target *target;
    cache_shape_t shape;    /* as made */
    size_t budget, chunk, page;
    unsigned pages;         /* per chunk */
    unsigned words;         /* of a dirty bitmap */
    int uffd;
    bool whole_chunks;
    bool move;              /* the userfaultfd moves pages (UFFDIO_MOVE) */
    unsigned batch;         /* chunks per readahead batch (a bounce buffer holds one) */
    unsigned window;        /* chunks read ahead of a sequential reader */
    unsigned wb_run;        /* adjacent dirty chunks written behind at once, at most */
    unsigned drop_run;      /* adjacent clean chunks evicted at once, at most */
    slot_t *slots;
    int nslots;
    int lru;                /* sentinel index (nslots): lru.next is the most recent */
    int free;               /* free list head */
    int *heads;             /* hash buckets */
    unsigned nbuckets;
    uint64_t *bits;         /* backing of the dirty bitmaps */
    void *bounce[NBOUNCE];  /* batch chunks each (resident only where used) */
    void *zeros;            /* batch chunks never written (the zero page): where fresh chunks are copied from */
    unsigned bounce_used;   /* bit per buffer */
    gone_t gone[NGONE];     /* a ring: the last chunks evicted or dropped */
    unsigned gone_next;
    uint64_t gone_lost;     /* the latest install number the ring has forgotten */
    loci_cache_stats_t st;    /* counters; resident_bytes follows the slots */
    _Atomic uint64_t read_failures, dropped; /* for the log: a failing store is reported, not once per retry */
    /* write-behind (all under the lock) */
    unsigned dirty_max;     /* slots counted dirty at most: a writer dirtying one more waits */
    unsigned dirty_bg;      /* the write-behind runs while more than this are dirty */
    unsigned ndirty;        /* slots counted dirty (slot_t.counted) */
    unsigned nwriting;      /* write-behinds in flight */
    const paged_region_t *newest;    /* the chunks a write dirtied last, [newest_first, newest_last] */
    uint64_t newest_first, newest_last; /* of it: a writer may still be in them */
    unsigned throttled;     /* writers waiting at the limit now */
    unsigned flushes;       /* flushes running: their regions' dirty chunks are written behind too */
    pthread_cond_t wb_work; /* the write-behind threads wait on it (CLOCK_MONOTONIC) */
    pthread_t wb[WB_THREADS];
    unsigned nwb;           /* write-behind threads started */
    bool closing;
    int store_error;        /* the last store write failed with it (0: the last one worked) */
    unsigned backoff_ms;    /* the write-behind's wait before its next try while store_error */
    uint64_t retry_ns;      /* ... until then (clock_mono_ns) */
};

/* ---- small helpers ------------------------------------------------------ */

static bool bit(const uint64_t *b, uint64_t i) { return b[i / 64] >> (i % 64) & 1; }
static void bit_set(uint64_t *b, uint64_t i) { b[i / 64] |= 1ull << (i % 64); }
static void bit_clear(uint64_t *b, uint64_t i) { b[i / 64] &= ~(1ull << (i % 64)); }

static uintptr_t chunk_addr(const paged_region_t *r, uint64_t chunk) { return r->base + chunk * r->cache->chunk; }

static size_t chunk_len(const paged_region_t *r, uint64_t chunk)
{
    size_t left = r->size - chunk * r->cache->chunk;
    return left < r->cache->chunk ? left : r->cache->chunk;
}

static unsigned bucket(const chunk_cache_t *c, const paged_region_t *r, uint64_t chunk)
{
    uint64_t h = ((uint64_t)(uintptr_t)r >> 4) * 0x9E3779B97F4A7C15ull ^ chunk * 0xC2B2AE3D27D4EB4Full;
    return (unsigned)((h ^ (h >> 29)) & (c->nbuckets - 1));
}

static slot_t *lookup(chunk_cache_t *c, const paged_region_t *r, uint64_t chunk)
{
    for (int i = c->heads[bucket(c, r, chunk)]; i != NIL; i = c->slots[i].hnext)
        if (c->slots[i].region == r && c->slots[i].chunk == chunk)
            return &c->slots[i];
    return NULL;
}

static int index_of(const chunk_cache_t *c, const slot_t *s) { return (int)(s - c->slots); }

static void hash_insert(chunk_cache_t *c, slot_t *s)
{
    int *head = &c->heads[bucket(c, s->region, s->chunk)];
    s->hnext = *head;
    *head = index_of(c, s);
}

static void hash_remove(chunk_cache_t *c, slot_t *s)
{
    int *p = &c->heads[bucket(c, s->region, s->chunk)];
    while (*p != index_of(c, s))
        p = &c->slots[*p].hnext;
    *p = s->hnext;
}

static slot_t *node(chunk_cache_t *c, int i) { return &c->slots[i]; } /* i == nslots: the sentinel */

static void lru_unlink(chunk_cache_t *c, slot_t *s)
{
    node(c, s->prev)->next = s->next;
    node(c, s->next)->prev = s->prev;
}

static void lru_push(chunk_cache_t *c, slot_t *s) /* most recent */
{
    slot_t *head = node(c, c->lru);
    s->prev = c->lru;
    s->next = head->next;
    node(c, head->next)->prev = index_of(c, s);
    head->next = index_of(c, s);
}

/* A fault in the resident (or writing) chunk of s: it is the most recent now. */
static void touch(chunk_cache_t *c, slot_t *s)
{
    lru_unlink(c, s);
    lru_push(c, s);
}

static bool any_dirty(const chunk_cache_t *c, const slot_t *s)
{
    for (unsigned w = 0; w < c->words; w++)
        if (s->dirty[w])
            return true;
    return false;
}

static bool busy(const slot_t *s)
{
    return s->state == SLOT_FILLING || s->state == SLOT_WRITING || s->state == SLOT_EVICTING;
}

static void wait_change(chunk_cache_t *c) { pthread_cond_wait(&c->changed, &c->lock); }

/* A bounce buffer, waiting for one when all are in use. */
static void *take_bounce(chunk_cache_t *c)
{
    while (c->bounce_used == (1u << NBOUNCE) - 1)
        wait_change(c);
    unsigned i = (unsigned)__builtin_ctz(~c->bounce_used);
    c->bounce_used |= 1u << i;
    return c->bounce[i];
}

static void give_bounce(chunk_cache_t *c, void *buf)
{
    for (unsigned i = 0; i < NBOUNCE; i++)
        if (c->bounce[i] == buf)
            c->bounce_used &= ~(1u << i);
    pthread_cond_broadcast(&c->changed);
}

/* Count one more of a repeated failure: true for the 1st, 2nd, 4th, 8th...,
 * the ones worth a log line, so that a store failing for hours logs a few
 * dozen lines, each with the count so far. */
static bool worth_logging(_Atomic uint64_t *count)
{
    uint64_t n = atomic_fetch_add_explicit(count, 1, memory_order_relaxed) + 1;
    return (n & (n - 1)) == 0;
}

/* The first failure since the last flush that cost r data (a read that
 * gave zeros, pages dropped unwritten, a flush's own write), kept with its
 * message (this thread's) for the flush to report (lock held). */
static void record_error(paged_region_t *r, int rc)
{
    if (r->error == 0) {
        r->error = rc;
        snprintf(r->error_msg, sizeof r->error_msg, "%s", loci_last_error());
    }
}

/* ---- dirty pages and write-back ------------------------------------------ */

/* Is page `p` of chunk `chunk` of r dirty in the cache (p < 0: counted back
 * into the chunks before)? */
static bool page_dirty(chunk_cache_t *c, paged_region_t *r, uint64_t chunk, long p)
{
    for (; p < 0; p += (long)c->pages) {
        if (chunk == 0)
            return false;
        chunk--;
    }
    slot_t *s = lookup(c, r, chunk);
    return s && s->state != SLOT_FILLING && bit(s->dirty, (uint64_t)p);
}

/* The pages [*first, *first + *n) of s's chunk that a write at addr dirties:
 * its own, or the rest of the chunk for a sequential writer (the two pages
 * before are dirty) or with whole_chunks (the whole chunk). */
static void dirty_span(chunk_cache_t *c, const slot_t *s, uintptr_t addr, unsigned *first, unsigned *n)
{
    paged_region_t *r = s->region;
    unsigned npages = (unsigned)(chunk_len(r, s->chunk) / c->page);
    *first = c->whole_chunks ? 0 : (unsigned)((addr - chunk_addr(r, s->chunk)) / c->page);
    *n = 1;
    if (c->whole_chunks || (page_dirty(c, r, s->chunk, (long)*first - 1) && page_dirty(c, r, s->chunk, (long)*first - 2)))
        *n = npages - *first;
}

static void set_counted(chunk_cache_t *c, slot_t *s, bool dirty);

static void set_dirty(chunk_cache_t *c, slot_t *s, unsigned first, unsigned n)
{
    for (unsigned p = first; p < first + n; p++)
        if (!bit(s->dirty, p)) {
            bit_set(s->dirty, p);
            c->st.pages_dirtied++;
        }
    if (n) {
        set_counted(c, s, true);
        c->newest = s->region;
        c->newest_first = c->newest_last = s->chunk;
    }
}

/* A write to the page at addr: dirty it (or its chunk) and let the writer
 * go on. Under the lock, so that a write-back cannot clear the bit between.
 * A sequential writer (the two pages before are dirty) gets the rest of the
 * chunk at once instead of a fault per page; pages it then leaves alone are
 * written back unchanged, which costs I/O, never data. */
static void mark_dirty(chunk_cache_t *c, slot_t *s, uintptr_t addr, bool dontwake)
{
    unsigned first, n;
    dirty_span(c, s, addr, &first, &n);
    set_dirty(c, s, first, n);
    uintptr_t at = chunk_addr(s->region, s->chunk) + first * c->page;
    if (uffd_unprotect(c->uffd, (void *)at, n * c->page, dontwake) != 0)
        loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
}

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

/* ---- stale fault messages ------------------------------------------------ *
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
 * thread that still waits one more fault, never a wrong result). */
static _Atomic uint64_t installs;

uint64_t cache_install_stamp(void) { return atomic_load(&installs); }

static void remember_gone(chunk_cache_t *c, const slot_t *s)
{
    gone_t *g = &c->gone[c->gone_next];
    if (g->region && g->installed > c->gone_lost)
        c->gone_lost = g->installed;
    *g = (gone_t){s->region, s->chunk, s->installed};
    c->gone_next = (c->gone_next + 1) % NGONE;
}

/* Was chunk `chunk` of r installed after `stamp` and has it gone since? */
static bool gone_since(const chunk_cache_t *c, const paged_region_t *r, uint64_t chunk, uint64_t stamp)
{
    if (c->gone_lost > stamp)
        return true;
    for (unsigned i = 0; i < NGONE; i++)
        if (c->gone[i].region == r && c->gone[i].chunk == chunk && c->gone[i].installed > stamp)
            return true;
    return false;
}

/* ---- the dirty share and the store's health -------------------------------- */

static void wb_start(chunk_cache_t *c);

/* Enough is dirty to write behind (lock held): a whole run more than
 * dirty_bg, so that each write-behind takes a run of chunks at once instead
 * of one chunk each time one more is dirtied, or any over it while writers
 * wait at the limit. */
static bool behind_over(const chunk_cache_t *c)
{
    unsigned pending = c->ndirty - c->nwriting;
    return pending >= c->dirty_bg + c->wb_run || (c->throttled && pending > c->dirty_bg);
}

/* s counts as dirty (or no longer): ndirty follows, and the write-behind
 * wakes once more than dirty_bg are (lock held). */
static void set_counted(chunk_cache_t *c, slot_t *s, bool dirty)
{
    if (dirty == s->counted)
        return;
    s->counted = dirty;
    if (!dirty) {
        c->ndirty--;
        return;
    }
    if (++c->ndirty * c->chunk > c->st.dirty_peak)
        c->st.dirty_peak = c->ndirty * c->chunk;
    if (behind_over(c)) {
        wb_start(c);
        pthread_cond_signal(&c->wb_work);
    }
}

/* Count s as it is now: dirty while it has dirty pages or a write-back of
 * them runs (its pages are not the store's yet) (lock held). */
static void recount(chunk_cache_t *c, slot_t *s)
{
    set_counted(c, s, s->region && (s->state == SLOT_WRITING || s->state == SLOT_EVICTING || any_dirty(c, s)));
}

/* A store write ended with rc (lock held): the first failure after writes
 * that worked says so once, with its message, and starts the write-behind's
 * back-off; the first success after failures says so once and ends it. */
static void store_answered(chunk_cache_t *c, int rc)
{
    if (rc == 0 && c->store_error == 0)
        return;
    if (rc == 0) {
        loci__log(LOCI_LOG_WARN, "mode=paged: the store of a %s cache takes writes again; writing back its %u dirty "
                                 "chunk(s)", c->target->name, c->ndirty);
        c->store_error = 0;
        c->backoff_ms = 0;
        pthread_cond_broadcast(&c->wb_work);
        pthread_cond_broadcast(&c->changed);
        return;
    }
    if (c->store_error == 0)
        loci__log(LOCI_LOG_ERROR, "mode=paged: a write-back failed; the dirty chunks stay in DRAM and are tried again "
                                  "every %d s at most%s (the next flush reports it): %s", WB_RETRY_MAX_MS / 1000,
                  rc == LOCI_ENOSPC ? "" : "; writers wait at the dirty limit meanwhile", loci_last_error());
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

/* Write the dirty pages of the n slots of run[] back (lock held; dropped
 * during the I/O, the slots being busy): n adjacent chunks of one region
 * (n > 1 only for a store that takes them at once: spans_chunks, runs that
 * continue across chunks are one write; write_runs, one request). Evicting
 * (n == 1): the
 * whole chunk is write-protected first so that no store can slip in before
 * it is dropped (a clean one is already). Otherwise the dirty runs are, so
 * that the next store to them dirties them again. A run the store refuses
 * (full, I/O error) stays dirty, and an eviction then keeps the chunk in
 * DRAM. Returns 0 or the store's error (its message in loci_last_error());
 * *bytes: what reached the store. */
static int write_back(chunk_cache_t *c, slot_t *const *run, unsigned n, bool evict, uint64_t *bytes)
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
        store_answered(c, error);
    return error;
}

/* The chunk of s leaves the cache (lock held): its slot is free, unlinked
 * from the LRU and the hash (the caller puts it on the free list). */
static void unslot(chunk_cache_t *c, slot_t *s)
{
    remember_gone(c, s);
    hash_remove(c, s);
    set_counted(c, s, false);
    s->region = NULL;
    s->state = SLOT_FREE;
    c->st.resident_bytes -= c->chunk;
}

/* Evict s (lock held, s resident): written back, dropped, out of the hash;
 * true: the caller owns the free slot afterwards. When its write-back
 * fails (*rc: why), s stays resident and dirty (most recently used) unless
 * `force`, which drops it anyway, its unwritten pages lost (reported, and
 * recorded for the next flush): the slot is freed then too. */
static bool evict(chunk_cache_t *c, slot_t *s, bool force, int *rc_out)
{
    s->state = SLOT_EVICTING;
    lru_unlink(c, s);
    uint64_t bytes;
    int rc = *rc_out = write_back(c, &s, 1, true, &bytes);
    if (rc != 0 && !force) {
        s->state = SLOT_RESIDENT;
        lru_push(c, s);
        recount(c, s);
        pthread_cond_broadcast(&c->changed);
        return false;
    }
    if (rc != 0) {
        record_error(s->region, rc);
        if (worth_logging(&c->dropped))
            loci__log(LOCI_LOG_ERROR, "mode=paged: no chunk of the cache can be written back; dropping one, its "
                                      "unwritten pages are lost (%llu so far): %s",
                      (unsigned long long)atomic_load(&c->dropped), loci_last_error());
        backing_drop(s->region, chunk_addr(s->region, s->chunk), chunk_len(s->region, s->chunk));
    }
    unslot(c, s);
    c->st.evictions++;
    pthread_cond_broadcast(&c->changed);
    return true;
}

static void push_free(chunk_cache_t *c, slot_t *s);

/* Evict s, clean (lock held, dropped meanwhile), with the clean chunks after
 * it in its region that the LRU holds right after it (a sequential pass
 * leaves its chunks there in order): one MADV_DONTNEED, one TLB shootdown,
 * for up to drop_run chunks instead of one each. The caller owns s's free
 * slot afterwards; the others go on the free list. */
static void evict_clean(chunk_cache_t *c, slot_t *s)
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
        unslot(c, run[i]);
        if (i > 0)
            push_free(c, run[i]);
    }
    c->st.evictions += n;
    pthread_cond_broadcast(&c->changed);
}

static void push_free(chunk_cache_t *c, slot_t *s)
{
    s->next = c->free;
    c->free = index_of(c, s);
}

/* ---- filling -------------------------------------------------------------- */

/* The slot to evict for a new chunk: the least recently faulted clean one
 * (nothing to write), else the least recently faulted dirty one (written
 * back now), NULL when all are busy. */
static slot_t *victim(chunk_cache_t *c)
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

/* A slot for chunk `chunk` of r, hashed and FILLING (lock held). NULL when
 * the caller must look again: it waited, or someone took the chunk meanwhile
 * (the lock is dropped while a victim is written back: an eviction or purge
 * of r may have run then too, which the readahead's epoch tells). `wait`:
 * may wait for a slot when all are busy (else NULL at once: a batch holding
 * slots already must not wait for others that wait for it). */
static slot_t *claim(chunk_cache_t *c, paged_region_t *r, uint64_t chunk, const unsigned *epoch, bool wait)
{
    slot_t *s = NULL;
    if (c->free != NIL) {
        s = &c->slots[c->free];
        c->free = s->next;
    } else {
        s = victim(c);
        if (!s) { /* every slot busy: wait for one */
            if (wait)
                wait_change(c);
            return NULL;
        }
        /* A chunk whose write-back fails stays, most recent: try the others.
         * When none can be written and the store is full, one is dropped (its
         * unflushed pages lost, reported), whose slot is then this one; while
         * the store fails otherwise (away) the caller waits for it instead. */
        int e;
        if (!s->counted)
            evict_clean(c, s);
        else
            for (int tries = 1; !evict(c, s, tries >= c->nslots && c->store_error == LOCI_ENOSPC, &e); tries++)
                if (tries >= c->nslots || !(s = victim(c))) {
                    if (wait)
                        wait_change(c);
                    return NULL;
                }
        if (lookup(c, r, chunk) || (epoch && r->epoch != *epoch)) {
            push_free(c, s);
            return NULL;
        }
    }
    s->region = r;
    s->chunk = chunk;
    s->state = SLOT_FILLING;
    memset(s->dirty, 0, c->words * sizeof *s->dirty);
    hash_insert(c, s);
    c->st.resident_bytes += c->chunk;
    if (c->st.resident_bytes > c->st.resident_peak)
        c->st.resident_peak = c->st.resident_bytes;
    return s;
}

/* Read [off, off+len) of r's store into buf, zeros where chunks are fresh
 * (never written), one store request per run of chunks that are not; a
 * failed read reads as zeros, recorded for the next flush (lock not held;
 * `fresh` read under it). */
static uint64_t read_chunks(chunk_cache_t *c, paged_region_t *r, uint64_t first, unsigned m, const bool *fresh,
                            char *buf, size_t len)
{
    uint64_t read = 0;
    for (unsigned i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && fresh[j] == fresh[i]; j++)
            ;
        size_t at = (size_t)i * c->chunk, n = (j < m ? (size_t)j * c->chunk : len) - at;
        int rc = fresh[i] ? 0 : r->store->ops->read(r->store, (first + i) * c->chunk, buf + at, n);
        if (rc != 0) {
            pthread_mutex_lock(&c->lock);
            record_error(r, rc);
            pthread_mutex_unlock(&c->lock);
            if (worth_logging(&c->read_failures))
                loci__log(LOCI_LOG_ERROR, "mode=paged: reading %u chunk(s) failed, they read as zeros (%llu failed "
                                          "reads so far): %s", j - i,
                          (unsigned long long)atomic_load(&c->read_failures), loci_last_error());
        }
        if (fresh[i] || rc != 0)
            memset(buf + at, 0, n);
        else
            read += n;
    }
    return read;
}

/* Install buf at base (len bytes): write-protected copies (unless r is
 * read-only), but pages [first, first+n) that start dirty are moved in
 * where the kernel can and buf is a bounce buffer (copied, unprotected,
 * where it cannot or buf is the zeros: copying the zero page costs less
 * than refilling the bounce buffer a move empties). */
static int install(chunk_cache_t *c, paged_region_t *r, uintptr_t base, char *buf, size_t len, unsigned first,
                   unsigned n)
{
    size_t from = (size_t)first * c->page, to = from + (size_t)n * c->page;
    bool move = n && c->move && buf != c->zeros;
    size_t moved = move ? uffd_move(c->uffd, (void *)(base + from), buf + from, to - from) : 0;
    int rc = uffd_copy(c->uffd, (void *)base, buf, from, !r->readonly);
    if (rc == 0 && moved < to - from)
        rc = uffd_copy(c->uffd, (void *)(base + from + moved), buf + from + moved, to - from - moved, false);
    if (rc == 0)
        rc = uffd_copy(c->uffd, (void *)(base + to), buf + to, len - to, !r->readonly);
    return rc;
}

/* Read the m consecutive chunks of slots run[] (one region, FILLING) and
 * install them (lock held, dropped for the I/O). `f`: the fault that asked
 * for them (m == 1), whose thread writes: its page is dirty at once. */
static void fill(chunk_cache_t *c, slot_t *const *run, unsigned m, const uffd_fault_t *f)
{
    paged_region_t *r = run[0]->region;
    uint64_t first = run[0]->chunk;
    uintptr_t base = chunk_addr(r, first);
    size_t len = (size_t)(m - 1) * c->chunk + chunk_len(r, first + m - 1);
    bool fresh[m];
    for (unsigned i = 0; i < m; i++)
        fresh[i] = r->fresh && bit(r->fresh, first + i);
    unsigned dfirst = 0, dn = 0; /* the pages the faulting write dirties */
    if (f && f->write && !r->readonly)
        dirty_span(c, run[0], f->addr, &dfirst, &dn);
    if (dn && m > 1) /* a sequential writer's fresh chunks after its own (writer_run): dirty through them */
        dn = (unsigned)(len / c->page) - dfirst;
    for (unsigned i = 0; dn && i < m; i++) /* the writer was let through the dirty limit for them */
        set_counted(c, run[i], true);
    bool all_fresh = true; /* nothing to read: copied from the zero page (shared memory: its new pages) */
    for (unsigned i = 0; i < m; i++)
        all_fresh = all_fresh && fresh[i];
    bool bounced = !r->alias && !all_fresh;
    char *buf = r->alias ? NULL : bounced ? take_bounce(c) : c->zeros;
    pthread_mutex_unlock(&c->lock);

    uint64_t read = 0;
    int rc = 0;
    if (r->alias) { /* read in place, then mapped at the region: no copy */
        buf = backing_fill_at(r, base, len);
        rc = buf ? 0 : LOCI_ENOMEM;
        if (rc == 0 && !all_fresh)
            read = read_chunks(c, r, first, m, fresh, buf, len);
        if (rc == 0)
            rc = backing_install(c->uffd, r, base, len, (size_t)dfirst * c->page, (size_t)(dfirst + dn) * c->page);
    } else {
        read = all_fresh ? 0 : read_chunks(c, r, first, m, fresh, buf, len);
        rc = install(c, r, base, buf, len, dfirst, dn);
    }

    pthread_mutex_lock(&c->lock);
    if (bounced)
        give_bounce(c, buf);
    for (unsigned i = 0; i < m; i++) {
        slot_t *s = run[i];
        if (rc != 0) { /* the faulting threads will fault again and retry */
            hash_remove(c, s);
            set_counted(c, s, false);
            s->region = NULL;
            s->state = SLOT_FREE;
            c->st.resident_bytes -= c->chunk;
            push_free(c, s);
            continue;
        }
        s->state = SLOT_RESIDENT;
        lru_push(c, s);
        c->st.misses++;
    }
    if (rc != 0)
        loci__log(LOCI_LOG_ERROR, "%s", loci_last_error());
    else {
        c->st.bytes_read += read;
        for (unsigned i = m; dn && i-- > 1;)
            set_dirty(c, run[i], 0, (unsigned)(chunk_len(r, run[i]->chunk) / c->page));
        set_dirty(c, run[0], dfirst, dn && m > 1 ? c->pages - dfirst : dn);
        if (dn) /* the writer is in the first and goes on through the others without a fault */
            c->newest_last = run[m - 1]->chunk;
    }
    uffd_wake(c->uffd, (void *)base, len);
    uint64_t number = atomic_fetch_add(&installs, 1) + 1; /* after the wake: see cache_install_stamp */
    for (unsigned i = 0; i < m && rc == 0; i++)
        run[i]->installed = number;
    pthread_cond_broadcast(&c->changed);
}

/* A missing page in a resident chunk that no install has answered (those are
 * stale, see above): its page was dropped behind loci's back (an
 * application's madvise) and comes back from the store — or, in shared
 * memory, which kept it, is mapped again. */
static void refault_page(chunk_cache_t *c, slot_t *s, const uffd_fault_t *f)
{
    paged_region_t *r = s->region;
    uintptr_t page = f->addr & ~(uintptr_t)(c->page - 1);
    if (r->alias) { /* shared memory keeps the page: mapped again, protected unless dirty */
        bool dirty = bit(s->dirty, (page - chunk_addr(r, s->chunk)) / c->page);
        if (backing_install(c->uffd, r, page, c->page, 0, dirty ? c->page : 0) != 0)
            loci__log(LOCI_LOG_ERROR, "mode=paged: mapping a page again: %s", loci_last_error());
    } else if (vm_page_absent((void *)page)) {
        bit_clear(s->dirty, (page - chunk_addr(r, s->chunk)) / c->page); /* its data is gone */
        recount(c, s);
        void *buf = aligned_alloc(c->page, c->page); /* rare: I/O under the lock keeps s as it is */
        int rc = buf ? r->store->ops->read(r->store, page - r->base, buf, c->page) : LOCI_ENOMEM;
        if (rc == 0 && (rc = uffd_copy(c->uffd, (void *)page, buf, c->page, !r->readonly)) == 0)
            c->st.bytes_read += c->page;
        else
            loci__log(LOCI_LOG_ERROR, "mode=paged: refilling a page: %s", loci_last_error());
        free(buf);
    }
    if (f->write && !r->readonly)
        mark_dirty(c, s, f->addr, true);
    uffd_wake(c->uffd, (void *)page, c->page);
}

/* A fault in chunk `chunk` right after the two before it (cached): a
 * sequential reader (one cached neighbour happens by chance under random
 * access). Have the window of chunks after it read ahead, a whole batch at a
 * time: what was asked before (up to r->ahead) is not asked again, and new
 * chunks are asked once a batch of them fits in the window (lock held). */
static void plan_readahead(chunk_cache_t *c, paged_region_t *r, uint64_t chunk, const uffd_fault_t *f)
{
    if (chunk < 2 || !lookup(c, r, chunk - 1) || !lookup(c, r, chunk - 2))
        return;
    /* A writer entering fresh chunks: nothing to read, and its own fault
     * installs each chunk dirty (no protect, no second fault to unprotect
     * it): read ahead, the chunk would come in clean and protected. */
    if (f->write && !r->readonly && r->fresh && chunk + 1 < r->nchunks && bit(r->fresh, chunk + 1))
        return;
    uint64_t end = chunk + 1 + c->window < r->nchunks ? chunk + 1 + c->window : r->nchunks;
    uint64_t from = r->ahead > chunk + 1 && r->ahead <= end ? r->ahead : chunk + 1; /* else: a new pass */
    if (from >= end || (end - from < c->batch && end < r->nchunks))
        return;
    for (uint64_t k = from; k < end; k++)
        if (!lookup(c, r, k))
            readahead_queue_add(r, k);
    r->ahead = end;
}

static bool room_ahead(chunk_cache_t *c);

/* A sequential writer entering fresh chunks at s (its fault's, claimed;
 * lock held): the fresh chunks after s, claimed to be installed dirty with
 * it in one fill, so that it faults once per batch of chunks instead of once
 * per chunk. As many as the dirty limit leaves room for, and fewer than half
 * the background threshold: the write-behind takes the oldest dirty chunks,
 * never these, the newest. Returns how many, in run[]. */
static unsigned writer_run(chunk_cache_t *c, slot_t *s, const uffd_fault_t *f, slot_t **run)
{
    paged_region_t *r = s->region;
    unsigned first, n;
    if (!f->write || r->readonly || c->whole_chunks || !r->fresh || !bit(r->fresh, s->chunk))
        return 0;
    dirty_span(c, s, f->addr, &first, &n);
    if (first != 0 || n != c->pages) /* not a sequential writer at the chunk's start */
        return 0;
    unsigned max = c->batch - 1, room = c->dirty_max > c->ndirty + 1 ? c->dirty_max - c->ndirty - 1 : 0;
    if (max > c->dirty_bg / 2)
        max = c->dirty_bg / 2;
    if (max > room)
        max = room;
    unsigned k = 0;
    for (uint64_t next = s->chunk + 1; k < max && next < r->nchunks && bit(r->fresh, next) && !lookup(c, r, next) &&
                                       room_ahead(c) && (run[k] = claim(c, r, next, NULL, false));
         next++)
        k++;
    return k;
}

/* A writer about to dirty one more chunk while dirty_max are dirty waits
 * for the write-behind (lock held): true when it waited (the caller looks
 * again). A full store lifts the limit (waiting would not end: see claim). */
static bool throttled(chunk_cache_t *c, bool *counted)
{
    if (c->ndirty < c->dirty_max || c->store_error == LOCI_ENOSPC)
        return false;
    if (!*counted)
        c->st.throttled++;
    *counted = true;
    wb_start(c);
    c->throttled++;
    pthread_cond_signal(&c->wb_work);
    wait_change(c);
    c->throttled--;
    return true;
}

void cache_fault(paged_region_t *r, const uffd_fault_t *f, uint64_t stamp)
{
    chunk_cache_t *c = r->cache;
    uint64_t chunk = (f->addr - r->base) / c->chunk;
    bool planned = false, waited = false;
    pthread_mutex_lock(&c->lock);
    if (!f->wp)
        c->st.faults++;
    for (;;) {
        slot_t *s = lookup(c, r, chunk);
        if (!s) {
            if (f->wp || gone_since(c, r, chunk, stamp)) { /* evicted since: the thread faults again if it must */
                uffd_wake(c->uffd, (void *)(f->addr & ~(uintptr_t)(c->page - 1)), c->page);
                break;
            }
            if (f->write && !r->readonly && throttled(c, &waited))
                continue;
            if ((s = claim(c, r, chunk, NULL, true))) {
                if (chunk < r->ahead) /* asked but dropped (evicted, or the queue was full): ask again */
                    r->ahead = chunk + 1;
                plan_readahead(c, r, chunk, f);
                slot_t *run[c->batch];
                run[0] = s;
                fill(c, run, 1 + writer_run(c, s, f, run + 1), f);
                break;
            }
            continue;
        }
        if (s->state == SLOT_FILLING && !f->wp && !planned) { /* caught up with the readahead: keep it ahead */
            plan_readahead(c, r, chunk, f);
            planned = true;
        }
        if (s->state == SLOT_FILLING || s->state == SLOT_EVICTING) {
            wait_change(c);
            continue;
        }
        touch(c, s);
        if (f->wp && !s->counted && throttled(c, &waited))
            continue;
        if (f->wp) {
            mark_dirty(c, s, f->addr, false);
            break;
        }
        if (s->installed > stamp) { /* this install woke the thread already */
            uffd_wake(c->uffd, (void *)(f->addr & ~(uintptr_t)(c->page - 1)), c->page);
            break;
        }
        c->st.hits++;
        refault_page(c, s, f);
        break;
    }
    pthread_mutex_unlock(&c->lock);
}

/* ---- write-behind --------------------------------------------------------- */

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
    for (slot_t *t; n < c->wb_run && (t = lookup(c, s->region, s->chunk + n)) && behind_ok(c, t, over);)
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
            if (c->store_error && c->nwriting == 0) {
                struct timespec at = {(time_t)(c->retry_ns / 1000000000u), (long)(c->retry_ns % 1000000000u)};
                pthread_cond_timedwait(&c->wb_work, &c->lock, &at);
            } else {
                pthread_cond_wait(&c->wb_work, &c->lock);
            }
            continue;
        }
        slot_t *run[c->wb_run];
        unsigned n = behind_run(c, s, run);
        for (unsigned i = 0; i < n; i++)
            run[i]->state = SLOT_WRITING;
        c->nwriting += n;
        uint64_t bytes;
        write_back(c, run, n, false, &bytes); /* a failure: the pages stay dirty, store_answered backs off */
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

/* The write-behind threads, started on first need (lock held). Fewer than
 * asked, or none: the others write behind, or evictions write synchronously. */
static void wb_start(chunk_cache_t *c)
{
    if (c->nwb == WB_THREADS || c->closing)
        return;
    while (c->nwb < WB_THREADS && thread_start_quiet(&c->wb[c->nwb], write_behind, c) == 0)
        c->nwb++;
}

/* ---- ranges ----------------------------------------------------------------- */

/* A slot a readahead may take: free, or clean to evict. A readahead never
 * writes a dirty chunk back to make room (it would wait for the store for a
 * guess, and could take the chunk a writer is still writing). */
static bool room_ahead(chunk_cache_t *c)
{
    slot_t *v = c->free != NIL ? NULL : victim(c);
    return c->free != NIL || (v && !v->counted);
}

/* Chunks [first, first+n) of r in the cache, those missing filled now, a
 * batch of consecutive ones at a time (lock held) — unless `epoch` (a
 * readahead's) is no longer r's: r was evicted or purged since it was asked,
 * and what it would read must not come back. */
static void fill_range(chunk_cache_t *c, paged_region_t *r, uint64_t first, uint64_t n, const unsigned *epoch)
{
    slot_t *run[c->batch];
    for (uint64_t k = first; k < first + n;) {
        if (epoch && r->epoch != *epoch)
            return;
        if (lookup(c, r, k)) {
            c->st.hits++;
            k++;
            continue;
        }
        unsigned m = 0;
        while (m < c->batch && k + m < first + n && !lookup(c, r, k + m) && (!epoch || room_ahead(c)) &&
               (run[m] = claim(c, r, k + m, epoch, m == 0)))
            m++;
        if (m == 0 && epoch && !room_ahead(c))
            return;
        if (m == 0)
            continue; /* it waited, or the chunk was taken meanwhile: look again */
        fill(c, run, m, NULL);
        c->st.prefetched += m;
        k += m;
    }
}

int cache_prefetch(paged_region_t *r, uintptr_t addr, size_t len)
{
    chunk_cache_t *c = r->cache;
    uint64_t first = (addr - r->base) / c->chunk, last = (addr + len - 1 - r->base) / c->chunk;
    pthread_mutex_lock(&c->lock);
    fill_range(c, r, first, last - first + 1, NULL);
    pthread_mutex_unlock(&c->lock);
    return 0;
}

void cache_readahead(paged_region_t *r, uint64_t chunk, unsigned n, unsigned epoch)
{
    chunk_cache_t *c = r->cache;
    pthread_mutex_lock(&c->lock);
    if (!atomic_load(&r->leaving))
        fill_range(c, r, chunk, n, &epoch);
    pthread_mutex_unlock(&c->lock);
}

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
        wb_start(c);
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
            if (evict(c, s, false, &e)) /* else it stays, dirty: the error is returned below */
                push_free(c, s);
        } else if (s && any_dirty(c, s)) {
            uint64_t bytes;
            s->state = SLOT_WRITING;
            e = write_back(c, &s, 1, false, &bytes);
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
            evict(c, s, true, &e); /* whatever fails to reach the store is reported */
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
            unslot(c, s);
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

/* ---- life and counters ---------------------------------------------------- */

chunk_cache_t *cache_create(const struct loci_target *t, const cache_shape_t *shape, int uffd, bool uffd_moves,
                            bool whole_chunks)
{
    size_t budget = shape->budget, chunk = shape->chunk;
    chunk_cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating a chunk cache");
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->changed, NULL);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
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
    c->window = (unsigned)(c->nslots / 4 < WINDOW ? c->nslots / 4 : WINDOW);
    /* Batches of a quarter of the window at most, so that several are in flight. */
    c->batch = (unsigned)(BATCH_BYTES / chunk);
    if (c->batch > READAHEAD_BATCH)
        c->batch = READAHEAD_BATCH;
    if (c->batch > c->window / 4)
        c->batch = c->window / 4;
    if (c->batch == 0)
        c->batch = 1;
    /* Runs of adjacent chunks (RUN_BYTES), but never more than an eighth of
     * the cache at once, nor half the room between the two thresholds. */
    c->wb_run = (unsigned)(RUN_BYTES / chunk);
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
