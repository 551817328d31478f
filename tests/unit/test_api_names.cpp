/*
 * The C++ half of test_api_names.c: include/loci.h and include/loci_shmem.h
 * compile as C++ with both spellings of every renamed name, each pair of the
 * same type, and both are callable from C++.
 */
#include <loci.h>
#include <loci_shmem.h>

#include <type_traits>

#define SAME_TYPE(a, b) static_assert(std::is_same<decltype(a), decltype(b)>::value, #a " and " #b " differ")
SAME_TYPE(loci_initiator_set, loci_set_initiator);
SAME_TYPE(loci_range_place, loci_place_range);
SAME_TYPE(loci_ptr_arena, loci_arena_of);
SAME_TYPE(loci_region_open, loci_persist_open);
SAME_TYPE(loci_region_sync, loci_persist_sync);
SAME_TYPE(loci_region_close, loci_persist_close);
SAME_TYPE(loci_region_remove, loci_persist_remove);
SAME_TYPE(loci_region_size, loci_persist_size);
SAME_TYPE(shmemx_partition_create, shmemx_hhm_create);
SAME_TYPE(shmemx_partition_destroy, shmemx_hhm_destroy);
SAME_TYPE(shmemx_partition_last_error, shmemx_hhm_last_error);
static_assert(std::is_same<loci_arena_move_request_t, loci_arena_move_t>::value, "move types differ");
static_assert(std::is_same<loci_ckpt_gc_stats_t, loci_ckpt_gc_t>::value, "gc types differ");
static_assert(LOCI_REGION_CREATE == LOCI_CREATE && LOCI_REGION_READONLY == LOCI_READONLY &&
                  LOCI_REGION_SHARED == LOCI_SHARED,
              "region flags differ");

extern "C" loci_arena_t *api_names_cxx_arena(const void *ptr)
{
    loci_arena_t *found = loci_ptr_arena(ptr);
    return found == loci_arena_of(ptr) ? found : nullptr;
}
