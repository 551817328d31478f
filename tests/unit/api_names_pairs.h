/*
 * The renamed public calls (include/loci.h and include/loci_shmem.h,
 * "Names") as (new name, older name) pairs, for test_api_names.c and its
 * C++ half to check with one list: X(new, old) for each.
 */
#ifndef LOCI_TEST_API_NAMES_PAIRS_H
#define LOCI_TEST_API_NAMES_PAIRS_H

#define API_NAME_PAIRS(X)                                                                                      \
    X(loci_initiator_set, loci_set_initiator)                                                                  \
    X(loci_range_place, loci_place_range)                                                                      \
    X(loci_ptr_arena, loci_arena_of)                                                                           \
    X(loci_region_open, loci_persist_open)                                                                     \
    X(loci_region_sync, loci_persist_sync)                                                                     \
    X(loci_region_close, loci_persist_close)                                                                   \
    X(loci_region_remove, loci_persist_remove)                                                                 \
    X(loci_region_size, loci_persist_size)                                                                     \
    X(loci_range_prefetch, loci_nvm_prefetch)                                                                  \
    X(loci_range_flush, loci_nvm_flush)                                                                        \
    X(loci_range_evict, loci_nvm_evict)                                                                        \
    X(loci_cache_stats, loci_nvm_stats)                                                                        \
    X(shmemx_partition_create, shmemx_hhm_create)                                                              \
    X(shmemx_partition_destroy, shmemx_hhm_destroy)                                                            \
    X(shmemx_partition_last_error, shmemx_hhm_last_error)

/* The flags keep their values under both names. */
#define API_NAME_FLAGS_AGREE                                                                                   \
    (LOCI_REGION_CREATE == LOCI_CREATE && LOCI_REGION_READONLY == LOCI_READONLY && LOCI_REGION_SHARED == LOCI_SHARED)

#endif
