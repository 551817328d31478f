/*
 * Metadata kept as xattrs of an object (jobstore.h): an object made
 * exclusively with its xattrs in one op, so that no reader ever sees it
 * without them, and one xattr read back as text.
 */
#include "jobstore/jobstore.h"

#include <errno.h>
#include <string.h>

int jobstore_xattr_create(rados_ioctx_t io, const char *oid, const jobstore_xattr_t *attrs, unsigned n)
{
    rados_write_op_t op = rados_create_write_op();
    if (!op)
        return -ENOMEM;
    rados_write_op_create(op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
    for (unsigned i = 0; i < n; i++)
        rados_write_op_setxattr(op, attrs[i].name, attrs[i].value, strlen(attrs[i].value));
    int rc = rados_write_op_operate(op, io, oid, NULL, LIBRADOS_OPERATION_FULL_TRY);
    rados_release_write_op(op);
    return rc;
}

int jobstore_xattr_get(rados_ioctx_t io, const char *oid, const char *name, char *text, size_t size)
{
    int n = rados_getxattr(io, oid, name, text, size - 1);
    text[n > 0 ? n : 0] = '\0';
    return n;
}
