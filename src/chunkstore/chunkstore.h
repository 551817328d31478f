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
#ifndef LOCI_CHUNKSTORE_CHUNKSTORE_H
#define LOCI_CHUNKSTORE_CHUNKSTORE_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

typedef struct chunkstore chunkstore_t;

/** One run of dirty pages: `len` bytes of application memory `buf` for store offset `off`. */
typedef struct {
    uint64_t off;
    const void *buf;
    size_t len;
} chunkstore_run_t;

typedef struct chunkstore_ops {
    const char *name;
    /** Read len bytes at off into buf; what lies beyond the store's end reads as zeros. */
    int (*read)(chunkstore_t *s, uint64_t off, void *buf, size_t len);
    /** Write len bytes of buf at off. buf is application memory (write-protected
     *  while this runs): never touched from user space, only handed to the kernel. */
    int (*write)(chunkstore_t *s, uint64_t off, const void *buf, size_t len);
    /** Optional (NULL: one write per run): write the n runs (in order, of
     *  one chunk or several) at once, each chunk's runs all or none (RADOS:
     *  one atomic write op per chunk, all in flight). After a failure some
     *  chunks may have been written, in whole. */
    int (*write_runs)(chunkstore_t *s, const chunkstore_run_t *runs, unsigned n);
    /** Adjacent chunks lie side by side in one file: a write spanning
     *  several is one I/O (the cache merges the runs of adjacent chunks). */
    bool spans_chunks;
    /** A write sends the pages from where they are until it returns (RADOS:
     *  no copy, checksummed as sent): a store to them meanwhile would change
     *  the bytes in flight, so the cache holds such a writer until then. */
    bool borrows_pages;
    /** Make everything written so far durable. */
    int (*sync)(chunkstore_t *s);
    /** [off, off+len) reads as zeros afterwards (file: its space stays reserved). */
    int (*discard)(chunkstore_t *s, uint64_t off, size_t len);
    /** Release the store (its data stays where it is, if it has a name). */
    void (*close)(chunkstore_t *s);
} chunkstore_ops_t;

struct chunkstore {
    const chunkstore_ops_t *ops;
    uint64_t size; /* bytes */
    bool created;  /* made by this opening: every chunk reads as zeros until written (none to read) */
    unsigned patience_s; /* writes failing for this long from the first that failed: the cache above
                          * stops waiting for the store (paged: writers go on, reported losses) */
    size_t unit;   /* requests of whole, aligned units cost it least (RADOS: its objects); 0: no such unit */
};

/** A file's patience: its failures (EIO, a directory gone) come at once and
 *  rarely pass, so a few of the write-behind's tries (50 ms doubling) before
 *  writers are let go. The job's store's is its target's `timeout`. */
#define CHUNKSTORE_FILE_PATIENCE_S 5

/** A store over an open file of a tier (taken over: closed with the store,
 *  or at once when the store cannot be made).
 *  `what` names it in messages (copied). NULL + loci__fail. */
chunkstore_t *chunkstore_file_open(int fd, uint64_t size, const char *what);

/** A store over the directory of a region in chunk layout (paged/paged.h): dirfd
 *  (taken over as above, with its lock) at `path` (for messages, copied), `size`
 *  bytes in files of `chunk` bytes. `readonly`: it never writes. The caller
 *  holds the region's lock exclusively unless readonly. NULL + loci__fail. */
chunkstore_t *chunkstore_chunks_open(int dirfd, const char *path, uint64_t size, size_t chunk, bool readonly);

/** The region directory of a chunk store, -1 for any other store. */
int chunkstore_chunks_dir(const chunkstore_t *s);

/** A chunk store's version: new when it is opened and whenever one of its
 *  chunk files changes (before a write or discard, or chunkstore_chunks_changed);
 *  unique across processes. Equal versions: the files are as they were. */
uint64_t chunkstore_chunks_version(chunkstore_t *s);

/** The chunk files of s were changed from outside it (a restore relinked them). */
void chunkstore_chunks_changed(chunkstore_t *s);

/* ---- I/O shared by the file stores (fd_io.c) ----------------------------- */

/** One open file of a store: `direct` when opened O_DIRECT, `in_memory` on
 *  tmpfs; `what` names it in messages. */
typedef struct {
    int fd;
    bool direct, in_memory;
    const char *what;
} chunkstore_fd_t;

/** Read len bytes at off, zeros past the end of the file. 0 or LOCI_E*. */
int chunkstore_fd_read(const chunkstore_fd_t *f, uint64_t off, void *buf, size_t len);

/** One piece of a read: len bytes of file f at off into buf. */
typedef struct {
    const chunkstore_fd_t *f;
    uint64_t off;
    void *buf;
    size_t len;
} chunkstore_piece_t;

/** Read the n pieces as chunkstore_fd_read does, all in flight at once where the
 *  files are O_DIRECT (Linux AIO), else one after the other. 0 or the first
 *  LOCI_E*. */
int chunkstore_fd_read_pieces(const chunkstore_piece_t *p, unsigned n);

/** Write len bytes of application memory buf at off. 0 or LOCI_E*. */
int chunkstore_fd_write(const chunkstore_fd_t *f, uint64_t off, const void *buf, size_t len);

/** The failure of `op` on f's file (errno e) for len bytes at off (len 0:
 *  the whole file): LOCI_ENOSPC for a full disk or quota, else LOCI_EIO,
 *  with a message naming the file. */
int chunkstore_fd_fail(const chunkstore_fd_t *f, const char *op, uint64_t off, size_t len, int e);

/** The file name of chunk `index`: "c%016llx" (buffer of at least 24 bytes). */
void chunkstore_chunk_name(uint64_t index, char *out);

#endif
