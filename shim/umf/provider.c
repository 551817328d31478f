/*
 * The provider: UMF's memory provider operations over one loci arena.
 *
 * An arena, not an allocator, because a provider is a source of memory
 * with an identity of its own: its blocks never share a page with other
 * memory, so loci_arena_move moves exactly a pool's memory, tier=auto tiers
 * it by its own heat, and a size limit is the arena's max_bytes. UMF's pools
 * ask for pages (slabs, big blocks); loci's arena heap serves any size.
 */
#include "umf_shim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static umf_result_t initialize(const void *params, void **provider)
{
    umf_shim_params_t p;
    bool no_memory;
    if (!params_copy(params, &p, &no_memory))
        return no_memory ? native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM,
                                            "loci provider: out of memory")
                         : native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                            "loci provider: params %p were not made by "
                                            "umfLociMemoryProviderParamsCreate (another provider's, destroyed "
                                            "already, or none)", params);
    umf_shim_provider_t *pv = calloc(1, sizeof *pv);
    umf_result_t r = UMF_RESULT_SUCCESS;
    if (!pv)
        r = native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM, "loci provider: out of memory");
    else if (p.shared)
        pv->arena = ipc_arena_create(p.intent, p.max_size, pv->arena_name);
    else
        pv->arena = loci_arena_create(p.intent, p.max_size);
    if (pv && !pv->arena)
        r = native_error_errno(errno);
    if (r == UMF_RESULT_SUCCESS) {
        pv->shared = p.shared;
        memcpy(pv->name, p.name, sizeof pv->name);
        loci_target_info_t t;
        if (umf_shim_log_on(LOCI_LOG_INFO) && loci_target_info(loci_arena_target(pv->arena), &t) == 0)
            umf_shim_log(LOCI_LOG_INFO, "provider %s: intent \"%s\" on %s%s%s", pv->name, p.intent, t.name,
                         pv->shared ? ", shared arena " : "", pv->arena_name);
        *provider = pv;
    }
    else
        free(pv);
    free(p.intent);
    return r;
}

static umf_result_t finalize(void *provider)
{
    umf_shim_provider_t *pv = provider;
    ledger_forget(pv);
    loci_arena_destroy(pv->arena);
    free(pv);
    return UMF_RESULT_SUCCESS;
}

static umf_result_t alloc(void *provider, size_t size, size_t alignment, void **ptr)
{
    umf_shim_provider_t *pv = provider;
    *ptr = NULL;
    if (size == 0)
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "loci provider %s: an allocation of 0 bytes", pv->name);
    if (alignment & (alignment - 1))
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "loci provider %s: alignment %zu is not a power of two", pv->name, alignment);
    /* UMF's providers hand out whole pages, and pools may count on it */
    if (alignment == 0 && size >= page_size())
        alignment = page_size();
    void *p = alignment ? loci_arena_aligned_alloc(pv->arena, alignment, size) : loci_arena_alloc(pv->arena, size);
    if (!p)
        return native_error_errno(errno);
    if (ledger_add(pv, p, size) != 0) {
        loci_free(p);
        return native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM,
                                "loci provider %s: out of memory to record a block", pv->name);
    }
    size_t now = atomic_fetch_add(&pv->allocated, size) + size, peak = atomic_load(&pv->peak);
    while (now > peak && !atomic_compare_exchange_weak(&pv->peak, &peak, now))
        ;
    *ptr = p;
    return UMF_RESULT_SUCCESS;
}

static umf_result_t free_(void *provider, void *ptr, size_t size)
{
    umf_shim_provider_t *pv = provider;
    size_t freed;
    if (!ptr)
        return UMF_RESULT_SUCCESS;
    if (ledger_free(pv, ptr, size, &freed) != 0)
        return freed ? native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                        "loci provider %s: free of %zu bytes at %p, which has %zu", pv->name,
                                        size, ptr, freed)
                     : native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                        "loci provider %s: free of %p, which it did not hand out (or freed "
                                        "already)", pv->name, ptr);
    atomic_fetch_sub(&pv->allocated, freed);
    return UMF_RESULT_SUCCESS;
}

static umf_result_t get_last_native_error(void *provider, const char **message, int32_t *error)
{
    native_error_last(message, error);
    return UMF_RESULT_SUCCESS;
}

static umf_result_t get_recommended_page_size(void *provider, size_t size, size_t *page)
{
    *page = page_size();
    return UMF_RESULT_SUCCESS;
}

static umf_result_t get_min_page_size(void *provider, const void *ptr, size_t *page)
{
    *page = page_size();
    return UMF_RESULT_SUCCESS;
}

static umf_result_t get_name(void *provider, const char **name)
{
    *name = provider ? ((umf_shim_provider_t *)provider)->name : LOCI_UMF_PROVIDER_NAME;
    return UMF_RESULT_SUCCESS;
}

static umf_result_t get_cache_line_size(void *provider, size_t *size)
{
    long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    *size = line > 0 ? (size_t)line : 64;
    return UMF_RESULT_SUCCESS;
}

