/*
 * Making stores to persistent memory durable (durable.c): the CPU cache
 * lines of a range written back to the memory, then a store fence, and msync
 * where the mapping has no MAP_SYNC (a file standing in for the device, or a
 * kernel that refused it).
 */
#ifndef LOCI_OS_DURABLE_H
#define LOCI_OS_DURABLE_H

#include <stdbool.h>
#include <stddef.h>

/** Write [addr, addr+size) back from the CPU caches (CLWB, else CLFLUSHOPT,
 *  else CLFLUSH on x86-64; DC CVAC on AArch64) and fence; then, when
 *  `map_sync` is false, msync(MS_SYNC) the page-aligned range too. 0, or -1
 *  with errno from msync. */
int durable_range(const void *addr, size_t size, bool map_sync);

#endif
