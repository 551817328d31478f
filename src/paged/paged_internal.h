/*
 * The parts of the paged provider (mode=paged): regions (paged extents and
 * persistent regions), the DRAM chunk cache they share, and the threads that
 * serve their page faults. Only src/paged (and its white-box test,
 * tests/unit/test_paged.c) includes this; every other file: paged.h.
 *
 * The files call each other one way (no circle), each only files listed
 * before it:
 *   regions.c          the region table: regions by address, held while in use
 *   shared_backing.c   a region's memory: anonymous, or a memory file filled in place
 *   readahead_queue.c  chunks the cache asks the readahead threads to fill
 *   chunk_cache.c      the cache made, freed and counted (its struct, slots, hash and LRU: below, inline)
 *   stale_faults.c     install numbers, chunks gone: which fault messages an install answered
 *   writeback_runs.c   dirty pages written back in runs; the store's health
 *   write_behind.c     the dirty share and its thresholds, writers throttled, the write-behind threads
 *   cache_evict.c      the least recently faulted chunk evicted, clean ones in runs
 *   cache_fill.c       faults: chunks filled (on fault, read ahead, prefetched), pages dirtied
 *   cache_ranges.c     a range written back, evicted or purged; a region's chunks dropped
 *   paged_fault.c      the userfaultfd, its fault and readahead threads
 *   paged.c            the operations (provider/paged.c's table), caches by (target, shape)
 * The cache is told what the userfaultfd can do when it is made
 * (cache_create's uffd_moves) and leaves its readahead requests in the queue
 * below it: it never calls the threads that call it.
 * Below: os/uffd.c (the userfaultfd ioctls), src/chunkstore (where chunks
 * live), filetier/chunks.c (regions kept as a directory of chunk files).
 */
#ifndef LOCI_PAGED_INTERNAL_H
#define LOCI_PAGED_INTERNAL_H

#include "os/place.h"
#include "paged/paged.h"
#include "chunkstore/chunkstore.h"
#include "os/uffd.h"
#include "clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

typedef struct chunk_cache chunk_cache_t;

/** A paged range of the address space backed by a store. */
typedef struct paged_region {
    uintptr_t base;
    size_t size;          /* a multiple of the page size */
    chunkstore_t *store;       /* owned */
    chunk_cache_t *cache; /* shared with other regions */
    uint64_t nchunks;
    uint64_t *fresh;      /* bit per chunk: never written to the store, so zeros (NULL: none fresh) */
    bool readonly;        /* mapped PROT_READ, nothing is ever written back */
    int error;            /* first failed write-back or read (LOCI_E*), reported by the next flush; */
    char error_msg[512];  /* its message; both under the cache's lock */
    _Atomic int users;    /* fault handlers, queued readaheads, readers of its counters using it now */
    _Atomic bool leaving; /* being freed: nothing more to read ahead */
    unsigned epoch;       /* bumped by evictions and purges (cache lock): older readaheads are void */
    uint64_t ahead;       /* chunks before it were asked to be read ahead (cache lock) */
    unsigned flushing;    /* flushes of it running: written behind too (cache lock) */
    int mem;              /* shared-memory backed (shared_backing.c): its memory file, else -1 */
    char *alias;          /* ... and the file's second mapping, which fills and evictions use; else NULL */
} paged_region_t;

/* ----------------------------------------------------------- regions.c -- */

/** The region containing addr with one more user (a fault handler, a reader of its counters), or NULL. */
paged_region_t *paged_region_get(uintptr_t addr);
/** One more user of r, whose caller is one already. */
void paged_region_hold(paged_region_t *r);
void paged_region_put(paged_region_t *r);

/** The region containing addr, or NULL: for the caller that owns it (it cannot go away meanwhile). */
paged_region_t *paged_region_find(uintptr_t addr);

/** r (mapped: base and size set) in the table. 0, or LOCI_ENOMEM with the message. */
int paged_region_add(paged_region_t *r);

/** The region starting at base out of the table, once no user holds it any
 *  more (leaving from now on: nothing more is read ahead for it); NULL when
 *  no region starts there. */
paged_region_t *paged_region_remove(uintptr_t base);

/* ---------------------------------------------------- shared_backing.c -- */

/** Should a region of `chunk`-byte chunks be backed by shared memory: the
 *  process's userfaultfd serves it (`uffd_shares`: paged_uffd_shares) and
 *  the system gives shared memory huge pages that whole chunks fill, or
 *  LOCI_UFFD_SHM=1 (not with =0). */
bool backing_shared_for(size_t chunk, bool uffd_shares);

