/*
 * Atomic object writes without a copy (write_op.h): each extent's bytes go
 * to librados as a static buffer (ceph::buffer::create_static), which the
 * messenger sends from where they are, instead of the copy the C API's
 * rados_write_op_write makes of every byte (about a tenth of a store
 * writer's CPU). librados' C++ API, behind a C interface: the only C++ of
 * libloci. The I/O context is the C one's (from_rados_ioctx_t shares it,
 * snapshot context included), so writes keep the region's snapshots.
 */
#include "jobstore/write_op.h"

#include <rados/librados.hpp>

#include <cerrno>
#include <new>

struct jobstore_write_op {
    librados::ObjectWriteOperation op; /* kept until done: its buffers point at the caller's */
    librados::AioCompletion *done = nullptr;
};

extern "C" jobstore_write_op_t *jobstore_write_op_start(rados_ioctx_t io, const jobstore_io_write_t *w, int *err)
{
    jobstore_write_op_t *op = nullptr;
    try {
        op = new jobstore_write_op_t;
        for (unsigned e = 0; e < w->n; e++) {
            ceph::bufferlist bl;
            bl.push_back(ceph::buffer::create_static((unsigned)w->ext[e].len,
                                                     static_cast<char *>(const_cast<void *>(w->ext[e].buf))));
            op->op.write(w->ext[e].off, bl);
        }
        op->done = librados::Rados::aio_create_completion();
        librados::IoCtx ctx;
        librados::IoCtx::from_rados_ioctx_t(io, ctx);
        *err = ctx.aio_operate(w->oid, op->done, &op->op, librados::OPERATION_FULL_TRY);
    } catch (const std::bad_alloc &) {
        *err = -ENOMEM;
    } catch (...) { /* librados throws nothing else here; never let it cross into C */
        *err = -EIO;
    }
    if (*err == 0)
        return op;
    if (op && op->done)
        op->done->release();
    delete op;
    return nullptr;
}

extern "C" int jobstore_write_op_finish(jobstore_write_op_t *op)
{
    op->done->wait_for_complete();
    int rc = op->done->get_return_value();
    op->done->release();
    delete op;
    return rc;
}
