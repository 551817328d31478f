/*
 * libloci-shmem: heterogeneous-memory partitions for OpenSHMEM and placement
 * of Open MPI's hinted symmetric allocations (docs/SHMEM.md). This header
 * is what crosses its files.
 */
#ifndef LOCI_SHMEM_SHIM_H
#define LOCI_SHMEM_SHIM_H

#include "heap.h"

#include <numaif.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define SHIM_PRINTF(f, a) __attribute__((format(printf, f, a)))

/** Partition ids are 0 .. SHIM_MAX_PARTITIONS - 1. */
#define SHIM_MAX_PARTITIONS 256

/* --- errors (errors.c) ------------------------------------------------------ */

/** Record "fn: message" as the calling thread's last error (shmemx_hhm_last_error)
 *  and print it on stderr as "loci-shmem: fn: message". */
void shim_fail(const char *fn, const char *fmt, ...) SHIM_PRINTF(2, 3);

/* --- the lock of a partition --------------------------------------------------- */

/* A test-and-test-and-set lock: one atomic exchange to take it, a plain
 * release store to give it back — half of a mutex's atomic operations, on a
 * path that costs tens of nanoseconds in all. The sections it guards are
 * short; a waiting thread yields (these machines are often oversubscribed). */
typedef atomic_int shim_lock_t;

static inline void shim_lock(shim_lock_t *l)
{
    while (atomic_exchange_explicit(l, 1, memory_order_acquire))
        while (atomic_load_explicit(l, memory_order_relaxed))
            sched_yield();
}

static inline void shim_unlock(shim_lock_t *l) { atomic_store_explicit(l, 0, memory_order_release); }

/** Give pages back to the symmetric heap without a binding of their own,
 *  so that whatever the heap hands them to next is not placed by our intent
 *  (pages present stay where they are until freed). */
static inline void shim_unbind(void *base, size_t len) { mbind(base, len, MPOL_DEFAULT, NULL, 0, 0); }

/* --- partitions (partition.c) ------------------------------------------------ */

/** A partition: a symmetric block from shmem_align, bound by intent, with
 *  an allocator of its own. Its fields other than lock/heap never change. */
typedef struct {
    int id;
    char *base;   /* page-aligned */
    size_t size;  /* whole pages */
    char *intent;
    char where[64]; /* the target its intent chose here, e.g. "hbm0" */
    shim_lock_t lock; /* guards heap */
    heap_t *heap;
} partition_t;

/** Partition `id`, or NULL after shim_fail naming fn and the live ids. */
partition_t *shim_partition(const char *fn, int id);

/** The live partition whose block holds p, or NULL. */
partition_t *shim_partition_holding(const void *p);

/* --- blocks placed by shmemx_malloc_with_hint (hinted.c) ------------------------- */

typedef struct {
    void *base;        /* page-aligned, from pshmem_align */
    size_t len;        /* whole pages */
    const char *intent; /* what placed it (static storage) */
} shim_hinted_t;

/** Remember a placed block; false when out of memory (it stays placed, unknown). */
bool shim_hinted_add(const shim_hinted_t *b);

/** Forget the placed block starting at p, into *out; false if p is none. */
bool shim_hinted_take(const void *p, shim_hinted_t *out);

/* --- agreement of the PEs on a collective call (agree.c) ------------------------ */

/** One PE's side of a collective call: whether it can go on, and the
 *  arguments every PE must have given alike. */
typedef struct {
    long ok;   /* 1: this PE can go on; 0: it failed (and said why) */
    long id;   /* partition id */
    long size; /* bytes */
    long hash; /* of the intent, see shim_intent_hash */
} shim_vote_t;

/** Collective: every PE's vote. 0 when every PE is ok and gave the same
 *  arguments as this one; else -1 after shim_fail naming the first PE that
 *  failed or differs (a PE whose own vote is not ok keeps its own message).
 *  Ends with a barrier. */
int shim_agree(const char *fn, const shim_vote_t *mine);

/** FNV-1a of an intent, ignoring case and whitespace (as the intent parser
 *  does), so that equal intents spelled differently agree. */
long shim_intent_hash(const char *intent);

#endif
