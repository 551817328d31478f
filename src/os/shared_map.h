/*
 * Shared mappings: memory files (memfd) and files mapped MAP_SHARED, whose
 * pages belong to the file rather than to one process (the shm and file
 * providers, named segments). Aligned mappings of a file are
 * vm_map_aligned's (vm.h); unmapping is vm_unmap. Each call returns what
 * the kernel call does (-1 or MAP_FAILED with errno set): the callers word
 * the message.
 */
#ifndef LOCI_OS_SHARED_MAP_H
#define LOCI_OS_SHARED_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A memory file named `name` (memfd_create, close-on-exec): its fd. */
int shared_map_memfd(const char *name);

/** Map `size` bytes of fd from offset 0, MAP_SHARED, wherever the kernel
 *  likes; read-only unless `writable`. */
void *shared_map_file(int fd, size_t size, bool writable);

/** Map `size` bytes of fd MAP_SHARED read-write at exactly `at`; MAP_FAILED
 *  (errno EEXIST) when something is there. */
void *shared_map_file_at(uintptr_t at, size_t size, int fd);

/** Map `size` bytes of fd from offset 0 MAP_PRIVATE read-write over
 *  whatever is at `at` (MAP_FIXED): the file's pages are read, stores go to
 *  private copies and never reach the file. A fork's child detaches its
 *  parent's file memory this way. */
void *shared_map_file_private_over(uintptr_t at, size_t size, int fd);

/** Fresh private anonymous memory over whatever is at `at` (MAP_FIXED):
 *  the range reads zeros. Purging a detached range (above) this way. */
void *shared_map_zero_over(uintptr_t at, size_t size);

/** Write the range's dirty pages to the file and wait (msync MS_SYNC). */
int shared_map_sync(void *addr, size_t size);

/** Free the range's pages and the file's space behind them (MADV_REMOVE):
 *  shared memory keeps its pages after MADV_DONTNEED. */
int shared_map_remove(void *addr, size_t size);

/** The size of the huge pages a memory file's mapping gets when it asks
 *  (MADV_HUGEPAGE, shared_map_advise_huge), or 0 when the system keeps
 *  shared memory in base pages (transparent_hugepage/shmem_enabled at never
 *  or deny, the default; the administrator's to change). Read once. */
size_t shared_map_huge_size(void);

/** Not inherited by a child of fork(), and in huge pages where the system
 *  gives shared memory any (MADV_DONTFORK, MADV_HUGEPAGE). */
void shared_map_advise_huge(void *addr, size_t size);

/** Give this process a copy of its own of the shared memory at [base,
 *  base+size), which maps memory file `fd` from offset 0 (shared_copy.c):
 *  a new memory file named `name` gets the data `fd` holds — read from the
 *  file, so pages not mapped here count too, and only where it holds data
 *  (holes stay holes) — placed by the NUMA policy the range has (*placed
 *  false: the node could not take it, and the copy went where the kernel
 *  put it), and is mapped over the range (mremap), same addresses. A fork's
 *  child makes shared memory private this way. The new fd, or -1 with errno
 *  set, the range as it was (or, should the remap fail half-way, a private
 *  copy of it). Not thread-safe against other users of fd's file offset. */
int shared_map_copy_over(void *base, size_t size, int fd, const char *name, bool *placed);

#endif
