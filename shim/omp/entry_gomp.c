/* What GCC emits for allocate clauses (libgomp's GOMP_alloc / GOMP_free).
 * Calls inside libgomp skip the PLT, so these are wrapped as well. */
#include "shim.h"

SHIM_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    return shim_alloc(allocator, alignment, 1, size, SHIM_DIRECTIVE, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void GOMP_free(void *ptr, uintptr_t allocator) { shim_free(ptr, allocator, __func__); }
