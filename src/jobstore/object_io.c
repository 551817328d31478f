/*
 * Byte ranges of objects, many in flight at once (jobstore.h): reads of
 * several objects, atomic writes of several extents of one object, zeroing,
 * removals. Only objects, offsets and buffers: what the objects stand for is
 * the caller's. librados's completions and write ops stay in this file.
 *
 * Every op is bounded by the cluster's rados_osd_op_timeout (connection.c).
 * Errors come back as librados gives them (negative errno) with the index of
 * the op that failed: the caller names the op in jobstore_fail's message.
 */
#include "jobstore/jobstore.h"
#include "jobstore/write_op.h"

#include <errno.h>
#include <stdlib.h>

/* One op in flight: a read (done, got) or a write (write). */
typedef struct {
    rados_completion_t done;
    jobstore_write_op_t *write; /* a write, freed when it is done (write_op.cc: its buffers handed over) */
    size_t *got;                /* a read's byte count, set when it is done */
} op_t;

/* Op `done` finished: its result (bytes read, 0, or a negative errno), the completion released. */
static int finish(rados_completion_t done)
{
    rados_aio_wait_for_complete(done);
    int rc = rados_aio_get_return_value(done);
    rados_aio_release(done);
    return rc;
}

/* Start op i of `ops` into *op: 0, or a negative errno and nothing in flight. */
typedef int start_fn(rados_ioctx_t io, void *ops, unsigned i, op_t *op);

/* Ops 0..n-1 of `ops`, started in order and all in flight at once until one
 * cannot start; then every op started is waited for, also after a failure:
 * none may touch its buffer later. 0, or the first error, its op in *failed. */
static int all_in_flight(rados_ioctx_t io, start_fn *start, void *ops, unsigned n, unsigned *failed)
{
    op_t *op = calloc(n ? n : 1, sizeof *op);
    *failed = 0;
    if (!op)
        return -ENOMEM;
    int err = 0;
    unsigned k = 0;
    while (k < n && (err = start(io, ops, k, &op[k])) == 0)
        k++;
    *failed = k;
    for (unsigned j = 0; j < k; j++) {
        int rc = op[j].write ? jobstore_write_op_finish(op[j].write) : finish(op[j].done);
        if (op[j].got && rc == -ENOENT) /* a read of no object: nothing there */
            rc = 0;
        if (op[j].got && rc >= 0)
            *op[j].got = (size_t)rc;
        if (rc < 0 && err == 0) {
            err = rc;
            *failed = j;
        }
    }
    free(op);
    return err;
}

static int start_read(rados_ioctx_t io, void *ops, unsigned i, op_t *op)
{
    jobstore_io_read_t *rd = (jobstore_io_read_t *)ops + i;
    op->got = &rd->got;
    int rc = rados_aio_create_completion2(NULL, NULL, &op->done);
    if (rc == 0 && (rc = rados_aio_read(io, rd->oid, op->done, rd->buf, rd->len, rd->off)) < 0)
        rados_aio_release(op->done);
    return rc;
}

int jobstore_io_read(rados_ioctx_t io, jobstore_io_read_t *rd, unsigned n, unsigned *failed)
{
    return all_in_flight(io, start_read, rd, n, failed);
}

/* A write's buffers are handed to librados, not copied: all_in_flight
 * waits for every op started before it returns, so they stay the caller's. */
static int start_write(rados_ioctx_t io, void *ops, unsigned i, op_t *op)
{
    int rc;
    op->write = jobstore_write_op_start(io, (const jobstore_io_write_t *)ops + i, &rc);
    return rc;
}

int jobstore_io_write(rados_ioctx_t io, const jobstore_io_write_t *w, unsigned n, unsigned *failed)
{
    return all_in_flight(io, start_write, (void *)w, n, failed); /* start_write only reads w */
}

int jobstore_io_zero(rados_ioctx_t io, const char *oid, uint64_t off, size_t len)
{
    rados_write_op_t op = rados_create_write_op();
    if (!op)
        return -ENOMEM;
    rados_write_op_assert_exists(op); /* zeros where nothing is: no object to make */
    rados_write_op_zero(op, off, len);
    int rc = rados_write_op_operate(op, io, oid, NULL, LIBRADOS_OPERATION_FULL_TRY);
    rados_release_write_op(op);
    return rc;
}

int jobstore_io_remove(rados_ioctx_t io, const char *const *oids, unsigned n)
{
    rados_completion_t *done = malloc((n ? n : 1) * sizeof *done);
    if (!done)
        return -ENOMEM;
    int first_error = 0;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        int rc = rados_aio_create_completion2(NULL, NULL, &done[k]);
        if (rc == 0 && (rc = rados_aio_remove(io, oids[i], done[k])) < 0)
            rados_aio_release(done[k]);
        if (rc == 0)
            k++;
        else if (rc != -ENOENT && !first_error)
            first_error = rc;
    }
    for (unsigned j = 0; j < k; j++) {
        int rc = finish(done[j]);
        if (rc < 0 && rc != -ENOENT && !first_error)
            first_error = rc;
    }
    free(done);
    return first_error;
}

int jobstore_io_exists(rados_ioctx_t io, const char *oid)
{
    uint64_t size;
    time_t mtime;
    return rados_stat(io, oid, &size, &mtime);
}
