/*
 * The allocator inside a partition: blocks of a range of offsets
 * [0, size), with every piece of bookkeeping in ordinary process memory —
 * it never reads or writes the memory it manages (DESIGN.md §5), so the
 * partition's pages are touched only by the program, on the node its
 * intent chose.
 *
 * Deterministic: the offsets it returns depend only on the sequence of
 * calls made on it (sizes, alignments, frees, in order), never on
 * addresses, time or threads. Every PE that makes the same calls on its
 * copy of a partition gets the same offsets: blocks are symmetric.
 *
 * Two-level segregated fit (TLSF: free blocks binned by size, a bitmap per
 * level, O(1) search, neighbours coalesced on free); live blocks found by
 * offset in a hash table. Not thread-safe: the partition locks around it.
 */
#ifndef LOCI_SHMEM_HEAP_H
#define LOCI_SHMEM_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Granule: block offsets and sizes are multiples of it (malloc's alignment). */
#define HEAP_GRANULE ((size_t)16)

/** Largest range a heap manages (2^47 bytes: 128 TiB). */
#define HEAP_MAX_SIZE ((size_t)1 << 47)

/** "No offset": what heap_alloc returns when nothing fits. */
#define HEAP_NONE ((size_t)-1)

typedef struct heap heap_t;

/** A heap over [0, size) (size a multiple of HEAP_GRANULE, at most
 *  HEAP_MAX_SIZE), all free, for memory at address `origin` (a multiple of
 *  HEAP_GRANULE): alignments are of origin + offset. NULL when out of memory. */
heap_t *heap_create(size_t size, uintptr_t origin);

void heap_destroy(heap_t *h);

/** Offset of a new block of at least size bytes (0 counts as 1), at an
 *  address (origin + offset) aligned to align (a power of two; below HEAP_GRANULE means HEAP_GRANULE).
 *  HEAP_NONE when no free block can hold it, or when out of memory for the
 *  bookkeeping. */
size_t heap_alloc(heap_t *h, size_t size, size_t align);

/** Usable bytes of the live block starting at off; 0 when no live block
 *  starts there (never allocated, freed already, or inside a block). */
size_t heap_block_size(const heap_t *h, size_t off);

/** Free the live block starting at off; false (nothing done) when there is none. */
bool heap_free(heap_t *h, size_t off);

/** Make the live block at off hold size bytes without moving it (shrinking,
 *  or growing into a free neighbour). false when it cannot, block unchanged. */
bool heap_resize(heap_t *h, size_t off, size_t size);

/** For messages: bytes in live blocks, and the largest free block. */
void heap_usage(const heap_t *h, size_t *in_use, size_t *largest_free);

#endif
