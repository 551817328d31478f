/* libgomp's Fortran spellings of the allocator routines (use omp_lib):
 * arguments by reference, ntraits as a default or an 8-byte integer. The
 * Fortran omp_alloctrait type is {integer(c_int) key; integer(c_intptr_t)
 * value}, the C layout. Interposed so that a Fortran program's allocators
 * are loci's and placed by intent like a C program's. */
#include "shim.h"

SHIM_EXPORT omp_handle_t omp_init_allocator_(const omp_handle_t *memspace, const int32_t *ntraits,
                                             const omp_trait_t *traits)
{
    return shim_init_allocator(*memspace, *ntraits, traits, "omp_init_allocator");
}

SHIM_EXPORT omp_handle_t omp_init_allocator_8_(const omp_handle_t *memspace, const int64_t *ntraits,
                                               const omp_trait_t *traits)
{
    int n = *ntraits > INT32_MAX ? INT32_MAX : *ntraits < 0 ? -1 : (int)*ntraits;
    return shim_init_allocator(*memspace, n, traits, "omp_init_allocator");
}

SHIM_EXPORT void omp_destroy_allocator_(const omp_handle_t *allocator)
{
    shim_destroy_allocator(*allocator, "omp_destroy_allocator");
}

SHIM_EXPORT void omp_set_default_allocator_(const omp_handle_t *allocator) { shim_set_default_allocator(*allocator); }

SHIM_EXPORT omp_handle_t omp_get_default_allocator_(void) { return shim_default_allocator(); }
