/*
 * Self-managed snapshots of a family of objects (a region's chunks), with
 * the snapshot context kept in the store (jobstore.h). RADOS keeps the
 * context in the client, per ioctx: a write made with a stale one makes no
 * clone and the snapshot silently follows head. So the context lives as an
 * xattr of the family's metadata object, every writer applies it when it
 * opens, and every change is a compare-and-swap of that xattr.
 */
#include "jobstore/jobstore.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XATTR "loci.snapc"
#define TEXT_MAX (24 * (RADOS_SNAPC_MAX + 1))
#define CAS_TRIES 16

static int parse(const char *text, jobstore_snapc_t *c)
{
    *c = (jobstore_snapc_t){0};
    const char *p = text;
    char *end;
    if (!*p)
        return 0;
    c->seq = strtoull(p, &end, 10);
    if (end == p)
        return -1;
    for (p = end; *p == ' '; p = end) {
        if (c->n == RADOS_SNAPC_MAX)
            return -1;
        c->snaps[c->n++] = strtoull(p + 1, &end, 10);
        if (end == p + 1)
            return -1;
    }
    return *p ? -1 : 0;
}

static size_t format(const jobstore_snapc_t *c, char *text)
{
    size_t len = (size_t)sprintf(text, "%" PRIu64, c->seq);
    for (unsigned i = 0; i < c->n; i++)
        len += (size_t)sprintf(text + len, " %" PRIu64, c->snaps[i]);
    return len;
}

/* The raw xattr into text (NUL-terminated): its length, 0 when absent, < 0 errno. */
static int read_raw(rados_ioctx_t io, const char *oid, char *text)
{
    int n = jobstore_xattr_get(io, oid, XATTR, text, TEXT_MAX);
    return n == -ENODATA ? 0 : n;
}

static int bad_context(jobstore_t *rp, const char *oid, const char *text)
{
    return loci__fail(LOCI_EIO, "%s: object %s has a snapshot context \"%.60s\" that is not loci's "
                                "(\"SEQ SNAP...\"): writing with it would lose snapshots; fix or remove the object",
                      jobstore_target(rp), oid, text);
}

int jobstore_snapc_read(jobstore_t *rp, rados_ioctx_t io, const char *oid, jobstore_snapc_t *out)
{
    char text[TEXT_MAX];
    int n = read_raw(io, oid, text);
    if (n < 0) {
        char what[600];
        snprintf(what, sizeof what, "reading the snapshot context of %s", oid);
        return jobstore_fail(rp, n, what);
    }
    return parse(text, out) == 0 ? 0 : bad_context(rp, oid, text);
}

int jobstore_snapc_apply(jobstore_t *rp, rados_ioctx_t io, const jobstore_snapc_t *c)
{
    rados_snap_t snaps[RADOS_SNAPC_MAX];
    for (unsigned i = 0; i < c->n; i++)
        snaps[i] = c->snaps[i];
    int rc = rados_ioctx_selfmanaged_snap_set_write_ctx(io, c->seq, snaps, (int)c->n);
    return rc < 0 ? jobstore_fail(rp, rc, "setting a snapshot context") : 0;
}

void jobstore_snapc_view(rados_ioctx_t io, uint64_t snap) { rados_ioctx_snap_set_read(io, snap); }

bool jobstore_snapc_has(const jobstore_snapc_t *c, uint64_t snap)
{
    for (unsigned i = 0; i < c->n; i++)
        if (c->snaps[i] == snap)
            return true;
    return false;
}

/* Replace the xattr whose value was `old` (len 0: absent) by c: -ECANCELED
 * when someone changed it meanwhile. */
static int swap(rados_ioctx_t io, const char *oid, const char *old, size_t oldlen, const jobstore_snapc_t *c)
{
    char text[TEXT_MAX];
    size_t len = format(c, text);
    rados_write_op_t op = rados_create_write_op();
    if (!op)
        return -ENOMEM;
    rados_write_op_assert_exists(op);
    if (oldlen)
        rados_write_op_cmpxattr(op, XATTR, LIBRADOS_CMPXATTR_OP_EQ, old, oldlen);
    rados_write_op_setxattr(op, XATTR, text, len);
    int rc = rados_write_op_operate(op, io, oid, NULL, LIBRADOS_OPERATION_FULL_TRY);
    rados_release_write_op(op);
    return rc;
}

