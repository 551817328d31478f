/*
 * Out-of-band records of the extents a provider handed out, keyed by address:
 * what the file and shm providers must remember (fd, file name) without
 * storing anything inside the memory. The address table of util/ under a
 * mutex; only alloc/free/purge of whole extents touch it, never the
 * allocation fast path.
 */
#ifndef LOCI_PROVIDER_EXTENTS_H
#define LOCI_PROVIDER_EXTENTS_H

#include "internal.h"
#include "addr_table.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t base;
    size_t size;
    int fd;           /* -1 when not kept open */
    char *path;       /* owned by the table (malloc'd), or NULL */
    unsigned flags;   /* provider-specific */
} xrec_t;

typedef struct {
    pthread_mutex_t lock;
    addr_table_t records; /* of malloc'd xrec_t */
} xtable_t;

#define XTABLE_INIT {PTHREAD_MUTEX_INITIALIZER, ADDR_TABLE_INIT}

/** The table's lock around fork() (provider_fork). */
void xtable_fork(xtable_t *t, loci_fork_phase_t phase);
/** Add a record (path is copied). 0 or LOCI_ENOMEM. */
int xtable_add(xtable_t *t, const xrec_t *r);
/** Remove the record starting at `base` into *out (caller frees out->path). */
bool xtable_remove(xtable_t *t, uintptr_t base, xrec_t *out);
/** The record starting at `from` now starts at `to` (its extent was
 *  mremapped there). False when there is none. Never allocates. */
bool xtable_rekey(xtable_t *t, uintptr_t from, uintptr_t to);
/** fn(record, arg) for every record, which fn may change (not its base or
 *  size). For fork handlers: the caller holds the table's lock already
 *  (xtable_fork's prepare), or is the child of that fork. */
void xtable_each_held(xtable_t *t, void (*fn)(xrec_t *r, void *arg), void *arg);
/** Copy of the record containing addr; its path into pathbuf (may be NULL). */
bool xtable_find(xtable_t *t, uintptr_t addr, xrec_t *out, char *pathbuf, size_t len);

#endif
