/*
 * The chunk store over a RADOS pool (rados_objects.c): what the paged
 * provider maps when a target is the job's aggregate store (kind=store).
 */
#ifndef LOCI_CHUNKSTORE_RADOS_OBJECTS_H
#define LOCI_CHUNKSTORE_RADOS_OBJECTS_H

#include "chunkstore/chunkstore.h"
#include "jobstore/jobstore.h"

/** Chunk size of store regions when the intent gives no chunk= (NVMalloc's 256 KiB). */
#define STORE_RADOS_CHUNK ((size_t)256 << 10)

/** Object size when neither the intent (object=) nor the target (object =)
 *  gives one, in whole chunks: rados bench's default object (docs/BENCHMARKS.md, issue 40). */
#define STORE_RADOS_OBJECT ((size_t)4 << 20)

/** A private store of `size` bytes in `chunk`-byte chunks laid out in
 *  objects of `object` bytes (0: the target's, else STORE_RADOS_OBJECT)
 *  (loci_alloc on the store): its objects are removed when it is closed.
 *  NULL + loci__fail. */
chunkstore_t *chunkstore_rados_anonymous(jobstore_t *rp, uint64_t size, size_t chunk, uint64_t object);

/** Open (LOCI_CREATE: or create) the region `name`: flags LOCI_CREATE,
 *  LOCI_READONLY. *size: wanted (0 = as it is), then its size; *chunk: asked
 *  (0 = the region's, or STORE_RADOS_CHUNK for a new one), then its chunk
 *  size; *object likewise (0 = the region's, or the target's or
 *  STORE_RADOS_OBJECT for a new one; a region of the first layout has an
 *  object per chunk). A writer holds the region's exclusive lock, readers a
 *  shared one, across nodes, until the store is closed (or its process dies
 *  + lock_ttl). NULL + loci__fail: LOCI_ENOENT, LOCI_EBUSY (held
 *  elsewhere), LOCI_EINVAL (size, chunk or object differs; a layout of a
 *  newer loci), LOCI_EIO (cluster unreachable, metadata gone). */
chunkstore_t *chunkstore_rados_open_region(jobstore_t *rp, const char *name, unsigned flags, uint64_t *size,
                                           size_t *chunk, size_t *object);

/** Delete region `name` and all its objects (LOCI_EBUSY when open anywhere). */
int chunkstore_rados_remove_region(jobstore_t *rp, const char *name);

/* ---- snapshots of regions: checkpoints on the store (docs/CHECKPOINT.md) ---- */

/** The pool of s when s is a store region open writable here, else NULL. */
jobstore_t *chunkstore_rados_region_pool(chunkstore_t *s);

/** Chunk size of a RADOS store. */
size_t chunkstore_rados_chunk(chunkstore_t *s);

/** Take a self-managed snapshot of the writable region s, O(1) in its
 *  chunks: its context (kept with the region's metadata, applied by every
 *  writer that opens it) extended, its id in *snap. The caller has written
 *  back every dirty page and no thread writes the region meanwhile. */
int chunkstore_rados_snapshot(chunkstore_t *s, uint64_t *snap);

/** Chunk `chunk` of s is as at snapshot `snap`: s took that snapshot last
 *  and has written nothing to the chunk since. */
bool chunkstore_rados_unchanged(chunkstore_t *s, uint64_t snap, uint64_t chunk);

/** Reading a region as it was at one snapshot. */
typedef struct chunkstore_rados_snap chunkstore_rados_snap_t;

/** Open region `name` at snapshot `snap`: NULL + LOCI_ENOENT when the
 *  region's metadata or the snapshot is gone (removed behind loci's back). */
chunkstore_rados_snap_t *chunkstore_rados_snap_open(jobstore_t *rp, const char *name, uint64_t snap);

/** Chunk `chunk` at the snapshot into buf (len bytes at most): *got bytes
 *  (0: it had no object then, zeros). */
int chunkstore_rados_snap_read(chunkstore_rados_snap_t *sn, uint64_t chunk, void *buf, size_t len, size_t *got);
void chunkstore_rados_snap_close(chunkstore_rados_snap_t *sn);

/** Remove every snapshot of region `name` but those in keep[0..nkeep),
 *  holding its writer lock (LOCI_EBUSY: open for writing somewhere, maybe
 *  saving: nothing removed); *kept and *removed counted up. LOCI_ENOENT:
 *  no such region. */
int chunkstore_rados_sweep_snaps(jobstore_t *rp, const char *name, const uint64_t *keep, size_t nkeep, uint64_t *kept,
                            uint64_t *removed);

#endif
