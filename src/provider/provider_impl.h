/*
 * What the providers share among themselves (src/provider/ only; callers
 * above use provider.h): the one adopt, free and NUMA-node move, which
 * each provider's table wraps.
 */
#ifndef LOCI_PROVIDER_IMPL_H
#define LOCI_PROVIDER_IMPL_H

#include "provider/extents.h"
#include "provider/provider.h"

/** `self`'s adopt (provider.h, move group): `size` bytes of `self` placed per
 *  `to`, which `from` hands the extent at addr over to (its hand_over: every
 *  store kept) — or, not `live` and where `from` cannot so, which are filled
 *  by a plain copy (faulted in first when the placement is strict) and
 *  mremapped over it; the record the new extent got in `records` (NULL: the
 *  provider keeps none) moves to addr. When self->alloc fails: LOCI_ENOSPC
 *  for a full file system, else LOCI_EIO for a provider with a file under its
 *  memory, LOCI_ENOMEM for memory. On failure the range is as it was. */
int provider_adopt(const provider_ops_t *self, xtable_t *records, void *addr, size_t size, const place_t *to,
                   const provider_ops_t *from, bool live);

/** free of a provider that mmaps its extents: munmap [addr, addr+size) and
 *  tell vm_unmapped. `known`: the provider had a record of the extent (it
 *  forgot it first); when not, LOCI_EINVAL naming `who`, the range unmapped
 *  all the same. */
int provider_unmap(const char *who, void *addr, size_t size, bool known);

/** Move NUMA-node memory (numa and shm providers) to `to`, addresses kept,
 *  then check every page's node. `shared`: a MAP_SHARED memfd mapping, whose
 *  pages mbind migrates; private anonymous memory is first offered to the
 *  copy-and-mremap move (vm_move_copy), which would replace a shared
 *  mapping by private memory. PLACE_LOCAL: back to first touch, the pages
 *  stay; a simulated place: nothing. */
int numa_node_move(void *addr, size_t size, const place_t *to, bool shared);

/** MemFree of the place's nodes; LOCI_ENOTSUP for simulated and PLACE_LOCAL
 *  places (no node to ask). */
int numa_node_available(const place_t *place, uint64_t *bytes);

#endif
