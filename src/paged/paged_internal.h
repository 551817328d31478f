/*
 * The parts of the paged provider (mode=paged): regions (paged extents and
 * persistent regions), the DRAM chunk cache they share, and the threads that
 * serve their page faults. Only src/paged (and its white-box test,
 * tests/unit/test_paged.c) includes this; every other file: paged.h.
 *
 *   paged.c        the operations (provider/paged.c's table), caches by (target, size, chunk)
 *   regions.c      the region table
 *   readahead_queue.c  the chunks the cache asks the readahead threads to fill
 *   chunk_cache.c  the cache: fill on fault, LRU, dirty pages, write-back runs
 *   paged_fault.c  the userfaultfd and its fault-handling threads
 *   shared_backing.c  a region's memory: anonymous, or a memory file filled in place
 * Below: os/uffd.c (the userfaultfd ioctls), src/chunkstore (where chunks
 * live), filetier/chunks.c (regions kept as a directory of chunk files).
 */
#ifndef LOCI_PAGED_INTERNAL_H
#define LOCI_PAGED_INTERNAL_H

#include "os/place.h"
#include "paged/paged.h"
#include "chunkstore/chunkstore.h"
#include "os/uffd.h"

#include <stdatomic.h>

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
    _Atomic int users;    /* fault handlers and queued readaheads using it now */
    _Atomic bool leaving; /* being freed: nothing more to read ahead */
    unsigned epoch;       /* bumped by evictions and purges (cache lock): older readaheads are void */
    uint64_t ahead;       /* chunks before it were asked to be read ahead (cache lock) */
    unsigned flushing;    /* flushes of it running: written behind too (cache lock) */
    int mem;              /* shared-memory backed (shared_backing.c): its memory file, else -1 */
    char *alias;          /* ... and the file's second mapping, which fills and evictions use; else NULL */
} paged_region_t;

/* ------------------------------------------------------------- regions.c -- */

/** The region containing addr with one more user (fault handlers), or NULL. */
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

/* ----------------------------------------------------- readahead_queue.c -- */

/** Chunks a readahead thread reads at once, at most. */
#define READAHEAD_BATCH 8

/** Have a readahead thread fill chunk `chunk` of r soon (cache_readahead),
 *  r held until then. The caller holds r and its cache's lock. Dropped when
 *  too many are queued. */
void readahead_queue_add(paged_region_t *r, uint64_t chunk);

/** The next batch to read ahead, waiting for one: the queue's first entry
 *  and the entries right after it that continue it (same region and epoch,
 *  the next chunks), *n of them from *chunk. Its region, held once for the
 *  caller to put. */
paged_region_t *readahead_queue_take(uint64_t *chunk, unsigned *n, unsigned *epoch);

/* ------------------------------------------------------- chunk_cache.c -- */

/** What a cache is: `budget` bytes of `chunk`-byte chunks (both page
 *  multiples, budget >= 8 chunks); a writer dirtying one more chunk waits
 *  while dirty_limit % of them are dirty, and its write-behind threads write
 *  dirty chunks back while more than dirty_background % are (1..100, the
 *  background below the limit). */
typedef struct {
    size_t budget, chunk;
    unsigned dirty_limit, dirty_background;
} cache_shape_t;

/** A cache of that shape, installing pages through the userfaultfd `uffd`,
 *  which moves pages where `uffd_moves` (UFFDIO_MOVE: paged_uffd_moves).
 *  `whole_chunks`: a first write dirties its whole chunk (NVMalloc without its
 *  write optimisation) instead of its page. NULL + loci__fail. */
chunk_cache_t *cache_create(const struct loci_target *t, const cache_shape_t *shape, int uffd, bool uffd_moves,
                            bool whole_chunks);
void cache_destroy(chunk_cache_t *c);

/** Serve one fault in r: fill the chunk from the store (evicting the least
 *  recently faulted one when the cache is full), or mark a page dirty.
 *  `stamp`: cache_install_stamp() taken before the fault was read. */
void cache_fault(paged_region_t *r, const uffd_fault_t *f, uint64_t stamp);

/** A number below that of every chunk install that wakes threads from now
 *  on: taken before reading a fault, it tells a fault an install has already
 *  answered (chunk_cache.c, "stale fault messages"). */
uint64_t cache_install_stamp(void);

/** Fill the chunks of [addr, addr+len) (page-aligned, inside r) now. */
int cache_prefetch(paged_region_t *r, uintptr_t addr, size_t len);

/** Fill chunks [chunk, chunk+n) of r but those cached already, consecutive
 *  ones with one store read (sequential readahead asked in `epoch`: nothing
 *  when r was evicted or purged since). */
void cache_readahead(paged_region_t *r, uint64_t chunk, unsigned n, unsigned epoch);

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

/** Add the cache's counters to *out. */
void cache_stats(chunk_cache_t *c, loci_cache_stats_t *out);

/** What the cache is for: its target and shape. */
const struct loci_target *cache_target(const chunk_cache_t *c);
const cache_shape_t *cache_shape(const chunk_cache_t *c);

/* ------------------------------------------------------- paged_fault.c -- */

/** The process's userfaultfd, its fault-handling threads started. Opened
 *  on first use; `forced`: settle for one that handles user-mode faults only
 *  (see uffd_open). fd or LOCI_E* with the reason in loci_last_error(). */
int paged_uffd(bool forced);

/** The process's userfaultfd moves pages (UFFDIO_MOVE): probed when it was opened. */
bool paged_uffd_moves(void);

/** The process's userfaultfd serves shared memory (uffd_caps_t.shared): probed when it was opened. */
bool paged_uffd_shares(void);

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

#endif
