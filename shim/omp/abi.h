/*
 * The OpenMP 5 allocator ABI as compiled programs pass it to the runtime:
 * handles, predefined allocators, memory spaces, trait keys and values.
 *
 * The numbers are the same in Debian GCC 12's omp.h (libgomp) and Debian
 * LLVM 14's omp.h (libomp): default memory space 0, omp_atv_all 7, the
 * predefined allocators 1-8. tests/omp/abi_check.c asserts it against both
 * headers at build time, so one decoding serves both runtimes; what differs
 * between them (libomp's extra llvm_omp_target_* handles) is in runtime.c.
 * Upper-case names keep this header apart from omp.h in that check.
 */
#ifndef LOCI_OMP_ABI_H
#define LOCI_OMP_ABI_H

#include <stdint.h>

/** omp_allocator_handle_t and omp_memspace_handle_t: uintptr_t-sized enums. */
typedef uintptr_t omp_handle_t;

/** omp_alloctrait_t: an int-sized enum key and an omp_uintptr_t value. */
typedef struct {
    int key;
    uintptr_t value;
} omp_trait_t;

/* Predefined allocators (omp_allocator_handle_t). */
enum {
    OMP_NULL_ALLOCATOR = 0,
    OMP_DEFAULT_MEM_ALLOC = 1,
    OMP_LARGE_CAP_MEM_ALLOC = 2,
    OMP_CONST_MEM_ALLOC = 3,
    OMP_HIGH_BW_MEM_ALLOC = 4,
    OMP_LOW_LAT_MEM_ALLOC = 5,
    OMP_CGROUP_MEM_ALLOC = 6,
    OMP_PTEAM_MEM_ALLOC = 7,
    OMP_THREAD_MEM_ALLOC = 8,
    OMP_PREDEFINED_ALLOCATORS = 8,
};

/* Memory spaces (omp_memspace_handle_t). */
enum {
    OMP_DEFAULT_MEM_SPACE = 0,
    OMP_LARGE_CAP_MEM_SPACE = 1,
    OMP_CONST_MEM_SPACE = 2,
    OMP_HIGH_BW_MEM_SPACE = 3,
    OMP_LOW_LAT_MEM_SPACE = 4,
    OMP_MEM_SPACES = 5,
};

/* Trait keys (omp_alloctrait_key_t). */
enum {
    OMP_ATK_SYNC_HINT = 1,
    OMP_ATK_ALIGNMENT = 2,
    OMP_ATK_ACCESS = 3,
    OMP_ATK_POOL_SIZE = 4,
    OMP_ATK_FALLBACK = 5,
    OMP_ATK_FB_DATA = 6,
    OMP_ATK_PINNED = 7,
    OMP_ATK_PARTITION = 8,
};

/* Trait values (omp_alloctrait_value_t). */
#define OMP_ATV_DEFAULT ((uintptr_t)-1)
enum {
    OMP_ATV_FALSE = 0,
    OMP_ATV_TRUE = 1,
    OMP_ATV_CONTENDED = 3,
    OMP_ATV_UNCONTENDED = 4,
    OMP_ATV_SERIALIZED = 5,
    OMP_ATV_PRIVATE = 6,
    OMP_ATV_ALL = 7,
    OMP_ATV_THREAD = 8,
    OMP_ATV_PTEAM = 9,
    OMP_ATV_CGROUP = 10,
    OMP_ATV_DEFAULT_MEM_FB = 11,
    OMP_ATV_NULL_FB = 12,
    OMP_ATV_ABORT_FB = 13,
    OMP_ATV_ALLOCATOR_FB = 14,
    OMP_ATV_ENVIRONMENT = 15,
    OMP_ATV_NEAREST = 16,
    OMP_ATV_BLOCKED = 17,
    OMP_ATV_INTERLEAVED = 18,
};

#endif
