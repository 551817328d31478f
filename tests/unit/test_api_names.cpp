/*
 * The C++ half of test_api_names.c: include/loci.h and include/loci_shmem.h
 * compile as C++ with both spellings of every renamed name, each pair of the
 * same type, and both are callable from C++.
 */
#include <loci.h>
#include <loci_shmem.h>

#include <type_traits>

#include "api_names_pairs.h"

#define SAME_TYPE(a, b) static_assert(std::is_same<decltype(a), decltype(b)>::value, #a " and " #b " differ");
API_NAME_PAIRS(SAME_TYPE)
static_assert(std::is_same<loci_arena_move_request_t, loci_arena_move_t>::value, "move types differ");
static_assert(std::is_same<loci_ckpt_gc_stats_t, loci_ckpt_gc_t>::value, "gc types differ");
static_assert(std::is_same<loci_cache_stats_t, loci_nvm_stats_t>::value, "cache stats types differ");
static_assert(API_NAME_FLAGS_AGREE, "region flags differ");

extern "C" loci_arena_t *api_names_cxx_arena(const void *ptr)
{
    loci_arena_t *found = loci_ptr_arena(ptr);
    return found == loci_arena_of(ptr) ? found : nullptr;
}
