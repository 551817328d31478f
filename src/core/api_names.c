/*
 * The first names of public calls whose name drifted from
 * loci_<object>_<verb> (include/loci.h, "Names"): programs written against
 * them keep working. Each is an exported function, not a macro, so that
 * bindings reaching libloci by symbol (Python's ctypes, Fortran's bind(C))
 * have both names; each only forwards to the implementation, which has the
 * consistent name: every caller of either name runs the same code.
 */
#include <loci.h>

int loci_set_initiator(int node) { return loci_initiator_set(node); }

int loci_place_range(void *addr, size_t len, const char *intent) { return loci_range_place(addr, len, intent); }

loci_arena_t *loci_arena_of(const void *ptr) { return loci_ptr_arena(ptr); }

void *loci_persist_open(const char *name, size_t size, const char *intent, unsigned flags)
{
    return loci_region_open(name, size, intent, flags);
}
int loci_persist_sync(void *addr) { return loci_region_sync(addr); }
int loci_persist_close(void *addr) { return loci_region_close(addr); }
int loci_persist_remove(const char *name, const char *intent) { return loci_region_remove(name, intent); }
size_t loci_persist_size(const void *addr) { return loci_region_size(addr); }

int loci_nvm_prefetch(const void *addr, size_t len) { return loci_range_prefetch(addr, len); }
int loci_nvm_flush(const void *addr, size_t len) { return loci_range_flush(addr, len); }
int loci_nvm_evict(const void *addr, size_t len) { return loci_range_evict(addr, len); }
int loci_nvm_stats(const void *addr, loci_nvm_stats_t *out) { return loci_cache_stats(addr, out); }