/** Map `size` bytes for r, aligned, over a new memory file (r->mem, r->alias
 *  set). MAP_FAILED with errno set. */
void *backing_map_shared(paged_region_t *r, size_t size, size_t alignment);

/** Free the pages of r's memory file, unmap its alias and close it (nothing for anonymous regions). */
void backing_close(paged_region_t *r);

/** Free the memory of [addr, addr+len) of r: the next access faults to
 *  loci as missing. 0, or -1 with errno set. */
int backing_drop(const paged_region_t *r, uintptr_t addr, size_t len);

/** Where the store writes the pages at addr of r from: the alias of a
 *  shared-memory region, never registered with the userfaultfd, so a page the
 *  application dropped from the region (madvise) cannot make the write-back's
 *  own read of it fault to loci (and wait for the slot it is writing); else
 *  addr itself. */
char *backing_io_at(const paged_region_t *r, uintptr_t addr);

/** The alias pages of [addr, addr+len) of a shared-memory region, there and
 *  zeroed where the file had none: what a fill reads the store into. NULL +
 *  loci__fail. */
char *backing_fill_at(const paged_region_t *r, uintptr_t addr, size_t len);

/** Map the file's pages of [base, base+len) of a shared-memory region at the
 *  region: bytes [from, to) writable (they start dirty), the others
 *  write-protected unless r is read-only. 0 or LOCI_E*. */
int backing_install(int uffd, const paged_region_t *r, uintptr_t base, size_t len, size_t from, size_t to);

/* --------------------------------------------------- readahead_queue.c -- */

/** Chunks a readahead thread reads at once, at most (a store's 4 MiB object of 256 KiB chunks). */
#define READAHEAD_BATCH 16

/** Have a readahead thread fill chunk `chunk` of r soon (cache_readahead),
 *  r held until then. The caller holds r and its cache's lock. Dropped when
 *  too many are queued. */
void readahead_queue_add(paged_region_t *r, uint64_t chunk);

/** The next batch to read ahead, waiting for one: the queue's first entry
 *  and the entries right after it that continue it (same region and epoch,
 *  the next chunks), *n of them from *chunk. Its region, held once for the
 *  caller to put. */
paged_region_t *readahead_queue_take(uint64_t *chunk, unsigned *n, unsigned *epoch);

/* ----------------------------------------------------- the chunk cache -- */

/** What a cache is: `budget` bytes of `chunk`-byte chunks (both page
 *  multiples, budget >= 8 chunks); a writer dirtying one more chunk waits
 *  while dirty_limit % of them are dirty, and its write-behind threads write
 *  dirty chunks back while more than dirty_background % are (1..100, the
 *  background below the limit). */
typedef struct {
    size_t budget, chunk;
    unsigned dirty_limit, dirty_background;
    size_t unit_chunks; /* chunks per unit of the store (chunkstore_t.unit; 1: none), read ahead and written
                         * behind whole where the cache has room (a size_t: no padding, shapes compare whole) */
} cache_shape_t;

#define NIL (-1)
#define NBOUNCE 8     /* buffers store reads land in before they are installed: one per thread */
#define NGONE 256     /* chunks that left the cache lately, remembered to tell stale fault messages */
#define WB_THREADS 16 /* write-behinds in flight per cache, at most (rados bench's default -t) */

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
    pthread_cond_t changed; /* a slot changed state, a bounce buffer came back (CLOCK_MONOTONIC) */
    const struct loci_target *target;
    cache_shape_t shape;    /* as made */
    size_t budget, chunk, page;
    unsigned pages;         /* per chunk */
    unsigned words;         /* of a dirty bitmap */
    int uffd;
    bool whole_chunks;
    bool move;              /* the userfaultfd moves pages (UFFDIO_MOVE) */
    unsigned batch;         /* chunks per readahead batch (a bounce buffer holds one) */
    unsigned unit;          /* chunks per unit of the store: batches and write-behind runs end at its bounds */
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
    unsigned patience_s;    /* while store_error: the failing store's patience (chunkstore_t) */
    uint64_t give_up_ns;    /* ... from the first failed write on: no longer waited for after this */
    bool gave_up;           /* ... and it is past (said once: cache_store_given_up) */
};

/* Slots, their hash and LRU, and the errors the cache keeps: inline, as the
 * fault path looks chunks up in loops (lock held throughout). */

static inline bool bit(const uint64_t *b, uint64_t i) { return b[i / 64] >> (i % 64) & 1; }
static inline void bit_set(uint64_t *b, uint64_t i) { b[i / 64] |= 1ull << (i % 64); }
static inline void bit_clear(uint64_t *b, uint64_t i) { b[i / 64] &= ~(1ull << (i % 64)); }

