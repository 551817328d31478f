/*
 * The job's aggregate store: one pool of a Ceph RADOS cluster, reached
 * through librados (NVMalloc's benefactor SSDs = OSDs, its manager = MON +
 * CRUSH, a chunk = one object). This folder only connects and names things;
 * the chunk store over it is src/provider/store_rados.c.
 *
 * Every call is bounded in time: the connection, monitor and OSD operations
 * carry the target's `timeout` (librados returns -ETIMEDOUT past it), so a
 * cluster that is down ends in LOCI_EIO with a message, never a hang.
 */
#ifndef LOCI_STORE_RADOS_POOL_H
#define LOCI_STORE_RADOS_POOL_H

#include "internal.h"

#include <rados/librados.h>
#include <stdbool.h>
#include <stdint.h>

/** How to reach a pool: the [target NAME] keys of LOCI_CONFIG (docs/STORE.md). */
typedef struct {
    char conf[512];      /* ceph.conf of the cluster (required) */
    char pool[128];      /* pool name (required) */
    char user[64];       /* client id without "client." ("" = admin) */
    char ns[128];        /* object namespace inside the pool ("" = default) */
    char keyring[512];   /* keyring file ("" = what ceph.conf says) */
    unsigned timeout_s;  /* bound on every cluster operation (0 = 30 s) */
    unsigned lock_ttl_s; /* a dead writer's lock expires after this (0 = 30 s) */
} rados_params_t;

typedef struct rados_pool rados_pool_t;

/** Connect to the pool of `p` for target `target` (named in messages).
 *  0, or LOCI_EIO / LOCI_ENOENT / LOCI_EPERM / LOCI_ECONFIG with a message
 *  naming the conf, the pool and what to do. Never blocks past p->timeout_s. */
int rados_pool_connect(const rados_params_t *p, const char *target, rados_pool_t **out);
void rados_pool_disconnect(rados_pool_t *rp);

/** A new I/O context on the pool (its own snapshot context), or NULL + loci__fail. */
rados_ioctx_t rados_pool_ioctx(rados_pool_t *rp);

/** Raw bytes the cluster holds in all and has free, divided by the pool's
 *  replication (what loci can still place there). LOCI_EIO when unknown. */
int rados_pool_space(rados_pool_t *rp, uint64_t *capacity, uint64_t *available);

const rados_params_t *rados_pool_params(const rados_pool_t *rp);
const char *rados_pool_target(const rados_pool_t *rp);

/** The LOCI_E* code for librados error `err` (negative errno) of `what`
 *  (e.g. "writing chunk 3 of region \"m\""), with a message naming the pool:
 *  ENOSPC/EDQUOT -> LOCI_ENOSPC, ENOENT -> LOCI_ENOENT, EBUSY -> LOCI_EBUSY,
 *  EPERM/EACCES -> LOCI_EPERM, the rest (ETIMEDOUT: the cluster is
 *  unreachable) -> LOCI_EIO. */
int rados_pool_fail(rados_pool_t *rp, int err, const char *what);

/** 0, or LOCI_EIO at once while the cluster is known to be unreachable: an
 *  operation timed out less than `timeout` ago. Without this every chunk of
 *  a flush would wait out the timeout on its own. */
int rados_pool_check(rados_pool_t *rp, const char *what);

/* ---- locks that expire when their holder dies (rados_lock.c) ---------------- */

/** Take the lock of object `oid`: exclusive (one writer) or shared (readers),
 *  for lock_ttl_s, renewed by a background thread while held — so a process
 *  that dies frees it within lock_ttl_s. LOCI_EBUSY (with the holder's
 *  address in the message) when another client holds it incompatibly. */
int rados_lock_take(rados_pool_t *rp, rados_ioctx_t io, const char *oid, bool exclusive, const char *what);

/** Release a lock taken by rados_lock_take (no-op when not held). */
void rados_lock_release(rados_ioctx_t io, const char *oid);

#endif
