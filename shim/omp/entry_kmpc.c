/* What Clang emits for allocate directives and clauses, and libomp's own
 * spellings of the routines (the gtid argument is libomp's thread number). */
#include "shim.h"

SHIM_EXPORT void *__kmpc_alloc(int gtid, size_t size, omp_handle_t allocator)
{
    return shim_alloc(allocator, 1, 1, size, SHIM_DIRECTIVE, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void *__kmpc_aligned_alloc(int gtid, size_t alignment, size_t size, omp_handle_t allocator)
{
    return shim_alloc(allocator, alignment, 1, size, SHIM_DIRECTIVE, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void *__kmpc_calloc(int gtid, size_t nmemb, size_t size, omp_handle_t allocator)
{
    return shim_alloc(allocator, 1, nmemb, size, SHIM_ZERO, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void *__kmpc_realloc(int gtid, void *ptr, size_t size, omp_handle_t allocator,
                                 omp_handle_t free_allocator)
{
    return shim_realloc(ptr, size, allocator, free_allocator, SHIM_CALLER(), __func__);
}

SHIM_EXPORT void __kmpc_free(int gtid, void *ptr, omp_handle_t allocator) { shim_free(ptr, allocator, __func__); }

SHIM_EXPORT omp_handle_t __kmpc_init_allocator(int gtid, omp_handle_t memspace, int ntraits,
                                               const omp_trait_t traits[])
{
    return shim_init_allocator(memspace, ntraits, traits, __func__);
}

SHIM_EXPORT void __kmpc_destroy_allocator(int gtid, omp_handle_t allocator)
{
    shim_destroy_allocator(allocator, __func__);
}