static inline uintptr_t chunk_addr(const paged_region_t *r, uint64_t chunk)
{
    return r->base + chunk * r->cache->chunk;
}

static inline size_t chunk_len(const paged_region_t *r, uint64_t chunk)
{
    size_t left = r->size - chunk * r->cache->chunk;
    return left < r->cache->chunk ? left : r->cache->chunk;
}

static inline unsigned bucket(const chunk_cache_t *c, const paged_region_t *r, uint64_t chunk)
{
    uint64_t h = ((uint64_t)(uintptr_t)r >> 4) * 0x9E3779B97F4A7C15ull ^ chunk * 0xC2B2AE3D27D4EB4Full;
    return (unsigned)((h ^ (h >> 29)) & (c->nbuckets - 1));
}

static inline slot_t *lookup(chunk_cache_t *c, const paged_region_t *r, uint64_t chunk)
{
    for (int i = c->heads[bucket(c, r, chunk)]; i != NIL; i = c->slots[i].hnext)
        if (c->slots[i].region == r && c->slots[i].chunk == chunk)
            return &c->slots[i];
    return NULL;
}

static inline int index_of(const chunk_cache_t *c, const slot_t *s) { return (int)(s - c->slots); }

static inline void hash_insert(chunk_cache_t *c, slot_t *s)
{
    int *head = &c->heads[bucket(c, s->region, s->chunk)];
    s->hnext = *head;
    *head = index_of(c, s);
}

static inline void hash_remove(chunk_cache_t *c, slot_t *s)
{
    int *p = &c->heads[bucket(c, s->region, s->chunk)];
    while (*p != index_of(c, s))
        p = &c->slots[*p].hnext;
    *p = s->hnext;
}

static inline slot_t *node(chunk_cache_t *c, int i) { return &c->slots[i]; } /* i == nslots: the sentinel */

static inline void lru_unlink(chunk_cache_t *c, slot_t *s)
{
    node(c, s->prev)->next = s->next;
    node(c, s->next)->prev = s->prev;
}

static inline void lru_push(chunk_cache_t *c, slot_t *s) /* most recent */
{
    slot_t *head = node(c, c->lru);
    s->prev = c->lru;
    s->next = head->next;
    node(c, head->next)->prev = index_of(c, s);
    head->next = index_of(c, s);
}

/* A fault in the resident (or writing) chunk of s: it is the most recent now. */
static inline void touch(chunk_cache_t *c, slot_t *s)
{
    lru_unlink(c, s);
    lru_push(c, s);
}

static inline void push_free(chunk_cache_t *c, slot_t *s)
{
    s->next = c->free;
    c->free = index_of(c, s);
}

/* Does chunk `chunk` start a unit of the store (an object): a batch or a run ends before it? */
static inline bool unit_start(const chunk_cache_t *c, uint64_t chunk) { return c->unit > 1 && chunk % c->unit == 0; }

static inline bool any_dirty(const chunk_cache_t *c, const slot_t *s)
{
    for (unsigned w = 0; w < c->words; w++)
        if (s->dirty[w])
            return true;
    return false;
}

static inline bool busy(const slot_t *s)
{
    return s->state == SLOT_FILLING || s->state == SLOT_WRITING || s->state == SLOT_EVICTING;
}

/* Wait on cv (lock held) until it is signalled or the clock_mono_ns clock
 * reaches ns (cv made with CLOCK_MONOTONIC). */
static inline void wait_until(chunk_cache_t *c, pthread_cond_t *cv, uint64_t ns)
{
    struct timespec at = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    pthread_cond_timedwait(cv, &c->lock, &at);
}

/* Wait for a slot to change (lock held) — while the store fails, at most
 * until the cache stops waiting for it, so that a writer held at the dirty
 * limit goes on then (cache_store_given_up). */
static inline void wait_change(chunk_cache_t *c)
{
    if (c->store_error && !c->gave_up && clock_mono_ns() < c->give_up_ns)
        wait_until(c, &c->changed, c->give_up_ns);
    else
        pthread_cond_wait(&c->changed, &c->lock);
}

/* Count one more of a repeated failure: true for the 1st, 2nd, 4th, 8th...,
 * the ones worth a log line, so that a store failing for hours logs a few
 * dozen lines, each with the count so far. */
static inline bool worth_logging(_Atomic uint64_t *count)
{
    uint64_t n = atomic_fetch_add_explicit(count, 1, memory_order_relaxed) + 1;
    return (n & (n - 1)) == 0;
}

