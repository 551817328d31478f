/*
 * The job's aggregate store: one pool of a Ceph RADOS cluster, reached
 * through librados (NVMalloc's benefactor SSDs = OSDs, its manager = MON +
 * CRUSH, a chunk = one object). This folder is loci's only door to librados
 * and speaks of objects and byte ranges in them; what they hold (a region's
 * chunks: src/chunkstore/rados_objects.c) is its callers'.
 *
 * Every call is bounded in time: the connection, monitor and OSD operations
 * carry the target's `timeout` (librados returns -ETIMEDOUT past it), so a
 * cluster that is down ends in LOCI_EIO with a message, never a hang.
 */
#ifndef LOCI_RADOS_POOL_H
#define LOCI_RADOS_POOL_H

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
    uint64_t object;     /* bytes per object of paged memory (0 = chunkstore's default) */
} jobstore_params_t;

/** The largest object= loci writes: one atomic write op of a whole object
 *  stays under the OSDs' osd_max_write_size (90 MB by default). */
#define JOBSTORE_OBJECT_MAX ((uint64_t)64 << 20)

typedef struct jobstore jobstore_t;

/** Connect to the pool of `p` for target `target` (named in messages).
 *  0, or LOCI_EIO / LOCI_ENOENT / LOCI_EPERM / LOCI_ECONFIG with a message
 *  naming the conf, the pool and what to do. Never blocks past p->timeout_s. */
int jobstore_connect(const jobstore_params_t *p, const char *target, jobstore_t **out);
void jobstore_disconnect(jobstore_t *rp);

/** A new I/O context on the pool (its own snapshot context), or NULL + loci__fail. */
rados_ioctx_t jobstore_ioctx(jobstore_t *rp);

/** Close an I/O context of jobstore_ioctx (NULL: nothing). */
void jobstore_ioctx_close(rados_ioctx_t io);

/** Raw bytes the cluster holds in all and has free, divided by the pool's
 *  replication (what loci can still place there). LOCI_EIO when unknown. */
int jobstore_space(jobstore_t *rp, uint64_t *capacity, uint64_t *available);

const jobstore_params_t *jobstore_params(const jobstore_t *rp);
const char *jobstore_target(const jobstore_t *rp);

/** The LOCI_E* code for librados error `err` (negative errno) of `what`
 *  (e.g. "writing chunk 3 of region \"m\""), with a message naming the pool:
 *  ENOSPC/EDQUOT -> LOCI_ENOSPC, ENOENT -> LOCI_ENOENT, EBUSY -> LOCI_EBUSY,
 *  EPERM/EACCES -> LOCI_EPERM, the rest (ETIMEDOUT: the cluster is
 *  unreachable) -> LOCI_EIO. */
int jobstore_fail(jobstore_t *rp, int err, const char *what);

/** 0, or LOCI_EIO at once while the cluster is known to be unreachable: an
 *  operation timed out less than `timeout` ago. Without this every chunk of
 *  a flush would wait out the timeout on its own. */
int jobstore_check(jobstore_t *rp, const char *what);

/* ---- locks that expire when their holder dies (lock.c) ---------------- */

/** Take the lock of object `oid`: exclusive (one writer) or shared (readers),
 *  for lock_ttl_s, renewed by a background thread while held — so a process
 *  that dies frees it within lock_ttl_s. LOCI_EBUSY (with the holder's
 *  address in the message) when another client holds it incompatibly. */
int jobstore_lock_take(jobstore_t *rp, rados_ioctx_t io, const char *oid, bool exclusive, const char *what);

/** Release a lock taken by jobstore_lock_take (no-op when not held). */
void jobstore_lock_release(rados_ioctx_t io, const char *oid);

/* ---- whole small objects (object.c) ------------------------------------- */

/** Replace object `oid` by buf[0..len) at once (a reader sees the old or the new). */
int jobstore_object_put(jobstore_t *rp, const char *oid, const void *buf, size_t len);

/** Object `oid` whole, malloc'd into *buf (LOCI_ENOENT: none), at most max bytes. */
int jobstore_object_get(jobstore_t *rp, const char *oid, size_t max, char **buf, size_t *len);

/** 0 when object `oid` exists, LOCI_ENOENT when not, else LOCI_E*. */
int jobstore_object_exists(jobstore_t *rp, const char *oid);

/** Delete object `oid` (0 when it does not exist). */
int jobstore_object_remove(jobstore_t *rp, const char *oid);

/** Call fn(name after the prefix, arg) for each object of the pool whose
 *  name starts with `prefix` (a scan of the pool's namespace); stops at fn's
 *  first non-zero return, which it returns. */
int jobstore_object_each(jobstore_t *rp, const char *prefix, int (*fn)(const char *name, void *arg), void *arg);

