/*
 * hbwmalloc, memkind's high-bandwidth interface, as memkind implements it on
 * its kinds: the policy chooses the kind once per page size (set once,
 * before the first allocation; HBW_POLICY_PREFERRED by default, which is
 * standard memory on a machine without high-bandwidth memory), and every
 * call is the memkind call on that kind. hbw_free and
 * hbw_malloc_usable_size need no kind: loci knows its blocks.
 */
#include "memkind_shim.h"

#include <errno.h>

/* The policy once fixed (0: not yet, HBW_POLICY_PREFERRED applies): the
 * first hbw_set_policy or allocation fixes it, without a lock (fork-safe). */
static _Atomic int fixed_policy;
static _Atomic(memkind_t) kind_by_pagesize[HBW_PAGESIZE_MAX_VALUE];

MK_EXPORT hbw_policy_t hbw_get_policy(void)
{
    int p = atomic_load(&fixed_policy);
    return p ? (hbw_policy_t)p : HBW_POLICY_PREFERRED;
}

MK_EXPORT int hbw_set_policy(hbw_policy_t mode)
{
    if (mode != HBW_POLICY_BIND && mode != HBW_POLICY_PREFERRED && mode != HBW_POLICY_BIND_ALL &&
        mode != HBW_POLICY_INTERLEAVE)
        return EINVAL;
    int unset = 0;
    atomic_compare_exchange_strong(&fixed_policy, &unset, (int)mode);
    return mode == hbw_get_policy() ? 0 : EPERM;
}

static memkind_t choose(hbw_pagesize_t pagesize)
{
    hbw_set_policy(hbw_get_policy()); /* the first allocation fixes the policy */
    bool huge = pagesize == HBW_PAGESIZE_2MB, gigantic = pagesize == HBW_PAGESIZE_1GB ||
                                                         pagesize == HBW_PAGESIZE_1GB_STRICT;
    switch (hbw_get_policy()) {
    case HBW_POLICY_BIND:
        return gigantic ? MEMKIND_HBW_GBTLB : huge ? MEMKIND_HBW_HUGETLB : MEMKIND_HBW;
    case HBW_POLICY_BIND_ALL:
        return gigantic ? MEMKIND_HBW_GBTLB : huge ? MEMKIND_HBW_ALL_HUGETLB : MEMKIND_HBW_ALL;
    case HBW_POLICY_INTERLEAVE:
        return MEMKIND_HBW_INTERLEAVE;
    default:
        if (memkind_check_available(MEMKIND_HBW) == MEMKIND_SUCCESS)
            return gigantic ? MEMKIND_HBW_PREFERRED_GBTLB : huge ? MEMKIND_HBW_PREFERRED_HUGETLB
                                                                 : MEMKIND_HBW_PREFERRED;
        return gigantic ? MEMKIND_GBTLB : huge ? MEMKIND_HUGETLB : MEMKIND_DEFAULT;
    }
}

static memkind_t hbw_kind(hbw_pagesize_t pagesize)
{
    memkind_t k = atomic_load(&kind_by_pagesize[pagesize]);
    if (!k) {
        memkind_t none = NULL, mine = choose(pagesize);
        k = atomic_compare_exchange_strong(&kind_by_pagesize[pagesize], &none, mine) ? mine : none;
    }
    return k;
}

MK_EXPORT int hbw_check_available(void)
{
    return memkind_check_available(MEMKIND_HBW) == MEMKIND_SUCCESS ? 0 : ENODEV;
}

MK_EXPORT void *hbw_malloc(size_t size) { return memkind_malloc(hbw_kind(HBW_PAGESIZE_4KB), size); }

MK_EXPORT void *hbw_calloc(size_t num, size_t size) { return memkind_calloc(hbw_kind(HBW_PAGESIZE_4KB), num, size); }

MK_EXPORT int hbw_posix_memalign(void **memptr, size_t alignment, size_t size)
{
    return memkind_posix_memalign(hbw_kind(HBW_PAGESIZE_4KB), memptr, alignment, size);
}

MK_EXPORT int hbw_posix_memalign_psize(void **memptr, size_t alignment, size_t size, hbw_pagesize_t pagesize)
{
    if (pagesize < HBW_PAGESIZE_4KB || pagesize >= HBW_PAGESIZE_MAX_VALUE)
        return EINVAL;
    if (pagesize == HBW_PAGESIZE_1GB_STRICT && size % (1ul << 30))
        return EINVAL;
    if (pagesize != HBW_PAGESIZE_4KB && hbw_get_policy() == HBW_POLICY_INTERLEAVE)
        return EINVAL; /* memkind: interleaving takes small pages only */
    return memkind_posix_memalign(hbw_kind(pagesize), memptr, alignment, size);
}

MK_EXPORT void *hbw_realloc(void *ptr, size_t size) { return memkind_realloc(hbw_kind(HBW_PAGESIZE_4KB), ptr, size); }

MK_EXPORT void hbw_free(void *ptr) { memkind_free(NULL, ptr); }

MK_EXPORT size_t hbw_malloc_usable_size(void *ptr) { return memkind_malloc_usable_size(NULL, ptr); }
