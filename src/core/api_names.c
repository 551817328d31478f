/*
 * The consistent names of the public API (include/loci.h, "Names") for calls
 * whose first name drifted from loci_<object>_<verb>. Each is an exported
 * function, not a macro, so that bindings reaching libloci by symbol
 * (Python's ctypes, Fortran's bind(C)) have both names; each only forwards
 * to the implementation, which keeps the older name: every caller of either
 * name runs the same code.
 */
#include <loci.h>

int loci_initiator_set(int node) { return loci_set_initiator(node); }

int loci_range_place(void *addr, size_t len, const char *intent) { return loci_place_range(addr, len, intent); }

loci_arena_t *loci_ptr_arena(const void *ptr) { return loci_arena_of(ptr); }

void *loci_region_open(const char *name, size_t size, const char *intent, unsigned flags)
{
    return loci_persist_open(name, size, intent, flags);
}
int loci_region_sync(void *addr) { return loci_persist_sync(addr); }
int loci_region_close(void *addr) { return loci_persist_close(addr); }
int loci_region_remove(const char *name, const char *intent) { return loci_persist_remove(name, intent); }
size_t loci_region_size(const void *addr) { return loci_persist_size(addr); }