/* ---- byte ranges of objects, many in flight (object_io.c) ------------- */
/* The calls below answer as librados does: 0 (or what they say), or a
 * negative errno, which the caller names with jobstore_fail. Each op is
 * bounded by the target's timeout. */

/** One read: up to len bytes at off of object oid into buf; got: the bytes
 *  the object holds there (0: none, or no such object), set by the call. */
typedef struct {
    const char *oid;
    uint64_t off;
    void *buf;
    size_t len;
    size_t got;
} jobstore_io_read_t;

/** len bytes of buf, for offset off of an object. */
typedef struct {
    uint64_t off;
    const void *buf;
    size_t len;
} jobstore_io_extent_t;

/** One atomic write of object oid: its extents ext[0..n) all applied, or none. */
typedef struct {
    const char *oid;
    const jobstore_io_extent_t *ext;
    unsigned n;
} jobstore_io_write_t;

/** The reads rd[0..n), all in flight at once; returns when none is left.
 *  0, or the error of the first that failed, its index in *failed. */
int jobstore_io_read(rados_ioctx_t io, jobstore_io_read_t *rd, unsigned n, unsigned *failed);

/** The atomic writes w[0..n) (each creates its object when missing), all in
 *  flight at once; returns when none is left: the buffers are free again.
 *  The buffers are sent from where they are, not copied (write_op.cc):
 *  nothing may change them until then, or the OSDs get the bytes as changed.
 *  0, or the error of the first that failed (-ENOMEM: no memory for an op),
 *  its index in *failed; the others may have been applied, each in whole. */
int jobstore_io_write(rados_ioctx_t io, const jobstore_io_write_t *w, unsigned n, unsigned *failed);

/** Zeros over [off, off+len) of object oid: -ENOENT when there is no such
 *  object (none is made), -ENOMEM when no op could be made. */
int jobstore_io_zero(rados_ioctx_t io, const char *oid, uint64_t off, size_t len);

/** Remove the objects oids[0..n), all in flight at once: 0 (also for those
 *  that did not exist), or the first error; each is tried. */
int jobstore_io_remove(rados_ioctx_t io, const char *const *oids, unsigned n);

/** 0 when object oid exists, else the error (-ENOENT: it does not). */
int jobstore_io_exists(rados_ioctx_t io, const char *oid);

/* ---- metadata as xattrs of an object (xattrs.c) ------------------------ */

/** One xattr: name and a text value. */
typedef struct {
    const char *name;
    const char *value;
} jobstore_xattr_t;

/** Create object oid with the xattrs attrs[0..n), in one op: 0, -EEXIST
 *  when it exists, -ENOMEM when no op could be made, or the error. */
int jobstore_xattr_create(rados_ioctx_t io, const char *oid, const jobstore_xattr_t *attrs, unsigned n);

/** Xattr `name` of object oid into text as a string (at most size - 1
 *  bytes, "" when it fails): its length, or the error (-ENOENT: no object,
 *  -ENODATA: no such xattr). */
int jobstore_xattr_get(rados_ioctx_t io, const char *oid, const char *name, char *text, size_t size);

/* ---- self-managed snapshots of an object family (snapc.c) ------------- */

/** Snapshots a region keeps at most (its context is one xattr). */
#define RADOS_SNAPC_MAX 512

/** A snapshot context: what every writer of the objects must write with,
 *  or a snapshot silently follows head. Kept as xattr "loci.snapc" of the
 *  family's metadata object, "SEQ SNAP..." newest first. */
typedef struct {
    uint64_t seq;
    unsigned n;
    uint64_t snaps[RADOS_SNAPC_MAX];
} jobstore_snapc_t;

/** The context kept on object `oid` (none yet: seq 0, no snapshot). */
int jobstore_snapc_read(jobstore_t *rp, rados_ioctx_t io, const char *oid, jobstore_snapc_t *out);

/** Make io write with c (every write after this clones for c's snapshots). */
int jobstore_snapc_apply(jobstore_t *rp, rados_ioctx_t io, const jobstore_snapc_t *c);

/** Take a new snapshot of the family of `oid` (what = messages): the
 *  snapshot id made, the context on `oid` extended with it (atomically
 *  against concurrent updates) and applied to io. *out: the new context. */
int jobstore_snapc_take(jobstore_t *rp, rados_ioctx_t io, const char *oid, const char *what, jobstore_snapc_t *out);

/** Remove snapshot `snap` of the family of `oid`: dropped from its context
 *  (if `oid` still exists), then deleted in the pool (its clones go). */
int jobstore_snapc_remove(jobstore_t *rp, const char *oid, uint64_t snap);

/** Make reads through io see the objects as they were at snapshot snap. */
void jobstore_snapc_view(rados_ioctx_t io, uint64_t snap);

/** Whether c holds snapshot snap. */
bool jobstore_snapc_has(const jobstore_snapc_t *c, uint64_t snap);

#endif
