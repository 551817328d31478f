/*
 * Writes of application memory to a file by the raw system call: the bytes
 * are ordered with the application's stores by page faults that sanitizers
 * cannot see, so the libc wrapper (which TSan intercepts as a read of the
 * buffer) would report races that are none.
 */
#ifndef LOCI_OS_RAW_WRITE_H
#define LOCI_OS_RAW_WRITE_H

#include <stddef.h>
#include <stdint.h>

/** pwrite(2) of [buf, buf+len) at off: bytes written, or -1 with errno. */
long raw_pwrite(int fd, const void *buf, size_t len, uint64_t off);

#endif
