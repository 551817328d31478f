/*
 * The paged memory (mode=paged) as the layers above see it: the chunk files
 * of a persistent region in chunk layout, its chunk store, the caches'
 * counters, and whether paging can run here. The machinery behind it is
 * paged_internal.h, which only src/paged includes.
 *
 * A region made with mode=paged is a directory "<tier dir>/<name>.region":
 * a `meta` file (format, size, chunk size) and one file per chunk,
 * "c%016llx" of its index, made on its first write-back (missing: zeros).
 * A chunk file linked elsewhere too (st_nlink > 1: a checkpoint holds it)
 * is never written in place: the next write-back copies it to a new file
 * renamed over the region's name (copy-on-write), so the other link keeps
 * the old contents.
 */
#ifndef LOCI_PAGED_H
#define LOCI_PAGED_H

#include "internal.h"
#include "os/place.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loci_target;
struct chunkstore;

/** An open paged region as a checkpoint takes it (paged_chunks). */
typedef struct {
    struct chunkstore *store; /* its chunk store (the region's: valid while it is open) */
    int dirfd;           /* in chunk layout: the region's directory, a dup the caller closes; else -1 */
    size_t chunk;        /* bytes per chunk (file) */
    uint64_t nchunks;    /* chunks of the region's size; in chunk layout, files may be missing (zeros) */
    uint64_t version;    /* in chunk layout: equal to one described before: no chunk file changed since
                          * (unique across processes and openings) */
} region_chunks_t;

/** Write back every dirty page of the paged region at `base` (its start address) and make it
 *  durable (provider sync), once; then describe it: its chunk store and, in chunk layout, its
 *  chunk files (dirfd -1 for a flat file or a region in the job's store). LOCI_EINVAL (with
 *  message) when base is no paged region; the write-back's error when it failed (out->dirfd -1).
 *  Linking the files elsewhere is safe while no thread writes the region: with no dirty page
 *  nothing is written back, and every later write-back sees the link and copies. */
int paged_chunks(void *base, region_chunks_t *out);

/** Drop the region's cached chunks WITHOUT writing them back (its chunk files were just replaced
 *  by a restore; its version changes); the next access reads the files. The caller guarantees no thread touches the
 *  region meanwhile. LOCI_EINVAL when base is no paged region. */
int paged_reload(void *base);

/** Counters of the chunk cache serving the paged memory at addr, or with
 *  addr NULL of all caches, past and present, added up. LOCI_ENOENT when
 *  addr is not paged memory. */
int paged_stats(const void *addr, loci_cache_stats_t *out);

/** Call fn for each live chunk cache: its target, budget, chunk size and counters. */
void paged_foreach_cache(void (*fn)(const struct loci_target *t, size_t budget, size_t chunk,
                                             const loci_cache_stats_t *st, void *arg),
                                  void *arg);

/** 0 when mode=paged can run here without restrictions (the userfaultfd
 *  opens), else the LOCI_E* code of the refusal with its message in *why
 *  (static or thread-local): provider.c chooses between paged and mmap by it. */
int paged_check_access(const char **why);

/** Dirty whole chunks on a first write instead of single pages, in caches
 *  created from now on: NVMalloc without its write optimisation, for
 *  benchmarks and tests. Returns the previous setting. */
bool paged_whole_chunks(bool on);

/* --- the paged provider's operations (provider/paged.c's table;
 * provider.h says what each must do) ------------------------------------ */

void *paged_alloc(const place_t *place, size_t size, size_t alignment);
int paged_free(void *addr, size_t size);
int paged_purge(void *addr, size_t size);
int paged_flush(void *addr, size_t size);
int paged_prefetch(void *addr, size_t size);
int paged_evict(void *addr, size_t size);
int paged_available(const place_t *place, uint64_t *bytes);
void *paged_open(const place_t *place, const char *name, size_t *size, unsigned flags);
int paged_remove(const place_t *place, const char *name);

#endif
