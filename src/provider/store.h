/*
 * Chunk stores: where the paged provider's chunk cache reads chunks from and
 * writes dirty pages back to. A small ops table, so that other stores (a
 * multi-node aggregate of NVMalloc's benefactors) sit under the same cache.
 *
 * Offsets and lengths are multiples of the page size and buffers are
 * page-aligned. A store keeps no copy of its own in DRAM: the cache above is
 * the only one (file stores use O_DIRECT, or drop the kernel's page cache
 * behind each access where the file system has no O_DIRECT).
 */
#ifndef LOCI_PROVIDER_STORE_H
#define LOCI_PROVIDER_STORE_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

typedef struct store store_t;

typedef struct store_ops {
    const char *name;
    /** Read len bytes at off into buf; what lies beyond the store's end reads as zeros. */
    int (*read)(store_t *s, uint64_t off, void *buf, size_t len);
    /** Write len bytes of buf at off. buf is application memory (write-protected
     *  while this runs): never touched from user space, only handed to the kernel. */
    int (*write)(store_t *s, uint64_t off, const void *buf, size_t len);
    /** Make everything written so far durable. */
    int (*sync)(store_t *s);
    /** [off, off+len) reads as zeros afterwards; its space stays reserved. */
    int (*discard)(store_t *s, uint64_t off, size_t len);
    /** Release the store (its data stays where it is, if it has a name). */
    void (*close)(store_t *s);
} store_ops_t;

struct store {
    const store_ops_t *ops;
    uint64_t size; /* bytes */
};

/** A store over an open file of a tier (taken over: closed with the store).
 *  `what` names it in messages (copied). NULL + loci__fail. */
store_t *store_file_open(int fd, uint64_t size, const char *what);

#endif
