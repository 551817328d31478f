/*
 * loci as a UMF memory provider: libloci-umf.so, for programs written for
 * the oneAPI Unified Memory Framework (UMF 1.x). Manual: docs/UMF.md.
 *
 * A provider made from umfLociMemoryProviderOps() is a loci arena
 * (docs/ARENAS.md) placed by an intent: UMF's pools (disjoint, proxy,
 * scalable) run on it as on UMF's own providers, and loci_ptr_target,
 * loci_ptr_arena, loci_arena_move, loci_ckpt_register work on its memory.
 *
 *   umf_loci_memory_provider_params_handle_t params;
 *   umfLociMemoryProviderParamsCreate(&params);
 *   umfLociMemoryProviderParamsSetIntent(params, "bandwidth=high");
 *   umfMemoryProviderCreate(umfLociMemoryProviderOps(), params, &provider);
 *   umfLociMemoryProviderParamsDestroy(params);
 *   umfPoolCreate(umfDisjointPoolOps(), provider, pool_params,
 *                 UMF_POOL_CREATE_FLAG_OWN_PROVIDER, &pool);
 *
 * Errors are UMF's codes. UMF_RESULT_ERROR_MEMORY_PROVIDER_SPECIFIC means a
 * loci failure with no UMF equivalent. Whatever the code,
 * umfMemoryProviderGetLastNativeError gives the calling thread's last
 * failure: a LOCI_E* code and a message saying what to change. When
 * umfMemoryProviderCreate failed there is no provider to ask:
 * umfLociMemoryProviderOps()->get_last_native_error(NULL, &message, &code)
 * answers then (as ops->get_name(NULL, ...) does for UMF's providers).
 * Every function is thread-safe; providers may be used across fork().
 */
#ifndef LOCI_UMF_H
#define LOCI_UMF_H

#include <umf/experimental/memspace.h>
#include <umf/memory_provider.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The provider's name, as UMF's providers have theirs ("OS", "FILE"...). */
#define LOCI_UMF_PROVIDER_NAME "LOCI"

/** What a provider is made from (umfMemoryProviderCreate's params). */
typedef struct umf_loci_memory_provider_params_t *umf_loci_memory_provider_params_handle_t;

/** The provider's operations, for umfMemoryProviderCreate. Its params must
 *  come from umfLociMemoryProviderParamsCreate: NULL, anything else
 *  (another provider's params, params already destroyed) gives
 *  UMF_RESULT_ERROR_INVALID_ARGUMENT. */
const umf_memory_provider_ops_t *umfLociMemoryProviderOps(void);

/** New params: intent "" (the calling thread's local DRAM), no size limit,
 *  private visibility, name "LOCI". UMF_RESULT_ERROR_INVALID_ARGUMENT for
 *  NULL, UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY. */
umf_result_t umfLociMemoryProviderParamsCreate(umf_loci_memory_provider_params_handle_t *hParams);

/** Release params (a provider made from them keeps what it took). NULL is
 *  fine; params not from umfLociMemoryProviderParamsCreate give
 *  UMF_RESULT_ERROR_INVALID_ARGUMENT and are left alone. */
umf_result_t umfLociMemoryProviderParamsDestroy(umf_loci_memory_provider_params_handle_t hParams);

/** Where the provider's memory goes: any loci intent (docs/INTENTS.md),
 *  e.g. "bandwidth=high", "capacity=large,kind=cxl", "tier=auto". NULL or ""
 *  is local DRAM. Copied. The intent is resolved when the provider is made:
 *  a malformed or unsatisfiable one fails umfMemoryProviderCreate with
 *  UMF_RESULT_ERROR_INVALID_ARGUMENT, naming the term. */
umf_result_t umfLociMemoryProviderParamsSetIntent(umf_loci_memory_provider_params_handle_t hParams,
                                                  const char *intent);

/** The most bytes the provider hands out at once (0: no limit, the
 *  default): past it, allocations fail with
 *  UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY. A shared provider reserves its
 *  address range at this size (0: 256 MiB). */
umf_result_t umfLociMemoryProviderParamsSetMaxSize(umf_loci_memory_provider_params_handle_t hParams,
                                                   size_t max_size);

/** UMF_MEM_MAP_PRIVATE (the default), or UMF_MEM_MAP_SHARED: the provider
 *  is a shared arena (loci_arena_create_shared) that other processes of the
 *  user open through UMF's IPC handles (umfGetIPCHandle, umfOpenIPCHandle);
 *  its intent must resolve to a NUMA node. A private provider answers the
 *  IPC calls with UMF_RESULT_ERROR_NOT_SUPPORTED. */
umf_result_t umfLociMemoryProviderParamsSetVisibility(umf_loci_memory_provider_params_handle_t hParams,
                                                      umf_memory_visibility_t visibility);

/** The name umfMemoryProviderGetName gives (1-64 of [A-Za-z0-9_-], as UMF
 *  asks of names; copied). Default "LOCI". */
umf_result_t umfLociMemoryProviderParamsSetName(umf_loci_memory_provider_params_handle_t hParams,
                                                const char *name);

/** A UMF memspace of the NUMA nodes `intent` resolves to from the calling
 *  thread, best first: what loci would place on, for UMF code that takes a
 *  memspace (umfPoolCreateFromMemspace, umfMemoryProviderCreateFromMemspace).
 *  "bandwidth=high!" is the counterpart of umfMemspaceHighestBandwidthGet(),
 *  from loci's figures (HMAT, measured, or LOCI_CONFIG). Destroy it with
 *  umfMemspaceDestroy. UMF_RESULT_ERROR_INVALID_ARGUMENT for NULL, a
 *  malformed intent or one nothing here satisfies;
 *  UMF_RESULT_ERROR_NOT_SUPPORTED when none of its targets is a NUMA node of
 *  this machine (file tiers, GPU memory, an injected LOCI_TOPOLOGY). */
umf_result_t umfLociMemspaceCreate(const char *intent, umf_memspace_handle_t *hMemspace);

#ifdef __cplusplus
}
#endif
#endif /* LOCI_UMF_H */
