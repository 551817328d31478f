/*
 * Whole small objects of a pool (jobstore.h): what loci keeps in the
 * store beside chunks, e.g. checkpoint manifests. A write_full replaces an
 * object atomically: a reader on any node sees the old or the new, whole.
 */
#include "jobstore/jobstore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(jobstore_t *rp, int err, const char *op, const char *oid)
{
    char what[600];
    snprintf(what, sizeof what, "%s object %s", op, oid);
    return jobstore_fail(rp, err, what);
}

int jobstore_object_put(jobstore_t *rp, const char *oid, const void *buf, size_t len)
{
    int rc = jobstore_check(rp, oid);
    rados_ioctx_t io = rc ? NULL : jobstore_ioctx(rp);
    if (!io)
        return rc ? rc : LOCI_EIO;
    int e = rados_write_full(io, oid, buf, len);
    jobstore_ioctx_close(io);
    return e < 0 ? failed(rp, e, "writing", oid) : 0;
}

int jobstore_object_get(jobstore_t *rp, const char *oid, size_t max, char **buf, size_t *len)
{
    int rc = jobstore_check(rp, oid);
    rados_ioctx_t io = rc ? NULL : jobstore_ioctx(rp);
    if (!io)
        return rc ? rc : LOCI_EIO;
    uint64_t size = 0;
    time_t mtime;
    char *b = NULL;
    int e = rados_stat(io, oid, &size, &mtime);
    if (e == 0 && size > max)
        rc = loci__fail(LOCI_EIO, "%s: object %s has %llu bytes, more than the %zu expected", jobstore_target(rp),
                        oid, (unsigned long long)size, max);
    else if (e == 0 && !(b = malloc(size ? size : 1)))
        rc = loci__fail(LOCI_ENOMEM, "out of memory reading object %s", oid);
    if (e == 0 && rc == 0 && size && (e = rados_read(io, oid, b, size, 0)) >= 0 && (uint64_t)e != size)
        rc = loci__fail(LOCI_EIO, "%s: object %s changed while being read", jobstore_target(rp), oid);
    jobstore_ioctx_close(io);
    if (e < 0)
        rc = e == -ENOENT ? LOCI_ENOENT : failed(rp, e, "reading", oid);
    if (rc != 0) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = (size_t)size;
    return 0;
}

int jobstore_object_exists(jobstore_t *rp, const char *oid)
{
    int rc = jobstore_check(rp, oid);
    rados_ioctx_t io = rc ? NULL : jobstore_ioctx(rp);
    if (!io)
        return rc ? rc : LOCI_EIO;
    uint64_t size;
    time_t mtime;
    int e = rados_stat(io, oid, &size, &mtime);
    jobstore_ioctx_close(io);
    return e == -ENOENT ? LOCI_ENOENT : e < 0 ? failed(rp, e, "looking up", oid) : 0;
}

int jobstore_object_remove(jobstore_t *rp, const char *oid)
{
    rados_ioctx_t io = jobstore_ioctx(rp);
    if (!io)
        return LOCI_EIO;
    int e = rados_remove(io, oid);
    jobstore_ioctx_close(io);
    return e < 0 && e != -ENOENT ? failed(rp, e, "removing", oid) : 0;
}

int jobstore_object_each(jobstore_t *rp, const char *prefix, int (*fn)(const char *name, void *arg), void *arg)
{
    rados_ioctx_t io = jobstore_ioctx(rp);
    if (!io)
        return LOCI_EIO;
    rados_list_ctx_t ls;
    int e = rados_nobjects_list_open(io, &ls), rc = 0;
    if (e < 0) {
        jobstore_ioctx_close(io);
        return failed(rp, e, "listing", prefix);
    }
    size_t plen = strlen(prefix);
    const char *entry;
    while (rc == 0 && (e = rados_nobjects_list_next(ls, &entry, NULL, NULL)) == 0)
        if (strncmp(entry, prefix, plen) == 0)
            rc = fn(entry + plen, arg);
    if (rc == 0 && e < 0 && e != -ENOENT) /* -ENOENT: the end of the list */
        rc = failed(rp, e, "listing", prefix);
    rados_nobjects_list_close(ls);
    jobstore_ioctx_close(io);
    return rc;
}