/* The first failure since the last flush that cost r data (a read that
 * gave zeros, pages dropped unwritten, a flush's own write), kept with its
 * message (this thread's) for the flush to report (lock held). */
static inline void record_error(paged_region_t *r, int rc)
{
    if (r->error == 0) {
        r->error = rc;
        snprintf(r->error_msg, sizeof r->error_msg, "%s", loci_last_error());
    }
}

/* ------------------------------------------------------- chunk_cache.c -- */

/** A cache of that shape, installing pages through the userfaultfd `uffd`,
 *  which moves pages where `uffd_moves` (UFFDIO_MOVE: paged_uffd_moves).
 *  `whole_chunks`: a first write dirties its whole chunk (NVMalloc without its
 *  write optimisation) instead of its page. NULL + loci__fail. */
chunk_cache_t *cache_create(const struct loci_target *t, const cache_shape_t *shape, int uffd, bool uffd_moves,
                            bool whole_chunks);
void cache_destroy(chunk_cache_t *c);

/** Add the cache's counters to *out. */
void cache_stats(chunk_cache_t *c, loci_cache_stats_t *out);

/** What the cache is for: its target and shape. */
const struct loci_target *cache_target(const chunk_cache_t *c);
const cache_shape_t *cache_shape(const chunk_cache_t *c);

/* ------------------------------------------------------ stale_faults.c -- */

/** A number below that of every chunk install that wakes threads from now
 *  on: taken before reading a fault, it tells a fault an install has already
 *  answered (stale_faults.c). */
uint64_t cache_install_stamp(void);

/** Count an install done, its pages in place and its waiters woken: its number. */
uint64_t cache_install_done(void);

/** The chunk of s leaves the cache (lock held): remembered with its install. */
void cache_remember_gone(chunk_cache_t *c, const slot_t *s);

/** Was chunk `chunk` of r installed after `stamp` and has it gone since (lock held)? */
bool cache_gone_since(const chunk_cache_t *c, const paged_region_t *r, uint64_t chunk, uint64_t stamp);

/* ---------------------------------------------------- writeback_runs.c -- */

/** Write the dirty pages of the n slots of run[] back (lock held; dropped
 *  during the I/O, the slots being busy): n adjacent chunks of one region
 *  (n > 1 only for a store that takes them at once: spans_chunks, runs that
 *  continue across chunks are one write; write_runs, one request). Evicting
 *  (n == 1): the whole chunk is write-protected first so that no store can
 *  slip in before it is dropped (a clean one is already). Otherwise the dirty runs are, so
 *  that the next store to them dirties them again. A run the store refuses
 *  (full, I/O error) stays dirty, and an eviction then keeps the chunk in
 *  DRAM. Returns 0 or the store's error (its message in loci_last_error());
 *  *bytes: what reached the store. */
int cache_write_run(chunk_cache_t *c, slot_t *const *run, unsigned n, bool evict, uint64_t *bytes);

/** Does the cache no longer wait for its store (lock held)? When it is full
 *  (waiting would not end), or has taken no write for its patience from the
 *  first that failed (chunkstore_t.patience_s: a job's store's `timeout`):
 *  then writers go on past the dirty limit, and a dirty chunk that cannot be
 *  written back when its slot is needed is dropped, its pages lost and
 *  reported by the next flush of its memory. Said once when the patience
 *  runs out; the write-behind keeps trying, and the first write the store
 *  takes ends it. */
bool cache_store_given_up(chunk_cache_t *c);

/* ------------------------------------------------------ write_behind.c -- */

/** Start the write-behind threads on first need (lock held). Fewer than
 *  asked, or none: the others write behind, or evictions write synchronously. */
void cache_behind_start(chunk_cache_t *c);

/* Enough is dirty to write behind (lock held): a whole run more than
 * dirty_bg, so that each write-behind takes a run of chunks at once instead
 * of one chunk each time one more is dirtied, or any over it while writers
 * wait at the limit. */
static inline bool behind_over(const chunk_cache_t *c)
{
    unsigned pending = c->ndirty - c->nwriting;
    return pending >= c->dirty_bg + c->wb_run || (c->throttled && pending > c->dirty_bg);
}

/* s counts as dirty (or no longer): ndirty follows, and the write-behind
 * wakes once more than dirty_bg are (lock held). */
static inline void set_counted(chunk_cache_t *c, slot_t *s, bool dirty)
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
        cache_behind_start(c);
        pthread_cond_signal(&c->wb_work);
    }
}

/* Count s as it is now: dirty while it has dirty pages or a write-back of
 * them runs (its pages are not the store's yet) (lock held). */