/* Change the context of oid by edit(c, arg) under compare-and-swap; *out:
 * the result. 0 or LOCI_E* (LOCI_ENOENT: no object oid). */
static int update(jobstore_t *rp, rados_ioctx_t io, const char *oid, const char *what,
                  int (*edit)(jobstore_snapc_t *c, uint64_t arg), uint64_t arg, jobstore_snapc_t *out)
{
    char old[TEXT_MAX];
    for (int tries = 0; tries < CAS_TRIES; tries++) {
        int n = read_raw(io, oid, old);
        if (n < 0)
            return jobstore_fail(rp, n, what);
        if (parse(old, out) != 0)
            return bad_context(rp, oid, old);
        int rc = edit(out, arg);
        if (rc)
            return rc;
        rc = swap(io, oid, old, (size_t)n, out);
        if (rc != -ECANCELED && rc != -ENODATA)
            return rc < 0 ? jobstore_fail(rp, rc, what) : 0;
    }
    return loci__fail(LOCI_EBUSY, "%s: the snapshot context of %s kept changing under %s", jobstore_target(rp), oid,
                      what);
}

static int push(jobstore_snapc_t *c, uint64_t snap)
{
    if (c->n == RADOS_SNAPC_MAX)
        return loci__fail(LOCI_ENOSPC, "it already keeps %d snapshots: remove checkpoints of it and run "
                                       "`loci ckpt gc`", RADOS_SNAPC_MAX);
    memmove(c->snaps + 1, c->snaps, c->n * sizeof *c->snaps);
    c->snaps[0] = snap;
    c->n++;
    c->seq = snap > c->seq ? snap : c->seq;
    return 0;
}

static int drop(jobstore_snapc_t *c, uint64_t snap)
{
    unsigned k = 0;
    for (unsigned i = 0; i < c->n; i++)
        if (c->snaps[i] != snap)
            c->snaps[k++] = c->snaps[i];
    c->n = k;
    return 0;
}

int jobstore_snapc_take(jobstore_t *rp, rados_ioctx_t io, const char *oid, const char *what, jobstore_snapc_t *out)
{
    int rc = jobstore_check(rp, what);
    if (rc)
        return rc;
    char op[600];
    rados_snap_t snap;
    snprintf(op, sizeof op, "taking a snapshot of %s", what);
    if ((rc = rados_ioctx_selfmanaged_snap_create(io, &snap)) < 0)
        return jobstore_fail(rp, rc, op);
    /* A crash from here to the xattr leaves a snapshot nobody names: it
     * protects nothing (no write used it) and costs no space. */
    if ((rc = update(rp, io, oid, op, push, snap, out)) != 0) {
        rados_ioctx_selfmanaged_snap_remove(io, snap);
        return rc;
    }
    return jobstore_snapc_apply(rp, io, out);
}

int jobstore_snapc_remove(jobstore_t *rp, const char *oid, uint64_t snap)
{
    rados_ioctx_t io = jobstore_ioctx(rp);
    if (!io)
        return LOCI_EIO;
    jobstore_snapc_t c;
    char what[600];
    snprintf(what, sizeof what, "removing snapshot %" PRIu64 " of %s", snap, oid);
    int rc = update(rp, io, oid, what, drop, snap, &c);
    if (rc == LOCI_ENOENT) /* the objects' metadata is gone: the snapshot alone remains */
        rc = 0;
    int e = rc ? 0 : rados_ioctx_selfmanaged_snap_remove(io, snap);
    if (e < 0 && e != -ENOENT)
        rc = jobstore_fail(rp, e, what);
    jobstore_ioctx_close(io);
    return rc;
}
