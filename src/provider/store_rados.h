/*
 * The chunk store over a RADOS pool (store_rados.c): what the paged
 * provider maps when a target is the job's aggregate store (kind=store).
 */
#ifndef LOCI_PROVIDER_STORE_RADOS_H
#define LOCI_PROVIDER_STORE_RADOS_H

#include "provider/store.h"
#include "store/rados_pool.h"

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

#endif
