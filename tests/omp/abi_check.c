/*
 * The numbering of shim/omp/abi.h is the numbering of the omp.h this file is
 * compiled against: GCC's (libgomp) in the unit test, Clang's (libomp) in
 * omp_check_clang. A runtime that renumbers breaks the build here, not a
 * program at run time.
 */
#include "abi.h"

#include <omp.h>
#include <stddef.h>

#define SAME(ours, theirs) _Static_assert((uintptr_t)(ours) == (uintptr_t)(theirs), #theirs " differs from abi.h")

SAME(OMP_NULL_ALLOCATOR, omp_null_allocator);
SAME(OMP_DEFAULT_MEM_ALLOC, omp_default_mem_alloc);
SAME(OMP_LARGE_CAP_MEM_ALLOC, omp_large_cap_mem_alloc);
SAME(OMP_CONST_MEM_ALLOC, omp_const_mem_alloc);
SAME(OMP_HIGH_BW_MEM_ALLOC, omp_high_bw_mem_alloc);
SAME(OMP_LOW_LAT_MEM_ALLOC, omp_low_lat_mem_alloc);
SAME(OMP_CGROUP_MEM_ALLOC, omp_cgroup_mem_alloc);
SAME(OMP_PTEAM_MEM_ALLOC, omp_pteam_mem_alloc);
SAME(OMP_THREAD_MEM_ALLOC, omp_thread_mem_alloc);

SAME(OMP_DEFAULT_MEM_SPACE, omp_default_mem_space);
SAME(OMP_LARGE_CAP_MEM_SPACE, omp_large_cap_mem_space);
SAME(OMP_CONST_MEM_SPACE, omp_const_mem_space);
SAME(OMP_HIGH_BW_MEM_SPACE, omp_high_bw_mem_space);
SAME(OMP_LOW_LAT_MEM_SPACE, omp_low_lat_mem_space);

SAME(OMP_ATK_SYNC_HINT, omp_atk_sync_hint);
SAME(OMP_ATK_ALIGNMENT, omp_atk_alignment);
SAME(OMP_ATK_ACCESS, omp_atk_access);
SAME(OMP_ATK_POOL_SIZE, omp_atk_pool_size);
SAME(OMP_ATK_FALLBACK, omp_atk_fallback);
SAME(OMP_ATK_FB_DATA, omp_atk_fb_data);
SAME(OMP_ATK_PINNED, omp_atk_pinned);
SAME(OMP_ATK_PARTITION, omp_atk_partition);

SAME(OMP_ATV_DEFAULT, omp_atv_default);
SAME(OMP_ATV_FALSE, omp_atv_false);
SAME(OMP_ATV_TRUE, omp_atv_true);
SAME(OMP_ATV_CONTENDED, omp_atv_contended);
SAME(OMP_ATV_UNCONTENDED, omp_atv_uncontended);
SAME(OMP_ATV_SERIALIZED, omp_atv_serialized);
SAME(OMP_ATV_PRIVATE, omp_atv_private);
SAME(OMP_ATV_ALL, omp_atv_all);
SAME(OMP_ATV_THREAD, omp_atv_thread);
SAME(OMP_ATV_PTEAM, omp_atv_pteam);
SAME(OMP_ATV_CGROUP, omp_atv_cgroup);
SAME(OMP_ATV_DEFAULT_MEM_FB, omp_atv_default_mem_fb);
SAME(OMP_ATV_NULL_FB, omp_atv_null_fb);
SAME(OMP_ATV_ABORT_FB, omp_atv_abort_fb);
SAME(OMP_ATV_ALLOCATOR_FB, omp_atv_allocator_fb);
SAME(OMP_ATV_ENVIRONMENT, omp_atv_environment);
SAME(OMP_ATV_NEAREST, omp_atv_nearest);
SAME(OMP_ATV_BLOCKED, omp_atv_blocked);
SAME(OMP_ATV_INTERLEAVED, omp_atv_interleaved);

/* omp_alloctrait_t and the handle types as the shim's entry points take them. */
_Static_assert(sizeof(omp_trait_t) == sizeof(omp_alloctrait_t), "omp_alloctrait_t size differs");
_Static_assert(offsetof(omp_trait_t, value) == offsetof(omp_alloctrait_t, value), "omp_alloctrait_t layout");
_Static_assert(sizeof(omp_handle_t) == sizeof(omp_allocator_handle_t), "omp_allocator_handle_t size differs");
_Static_assert(sizeof(omp_handle_t) == sizeof(omp_memspace_handle_t), "omp_memspace_handle_t size differs");
