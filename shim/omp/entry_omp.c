/* The OpenMP 5.1 memory-management routines (§3.13), as programs call them. */
#include "shim.h"

SHIM_EXPORT omp_handle_t omp_init_allocator(omp_handle_t memspace, int ntraits, const omp_trait_t traits[])
{
    return shim_init_allocator(memspace, ntraits, traits, __func__);
}

SHIM_EXPORT void omp_destroy_allocator(omp_handle_t allocator) { shim_destroy_allocator(allocator, __func__); }

SHIM_EXPORT void omp_set_default_allocator(omp_handle_t allocator) { shim_set_default_allocator(allocator); }

SHIM_EXPORT omp_handle_t omp_get_default_allocator(void) { return shim_default_allocator(); }

SHIM_EXPORT void *omp_alloc(size_t size, omp_handle_t allocator)
{
    return shim_alloc(allocator, 1, 1, size, 0, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size, omp_handle_t allocator)
{
    return shim_alloc(allocator, alignment, 1, size, 0, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void *omp_calloc(size_t nmemb, size_t size, omp_handle_t allocator)
{
    return shim_alloc(allocator, 1, nmemb, size, SHIM_ZERO, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size, omp_handle_t allocator)
{
    return shim_alloc(allocator, alignment, nmemb, size, SHIM_ZERO, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void *omp_realloc(void *ptr, size_t size, omp_handle_t allocator, omp_handle_t free_allocator)
{
    return shim_realloc(ptr, size, allocator, free_allocator, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void omp_free(void *ptr, omp_handle_t allocator) { shim_free(ptr, allocator, __func__); }
