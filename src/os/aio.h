/*
 * Reads in flight at once: Linux AIO, which is asynchronous for O_DIRECT
 * files (the chunk stores' readahead). Each calling thread has its own
 * context, made on first use and destroyed when the thread ends; a child of
 * fork() has none of its parent's.
 */
#ifndef LOCI_OS_AIO_H
#define LOCI_OS_AIO_H

#include <stddef.h>
#include <stdint.h>

#define AIO_DEPTH 32 /* reads in flight at once, per thread */

typedef struct {
    int fd;
    uint64_t off;
    void *buf;
    size_t len;
    long got; /* after aio_read_all: bytes read, or -errno */
} aio_read_t;

/** Read each of r[0..n) (n <= AIO_DEPTH; O_DIRECT files) with all in
 *  flight, and wait for every one: r[i].got says how it went. Returns how
 *  many were taken, from the first — the rest, or all where the kernel has
 *  no AIO to give (aio-max-nr reached), are the caller's to read one after
 *  the other — or -errno when waiting failed: the context is then destroyed,
 *  which waits for the reads in flight, so that none writes a buffer later. */
int aio_read_all(aio_read_t *r, unsigned n);

#endif
