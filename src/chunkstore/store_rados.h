/*
 * The chunk store over a RADOS pool (store_rados.c): what the paged
 * provider maps when a target is the job's aggregate store (kind=store).
 */
#ifndef LOCI_CHUNKSTORE_STORE_RADOS_H
#define LOCI_CHUNKSTORE_STORE_RADOS_H

#include "chunkstore/store.h"
#include "rados/rados_pool.h"

/** Chunk size of store regions when the intent gives no chunk= (NVMalloc's 256 KiB). */
#define STORE_RADOS_CHUNK ((size_t)256 << 10)

/** A private store of `size` bytes in `chunk`-byte objects (loci_alloc on the
 *  store): its objects are removed when it is closed. NULL + loci__fail. */
store_t *store_rados_anonymous(rados_pool_t *rp, uint64_t size, size_t chunk);

/** Open (LOCI_CREATE: or create) the region `name`: flags LOCI_CREATE,
 *  LOCI_READONLY. *size: wanted (0 = as it is), then its size; *chunk: asked
 *  (0 = the region's, or STORE_RADOS_CHUNK for a new one), then its chunk
 *  size. A writer holds the region's exclusive lock, readers a shared one,
 *  across nodes, until the store is closed (or its process dies + lock_ttl).
 *  NULL + loci__fail: LOCI_ENOENT, LOCI_EBUSY (held elsewhere), LOCI_EINVAL
 *  (size or chunk differs), LOCI_EIO (cluster unreachable, metadata gone). */
store_t *store_rados_open_region(rados_pool_t *rp, const char *name, unsigned flags, uint64_t *size, size_t *chunk);

/** Delete region `name` and all its objects (LOCI_EBUSY when open anywhere). */
int store_rados_remove_region(rados_pool_t *rp, const char *name);

/* ---- snapshots of regions: checkpoints on the store (docs/CHECKPOINT.md) ---- */

/** The pool of s when s is a store region open writable here, else NULL. */
rados_pool_t *store_rados_region_pool(store_t *s);

/** Chunk size of a RADOS store. */
size_t store_rados_chunk(store_t *s);

/** Take a self-managed snapshot of the writable region s, O(1) in its
 *  chunks: its context (kept with the region's metadata, applied by every
 *  writer that opens it) extended, its id in *snap. The caller has written
 *  back every dirty page and no thread writes the region meanwhile. */
int store_rados_snapshot(store_t *s, uint64_t *snap);

/** Chunk `chunk` of s is as at snapshot `snap`: s took that snapshot last
 *  and has written nothing to the chunk since. */
bool store_rados_unchanged(store_t *s, uint64_t snap, uint64_t chunk);

/** Reading a region as it was at one snapshot. */
typedef struct store_rados_snap store_rados_snap_t;

/** Open region `name` at snapshot `snap`: NULL + LOCI_ENOENT when the
 *  region's metadata or the snapshot is gone (removed behind loci's back). */
store_rados_snap_t *store_rados_snap_open(rados_pool_t *rp, const char *name, uint64_t snap);

/** Chunk `chunk` at the snapshot into buf (len bytes at most): *got bytes
 *  (0: it had no object then, zeros). */
int store_rados_snap_read(store_rados_snap_t *sn, uint64_t chunk, void *buf, size_t len, size_t *got);
void store_rados_snap_close(store_rados_snap_t *sn);

/** Remove every snapshot of region `name` but those in keep[0..nkeep),
 *  holding its writer lock (LOCI_EBUSY: open for writing somewhere, maybe
 *  saving: nothing removed); *kept and *removed counted up. LOCI_ENOENT:
 *  no such region. */
int store_rados_sweep_snaps(rados_pool_t *rp, const char *name, const uint64_t *keep, size_t nkeep, uint64_t *kept,
                            uint64_t *removed);

#endif
