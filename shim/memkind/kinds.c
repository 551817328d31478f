/*
 * memkind's static kinds, each a loci intent and a way of taking its
 * candidates (docs/MEMKIND.md has the table and what each gives on a machine
 * without that memory), and the one check every call makes on the kind it
 * is handed: memkind itself dereferences whatever it gets, loci refuses a
 * NULL, unknown or destroyed kind with MEMKIND_ERROR_INVALID.
 */
#include "memkind_shim.h"

#include <stdint.h>

#define KIND(part, kname, text, node_class, how)                                                                       \
    [MEMKIND_PARTITION_##part] = {.partition = MEMKIND_PARTITION_##part, .name = kname, .state = KIND_STATIC,          \
                                  .intent = text, .nodes = node_class, .take = how}

/* Huge-page kinds place as their base kind: loci maps by page and leaves
 * 2 MiB pages to transparent huge pages, it keeps no hugetlbfs pool. The
 * 1 GiB kinds (deprecated by memkind) likewise. */
struct memkind mk_static_kinds[MEMKIND_NUM_BASE_KIND] = {
    KIND(DEFAULT, "memkind_default", "", NODES_OWN, THEN_ANY),
    KIND(HBW, "memkind_hbw", "kind=hbm!", NODES_HBW, TAKE_BEST),
    KIND(HBW_HUGETLB, "memkind_hbw_hugetlb", "kind=hbm!", NODES_HBW, TAKE_BEST | NO_CAPACITY),
    KIND(HBW_PREFERRED, "memkind_hbw_preferred", "kind=hbm!", NODES_HBW, TAKE_BEST | THEN_DRAM | NO_CAPACITY),
    KIND(HBW_PREFERRED_HUGETLB, "memkind_hbw_preferred_hugetlb", "kind=hbm!", NODES_HBW, TAKE_BEST | THEN_DRAM | NO_CAPACITY),
    KIND(HUGETLB, "memkind_hugetlb", "", NODES_OWN, THEN_ANY),
    KIND(HBW_GBTLB, "memkind_hbw_gbtlb", "kind=hbm!", NODES_HBW, TAKE_BEST | NO_CAPACITY),
    KIND(HBW_PREFERRED_GBTLB, "memkind_hbw_preferred_gbtlb", "kind=hbm!", NODES_HBW, TAKE_BEST | THEN_DRAM | NO_CAPACITY),
    KIND(GBTLB, "memkind_gbtlb", "", NODES_OWN, THEN_ANY | NO_CAPACITY),
    KIND(HBW_INTERLEAVE, "memkind_hbw_interleave", "kind=hbm!", NODES_HBW, INTERLEAVED),
    KIND(INTERLEAVE, "memkind_interleave", "bandwidth=high", NODES_OWN, INTERLEAVED),
    KIND(REGULAR, "memkind_regular", "kind=dram!", NODES_OWN, 0),
    KIND(HBW_ALL, "memkind_hbw_all", "kind=hbm!", NODES_HBW, 0),
    KIND(HBW_ALL_HUGETLB, "memkind_hbw_all_hugetlb", "kind=hbm!", NODES_HBW, NO_CAPACITY),
    KIND(DAX_KMEM, "memkind_dax_kmem", "kind=pmem!", NODES_DAX_KMEM, TAKE_BEST),
    KIND(DAX_KMEM_ALL, "memkind_dax_kmem_all", "kind=pmem!", NODES_DAX_KMEM, 0),
    KIND(DAX_KMEM_PREFERRED, "memkind_dax_kmem_preferred", "kind=pmem!", NODES_DAX_KMEM, TAKE_BEST | THEN_DRAM | NO_CAPACITY),
    KIND(DAX_KMEM_INTERLEAVE, "memkind_dax_kmem_interleave", "kind=pmem!", NODES_DAX_KMEM, INTERLEAVED),
    KIND(HIGHEST_CAPACITY, "memkind_highest_capacity", "capacity=large", NODES_OWN, TAKE_BEST),
    KIND(HIGHEST_CAPACITY_PREFERRED, "memkind_highest_capacity_preferred", "capacity=large", NODES_OWN, NO_CAPACITY),
    KIND(HIGHEST_CAPACITY_LOCAL, "memkind_highest_capacity_local", "near=pe!,capacity=large", NODES_OWN, TAKE_BEST),
    KIND(HIGHEST_CAPACITY_LOCAL_PREFERRED, "memkind_highest_capacity_local_preferred", "near=pe,capacity=large",
         NODES_OWN, NO_CAPACITY),
    KIND(LOWEST_LATENCY_LOCAL, "memkind_lowest_latency_local", "near=pe!,latency=low", NODES_OWN, TAKE_BEST),
    KIND(LOWEST_LATENCY_LOCAL_PREFERRED, "memkind_lowest_latency_local_preferred", "near=pe,latency=low", NODES_OWN,
         NO_CAPACITY),
    KIND(HIGHEST_BANDWIDTH_LOCAL, "memkind_highest_bandwidth_local", "near=pe!,bandwidth=high", NODES_OWN, TAKE_BEST),
    KIND(HIGHEST_BANDWIDTH_LOCAL_PREFERRED, "memkind_highest_bandwidth_local_preferred", "near=pe,bandwidth=high",
         NODES_OWN, NO_CAPACITY),
};