/* A purge's range: page-aligned, inside one piece of the provider's. */
static umf_result_t purge_check(const umf_shim_provider_t *pv, const char *call, const void *ptr, size_t size)
{
    if ((uintptr_t)ptr % page_size())
        return native_error_set(UMF_RESULT_ERROR_INVALID_ALIGNMENT, LOCI_EINVAL,
                                "loci provider %s: %s of %p, not page-aligned", pv->name, call, ptr);
    if (!ledger_holds(pv, ptr, size))
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "loci provider %s: %s of %zu bytes at %p, not inside memory it handed out",
                                pv->name, call, size, ptr);
    return UMF_RESULT_SUCCESS;
}

/* UMF lets a lazy purge wait forever: what freed memory stays resident is
 * loci's pool's to decide, when the pieces are freed. */
static umf_result_t purge_lazy(void *provider, void *ptr, size_t size)
{
    return purge_check(provider, "purge_lazy", ptr, size);
}

/* What UMF promises of a forced purge is zeros at the next access; loci's
 * API gives no pages of a live block back, so the range is zeroed. */
static umf_result_t purge_force(void *provider, void *ptr, size_t size)
{
    umf_shim_provider_t *pv = provider;
    umf_result_t r = purge_check(pv, "purge_force", ptr, size);
    loci_target_info_t t;
    if (r == UMF_RESULT_SUCCESS && loci_target_info(loci_ptr_target(ptr), &t) == 0 &&
        !(t.flags & LOCI_TARGET_CPU_ACCESSIBLE))
        r = native_error_set(UMF_RESULT_ERROR_NOT_SUPPORTED, LOCI_ENOTSUP,
                             "loci provider %s: purge_force of %s memory, which the CPU cannot zero", pv->name,
                             t.name);
    if (r == UMF_RESULT_SUCCESS)
        memset(ptr, 0, size);
    return r;
}

static umf_result_t allocation_split(void *provider, void *ptr, size_t total, size_t first)
{
    umf_shim_provider_t *pv = provider;
    int rc = ledger_split(pv, ptr, total, first);
    if (rc == LOCI_ENOMEM)
        return native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, rc, "loci provider %s: out of memory",
                                pv->name);
    return rc ? native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, rc,
                                 "loci provider %s: split of %zu bytes at %p after %zu: no such piece, or the "
                                 "split is not inside it", pv->name, total, ptr, first)
              : UMF_RESULT_SUCCESS;
}

static umf_result_t allocation_merge(void *provider, void *low, void *high, size_t total)
{
    umf_shim_provider_t *pv = provider;
    return ledger_merge(pv, low, high, total)
               ? native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                  "loci provider %s: merge of %p and %p into %zu bytes: not two adjacent pieces "
                                  "of that size", pv->name, low, high, total)
               : UMF_RESULT_SUCCESS;
}

/* UMF's CTL asks providers for their stats (umf.provider.by_handle.{}.stats.*). */
static umf_result_t ctl(void *provider, umf_ctl_query_source_t source, const char *name, void *arg, size_t size,
                        umf_ctl_query_type_t query, va_list args)
{
    umf_shim_provider_t *pv = provider;
    bool allocated = strcmp(name, "stats.allocated_memory") == 0, peak = strcmp(name, "stats.peak_memory") == 0;
    if ((allocated || peak) && query == CTL_QUERY_READ) {
        if (!arg || size != sizeof(size_t))
            return UMF_RESULT_ERROR_INVALID_ARGUMENT;
        *(size_t *)arg = atomic_load(allocated ? &pv->allocated : &pv->peak);
        return UMF_RESULT_SUCCESS;
    }
    if (strcmp(name, "stats.peak_memory.reset") == 0 && query == CTL_QUERY_RUNNABLE) {
        atomic_store(&pv->peak, atomic_load(&pv->allocated));
        return UMF_RESULT_SUCCESS;
    }
    return UMF_RESULT_ERROR_INVALID_CTL_PATH;
}

static const umf_memory_provider_ops_t ops = {
    .version = UMF_PROVIDER_OPS_VERSION_CURRENT,
    .initialize = initialize, .finalize = finalize, .alloc = alloc, .free = free_,
    .get_last_native_error = get_last_native_error, .get_name = get_name,
    .get_recommended_page_size = get_recommended_page_size, .get_min_page_size = get_min_page_size,
    .get_cache_line_size = get_cache_line_size,
    /* the optional groups: purges, split and merge (ledger.c), IPC (ipc.c), CTL */
    .ext_purge_lazy = purge_lazy, .ext_purge_force = purge_force,
    .ext_allocation_merge = allocation_merge, .ext_allocation_split = allocation_split,
    .ext_get_ipc_handle_size = ipc_handle_size, .ext_get_ipc_handle = ipc_handle_get,
    .ext_put_ipc_handle = ipc_handle_put, .ext_open_ipc_handle = ipc_handle_open,
    .ext_close_ipc_handle = ipc_handle_close,
    .ext_ctl = ctl,
};

UMF_SHIM_EXPORT const umf_memory_provider_ops_t *umfLociMemoryProviderOps(void) { return &ops; }