static inline void recount(chunk_cache_t *c, slot_t *s)
{
    set_counted(c, s, s->region && (s->state == SLOT_WRITING || s->state == SLOT_EVICTING || any_dirty(c, s)));
}

/** A writer's wait at the dirty limit for the write-behind (lock held);
 *  *counted: it was counted in the throttled writes already. */
void cache_throttle_wait(chunk_cache_t *c, bool *counted);

/* A writer about to dirty one more chunk while dirty_max are dirty waits
 * for the write-behind (lock held): true when it waited (the caller looks
 * again). A store the cache no longer waits for (full, or failing past its
 * patience) lifts the limit: see claim. The check is inline: every write
 * fault to a clean chunk makes it. */
static inline bool throttled(chunk_cache_t *c, bool *counted)
{
    if (c->ndirty < c->dirty_max || (c->store_error && cache_store_given_up(c)))
        return false;
    cache_throttle_wait(c, counted);
    return true;
}

/* ------------------------------------------------------- cache_evict.c -- */

/** The slot to evict for a new chunk: the least recently faulted clean one
 *  (nothing to write), else the least recently faulted dirty one (written
 *  back now), NULL when all are busy. */
slot_t *cache_victim(chunk_cache_t *c);

/** The chunk of s leaves the cache (lock held): its slot is free, unlinked
 *  from the LRU and the hash (the caller puts it on the free list). */
void cache_unslot(chunk_cache_t *c, slot_t *s);

/** Evict s (lock held, s resident): written back, dropped, out of the hash;
 *  true: the caller owns the free slot afterwards. When its write-back
 *  fails (*rc: why), s stays resident and dirty (most recently used) unless
 *  `force`, which drops it anyway, its unwritten pages lost (reported, and
 *  recorded for the next flush): the slot is freed then too. */
bool cache_evict(chunk_cache_t *c, slot_t *s, bool force, int *rc_out);

/** Evict s, clean (lock held, dropped meanwhile), with the clean chunks after
 *  it in its region that the LRU holds right after it (a sequential pass
 *  leaves its chunks there in order): one MADV_DONTNEED, one TLB shootdown,
 *  for up to drop_run chunks instead of one each. The caller owns s's free
 *  slot afterwards; the others go on the free list. */
void cache_evict_clean(chunk_cache_t *c, slot_t *s);

/* -------------------------------------------------------- cache_fill.c -- */

/** Serve one fault in r: fill the chunk from the store (evicting the least
 *  recently faulted one when the cache is full), or mark a page dirty.
 *  `stamp`: cache_install_stamp() taken before the fault was read. */
void cache_fault(paged_region_t *r, const uffd_fault_t *f, uint64_t stamp);

/** Fill the chunks of [addr, addr+len) (page-aligned, inside r) now. */
int cache_prefetch(paged_region_t *r, uintptr_t addr, size_t len);

/** Fill chunks [chunk, chunk+n) of r but those cached already, consecutive
 *  ones with one store read (sequential readahead asked in `epoch`: nothing
 *  when r was evicted or purged since). */
void cache_readahead(paged_region_t *r, uint64_t chunk, unsigned n, unsigned epoch);

/* ------------------------------------------------------ cache_ranges.c -- */

/** Write the dirty pages of the chunks of [addr, addr+len) back, in runs
 *  (the write-behind threads take r's dirty chunks meanwhile too), and
 *  return once the store took them; `evict` also drops the chunks from DRAM.
 *  Returns this call's first store error or the first one since the last
 *  call that lost data (a failed read, pages dropped), with its message,
 *  else 0. */
int cache_writeback(paged_region_t *r, uintptr_t addr, size_t len, bool evict);

/** Make [addr, addr+len) read as zeros and give its memory back. */
int cache_purge(paged_region_t *r, uintptr_t addr, size_t len);

/** Drop every chunk of r without writing anything (r goes away). */
void cache_forget(paged_region_t *r);

/** Drop every chunk of r without writing anything and unmap its pages: the
 *  next access reads the store again (its contents were replaced). */
int cache_reload(paged_region_t *r);

/* ------------------------------------------------------- paged_fault.c -- */

/** The process's userfaultfd, its fault-handling threads started. Opened
 *  on first use; `forced`: settle for one that handles user-mode faults only
 *  (see uffd_open). fd or LOCI_E* with the reason in loci_last_error(). */
int paged_uffd(bool forced);

/** The process's userfaultfd moves pages (UFFDIO_MOVE): probed when it was opened. */
bool paged_uffd_moves(void);

/** The process's userfaultfd serves shared memory (uffd_caps_t.shared): probed when it was opened. */
bool paged_uffd_shares(void);

#endif