/* memkind's kinds are data: a program linked against Debian's libmemkind
 * reads these pointers (copy relocations included), so they keep its names
 * and type. */
#define HANDLE(part) MK_EXPORT memkind_t MEMKIND_##part = &mk_static_kinds[MEMKIND_PARTITION_##part]
HANDLE(DEFAULT);
HANDLE(HBW);
HANDLE(HBW_HUGETLB);
HANDLE(HBW_PREFERRED);
HANDLE(HBW_PREFERRED_HUGETLB);
HANDLE(HUGETLB);
HANDLE(HBW_GBTLB);
HANDLE(HBW_PREFERRED_GBTLB);
HANDLE(GBTLB);
HANDLE(HBW_INTERLEAVE);
HANDLE(INTERLEAVE);
HANDLE(REGULAR);
HANDLE(HBW_ALL);
HANDLE(HBW_ALL_HUGETLB);
HANDLE(DAX_KMEM);
HANDLE(DAX_KMEM_ALL);
HANDLE(DAX_KMEM_PREFERRED);
HANDLE(DAX_KMEM_INTERLEAVE);
HANDLE(HIGHEST_CAPACITY);
HANDLE(HIGHEST_CAPACITY_PREFERRED);
HANDLE(HIGHEST_CAPACITY_LOCAL);
HANDLE(HIGHEST_CAPACITY_LOCAL_PREFERRED);
HANDLE(LOWEST_LATENCY_LOCAL);
HANDLE(LOWEST_LATENCY_LOCAL_PREFERRED);
HANDLE(HIGHEST_BANDWIDTH_LOCAL);
HANDLE(HIGHEST_BANDWIDTH_LOCAL_PREFERRED);

bool kind_is_static(const struct memkind *k)
{
    uintptr_t p = (uintptr_t)k, first = (uintptr_t)mk_static_kinds;
    return p >= first && p < (uintptr_t)(mk_static_kinds + MEMKIND_NUM_BASE_KIND) &&
           (p - first) % sizeof *k == 0;
}

int kind_check(const char *fn, memkind_t kind)
{
    if (!kind) {
        mk_log(LOCI_LOG_WARN, "%s: the kind is NULL (use MEMKIND_DEFAULT, a MEMKIND_* kind or one made by "
                              "memkind_create_*)", fn);
        return MEMKIND_ERROR_INVALID;
    }
    if (kind_is_static(kind))
        return MEMKIND_SUCCESS;
    if (!registry_holds(kind)) {
        mk_log(LOCI_LOG_WARN, "%s: %p is not a memkind kind", fn, (void *)kind);
        return MEMKIND_ERROR_INVALID;
    }
    int state = atomic_load(&kind->state);
    if (state == KIND_LIVE)
        return MEMKIND_SUCCESS;
    mk_log(LOCI_LOG_WARN, "%s: kind %p (%s) was destroyed by memkind_destroy_kind", fn, (void *)kind,
           state == KIND_DESTROYED ? kind->name : "never made");
    return MEMKIND_ERROR_INVALID;
}
