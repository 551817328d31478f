/*
 * Making and destroying kinds: memkind_create_kind (memkind's table of the
 * memory type and policy combinations it implements, each one of its static
 * kinds), memkind_destroy_kind, the deprecated memkind_get_kind_by_partition,
 * and memkind_create_fixed, which loci cannot make: it has no heap over
 * memory the caller mapped.
 */
#include "memkind_shim.h"

typedef struct {
    memkind_memtype_t memtype;
    memkind_policy_t policy;
    memkind_bits_t flags;
    int partition;
} combination_t;

static const combination_t combinations[] = {
    {MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_BIND_LOCAL, 0, MEMKIND_PARTITION_HBW},
    {MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_BIND_LOCAL, MEMKIND_MASK_PAGE_SIZE_2MB,
     MEMKIND_PARTITION_HBW_HUGETLB},
    {MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_BIND_ALL, 0, MEMKIND_PARTITION_HBW_ALL},
    {MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_BIND_ALL, MEMKIND_MASK_PAGE_SIZE_2MB,
     MEMKIND_PARTITION_HBW_ALL_HUGETLB},
    {MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_PREFERRED_LOCAL, 0, MEMKIND_PARTITION_HBW_PREFERRED},
    {MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_PREFERRED_LOCAL, MEMKIND_MASK_PAGE_SIZE_2MB,
     MEMKIND_PARTITION_HBW_PREFERRED_HUGETLB},
    {MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_INTERLEAVE_ALL, 0, MEMKIND_PARTITION_HBW_INTERLEAVE},
    {MEMKIND_MEMTYPE_DEFAULT, MEMKIND_POLICY_PREFERRED_LOCAL, 0, MEMKIND_PARTITION_DEFAULT},
    {MEMKIND_MEMTYPE_DEFAULT, MEMKIND_POLICY_PREFERRED_LOCAL, MEMKIND_MASK_PAGE_SIZE_2MB, MEMKIND_PARTITION_HUGETLB},
    {MEMKIND_MEMTYPE_DEFAULT | MEMKIND_MEMTYPE_HIGH_BANDWIDTH, MEMKIND_POLICY_INTERLEAVE_ALL, 0,
     MEMKIND_PARTITION_INTERLEAVE},
};

MK_EXPORT int memkind_create_kind(memkind_memtype_t memtype_flags, memkind_policy_t policy, memkind_bits_t flags,
                                  memkind_t *kind)
{
    unsigned known_types = MEMKIND_MEMTYPE_DEFAULT | MEMKIND_MEMTYPE_HIGH_BANDWIDTH;
    if (!memtype_flags || (memtype_flags & ~known_types) || (unsigned)policy >= MEMKIND_POLICY_MAX_VALUE ||
        (flags != 0 && flags != MEMKIND_MASK_PAGE_SIZE_2MB) || !kind) {
        mk_log(LOCI_LOG_WARN, "memkind_create_kind: invalid memory type, policy, flags or NULL kind");
        return MEMKIND_ERROR_INVALID;
    }
    for (size_t i = 0; i < sizeof combinations / sizeof *combinations; i++) {
        const combination_t *c = &combinations[i];
        if (c->memtype != memtype_flags || c->policy != policy || c->flags != flags)
            continue;
        memkind_t k = &mk_static_kinds[c->partition];
        if (memkind_check_available(k) == MEMKIND_SUCCESS)
            *kind = k;
        else if (policy == MEMKIND_POLICY_PREFERRED_LOCAL)
            *kind = MEMKIND_DEFAULT; /* memkind's preferred: standard memory when there is none of the type */
        else
            return MEMKIND_ERROR_MEMTYPE_NOT_AVAILABLE;
        return MEMKIND_SUCCESS;
    }
    mk_log(LOCI_LOG_WARN, "memkind_create_kind: memkind implements no kind of that memory type, policy and flags");
    return MEMKIND_ERROR_INVALID;
}

MK_EXPORT int memkind_destroy_kind(memkind_t kind)
{
    if (kind_is_static(kind))
        return MEMKIND_SUCCESS; /* memkind_create_kind hands out static kinds: nothing to undo */
    int rc = kind_check("memkind_destroy_kind", kind);
    if (rc != MEMKIND_SUCCESS)
        return registry_holds(kind) ? MEMKIND_ERROR_OPERATION_FAILED : rc;
    plan_release(kind);
    registry_give_back(kind);
    return MEMKIND_SUCCESS;
}

MK_EXPORT int memkind_get_kind_by_partition(int partition, memkind_t *kind)
{
    if (!kind)
        return MEMKIND_ERROR_INVALID;
    if (partition < 0 || partition >= MEMKIND_NUM_BASE_KIND)
        return MEMKIND_ERROR_UNAVAILABLE;
    *kind = &mk_static_kinds[partition];
    return MEMKIND_SUCCESS;
}

MK_EXPORT int memkind_create_fixed(void *addr, size_t size, memkind_t *kind)
{
    mk_log(LOCI_LOG_ERROR, "memkind_create_fixed: loci places memory it maps itself and has no heap over memory "
                           "the program mapped (docs/MEMKIND.md); use memkind_create_pmem or a MEMKIND_* kind");
    return MEMKIND_ERROR_UNAVAILABLE;
}
