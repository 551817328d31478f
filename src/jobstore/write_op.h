/*
 * Atomic writes of one object whose buffers are handed to librados, not
 * copied (write_op.cc: librados' C++ API; its C API copies every written
 * byte into a buffer of its own). For object_io.c only: the caller keeps the
 * buffers as they are until jobstore_write_op_finish returned.
 */
#ifndef LOCI_JOBSTORE_WRITE_OP_H
#define LOCI_JOBSTORE_WRITE_OP_H

#include "jobstore/jobstore.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jobstore_write_op jobstore_write_op_t;

/** Start the atomic write w of io's pool (w's extents applied all or none;
 *  FULL_TRY: a full pool answers at once). The op in flight, or NULL with
 *  *err: a negative errno (-ENOMEM: no memory for it), nothing in flight. */
jobstore_write_op_t *jobstore_write_op_start(rados_ioctx_t io, const jobstore_io_write_t *w, int *err);

/** Wait for op to end and free it: 0 or a negative errno. The buffers are
 *  the caller's again. */
int jobstore_write_op_finish(jobstore_write_op_t *op);

#ifdef __cplusplus
}
#endif

#endif
