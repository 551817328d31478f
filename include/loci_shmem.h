/*
 * loci for OpenSHMEM: heterogeneous-memory partitions of the symmetric heap
 * (SharP §5.2, made symmetric), from libloci-shmem.so. Manual: docs/SHMEM.md.
 *
 * A partition is a block of the symmetric heap whose pages live where an
 * intent (docs/INTENTS.md) says — "bandwidth=high", "near=nic" — with an
 * allocator of its own. Blocks allocated in it are symmetric like
 * shmem_malloc's: when every PE makes the same partition calls in the same
 * order, each call returns the same address on every PE, so other PEs can
 * put, get and use atomics on them.
 *
 *   int hbm = shmemx_partition_create("bandwidth=high", 64 << 20); // collective
 *   double *x = shmemx_partition_malloc(hbm, n * sizeof *x);      // same address on every PE
 *   shmem_double_put(x, src, n, (me + 1) % npes);
 *   shmemx_partition_free(hbm, x);
 *   shmemx_partition_destroy(hbm);                                // collective
 *
 * Errors: a call that fails returns -1 (int) or NULL (pointer, errno set:
 * EINVAL for a bad argument, ENOMEM for no room), prints one line
 * "loci-shmem: <call>: <what was wrong>" on stderr, and keeps that message
 * for the calling thread (shmemx_partition_last_error). Nothing is allocated or
 * freed by a failing call. Every function is thread-safe; the collective
 * ones follow OpenSHMEM's rules for collectives (all PEs, one thread each).
 *
 * Link -lloci-shmem before the OpenSHMEM library (oshcc appends its own after
 * your arguments), or LD_PRELOAD libloci-shmem.so: it also places Open MPI's
 * shmemx_malloc_with_hint blocks by their hints.
 *
 * Names: every call is shmemx_partition_<verb>. SharP's names for the calls
 * that make, destroy and explain partitions, shmemx_hhm_create,
 * shmemx_hhm_destroy and shmemx_hhm_last_error, are aliases of
 * shmemx_partition_create, _destroy and _last_error, and both stay: code
 * written for SharP keeps building. A message names the call as SharP did
 * ("shmemx_hhm_create: ..."), whichever name was called.
 */
#ifndef LOCI_SHMEM_H
#define LOCI_SHMEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Collective: create a partition of `size` bytes (rounded up to whole
 *  pages) placed by `intent` ("" = the local DRAM), carved from the
 *  symmetric heap with shmem_align and bound before any page is touched.
 *  Every PE must pass the same intent (compared ignoring case and spaces)
 *  and size. Returns the partition id (>= 0, the same on every PE), or -1 on
 *  every PE when any PE's arguments are refused or differ from another's:
 *  NULL intent, size 0, an intent that is malformed, that nothing here
 *  satisfies, or that names memory outside the symmetric heap (persist,
 *  kind=ssd, use=gpu), no room in the heap (Open MPI: SMA_SYMMETRIC_SIZE), 256
 *  partitions live already. */
int shmemx_partition_create(const char *intent, size_t size);
/** Alias of shmemx_partition_create (SharP's name); both stay. */
int shmemx_hhm_create(const char *intent, size_t size);

/** Collective: destroy partition `id` and every block in it; its memory
 *  returns to the symmetric heap. Includes a barrier: remote operations on
 *  it issued before complete first. 0, or -1 on every PE when `id` is not a
 *  live partition on some PE, or the PEs passed different ids. */
int shmemx_partition_destroy(int id);
/** Alias of shmemx_partition_destroy (SharP's name); both stay. */
int shmemx_hhm_destroy(int id);

/** A block of at least `size` bytes in partition `id`, aligned to 16 bytes.
 *  NULL for size 0 (as shmem_malloc(0), not an error), and on error: no
 *  partition `id` (EINVAL), size larger than the partition or no free block
 *  that large (ENOMEM).
 *  Not collective and no barrier (the partition's memory exists on every PE
 *  already): the block is symmetric when every PE makes the same calls on
 *  the partition in the same order. Synchronise (shmem_barrier_all) before
 *  other PEs access a block its owner is still initialising. */
void *shmemx_partition_malloc(int id, size_t size);

/** As shmemx_partition_malloc, aligned to `alignment` (a power of two;
 *  EINVAL otherwise). The argument order is shmem_align's. */
void *shmemx_partition_align(int id, size_t alignment, size_t size);

/** Resize the block at `ptr` of partition `id` to `size` bytes, keeping its
 *  contents up to the smaller size, as shmem_realloc: in place when it can
 *  (shrinking, or growing into free space after it), else a new block of
 *  the same partition, the old one freed. ptr NULL: shmemx_partition_malloc.
 *  size 0: frees ptr, returns NULL. On error NULL and the block is
 *  unchanged: ptr not a live block of partition `id` (EINVAL, the message
 *  says whose it is), no room (ENOMEM). Symmetric under the same rule as
 *  shmemx_partition_malloc. */
void *shmemx_partition_realloc(int id, void *ptr, size_t size);

/** Free the block at `ptr` of partition `id`; ptr NULL: nothing. A pointer
 *  that is not a live block of the partition — freed already, inside a
 *  block, of another partition (the message names it), from shmem_malloc
 *  or malloc — is reported and nothing is freed. */
void shmemx_partition_free(int id, void *ptr);

/** The calling thread's message for its last failed call of this header
 *  ("" if none): "<call>: <what was wrong and what would be right>". */
const char *shmemx_partition_last_error(void);
/** Alias of shmemx_partition_last_error; both stay. */
const char *shmemx_hhm_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
