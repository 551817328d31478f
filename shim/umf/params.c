/*
 * Provider params (loci_umf.h). UMF passes them to the provider as an
 * untyped pointer, so anything may arrive: another provider's params, a
 * destroyed one, a stray pointer. Every params object this library made is
 * kept in a table, and the provider reads only what the table knows: a
 * pointer it does not know is refused without being read.
 */
#include "umf_shim.h"

#include "addr_table.h" /* src/util */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct umf_loci_memory_provider_params_t {
    umf_shim_params_t p;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static addr_table_t live = ADDR_TABLE_INIT;

static void fork_lock(void) { pthread_mutex_lock(&lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&lock); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

/* The params at h when this library made them and they live; the caller holds the lock. */
static umf_shim_params_t *known(const void *h)
{
    struct umf_loci_memory_provider_params_t *found = addr_table_find(&live, (uintptr_t)h);
    return found && found == h ? &found->p : NULL;
}

static umf_result_t unknown(const char *call, const void *h)
{
    return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                            "%s: %p is not params made by umfLociMemoryProviderParamsCreate (another provider's, "
                            "destroyed already, or none)", call, h);
}

UMF_SHIM_EXPORT umf_result_t umfLociMemoryProviderParamsCreate(umf_loci_memory_provider_params_handle_t *hParams)
{
    if (!hParams)
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "umfLociMemoryProviderParamsCreate: NULL handle");
    struct umf_loci_memory_provider_params_t *h = calloc(1, sizeof *h);
    char *intent = strdup("");
    pthread_mutex_lock(&lock);
    bool added = h && intent && addr_table_add(&live, (uintptr_t)h, sizeof *h, h);
    pthread_mutex_unlock(&lock);
    if (!added) {
        free(h);
        free(intent);
        return native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM,
                                "umfLociMemoryProviderParamsCreate: out of memory");
    }
    h->p = (umf_shim_params_t){.intent = intent, .name = LOCI_UMF_PROVIDER_NAME};
    *hParams = h;
    return UMF_RESULT_SUCCESS;
}

UMF_SHIM_EXPORT umf_result_t umfLociMemoryProviderParamsDestroy(umf_loci_memory_provider_params_handle_t hParams)
{
    if (!hParams)
        return UMF_RESULT_SUCCESS;
    pthread_mutex_lock(&lock);
    bool ours = known(hParams) != NULL;
    if (ours)
        addr_table_remove(&live, (uintptr_t)hParams);
    pthread_mutex_unlock(&lock);
    if (!ours)
        return unknown("umfLociMemoryProviderParamsDestroy", hParams);
    free(hParams->p.intent);
    free(hParams);
    return UMF_RESULT_SUCCESS;
}

/* What a setter does to params it knows (the lock held); a UMF code. */
typedef umf_result_t (*set_fn)(umf_shim_params_t *p, const void *arg);

static umf_result_t set(const char *call, const void *h, set_fn fn, const void *arg)
{
    pthread_mutex_lock(&lock);
    umf_shim_params_t *p = known(h);
    umf_result_t r = p ? fn(p, arg) : unknown(call, h);
    pthread_mutex_unlock(&lock);
    return r;
}

static umf_result_t set_intent(umf_shim_params_t *p, const void *arg)
{
    char *intent = strdup(arg ? arg : "");
    if (!intent)
        return native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM,
                                "umfLociMemoryProviderParamsSetIntent: out of memory");
    free(p->intent);
    p->intent = intent;
    return UMF_RESULT_SUCCESS;
}

UMF_SHIM_EXPORT umf_result_t umfLociMemoryProviderParamsSetIntent(umf_loci_memory_provider_params_handle_t hParams,
                                                                  const char *intent)
{
    return set("umfLociMemoryProviderParamsSetIntent", hParams, set_intent, intent);
}

static umf_result_t set_max_size(umf_shim_params_t *p, const void *arg)
{
    p->max_size = *(const size_t *)arg;
    return UMF_RESULT_SUCCESS;
}

UMF_SHIM_EXPORT umf_result_t umfLociMemoryProviderParamsSetMaxSize(umf_loci_memory_provider_params_handle_t hParams,
                                                                   size_t max_size)
{
    return set("umfLociMemoryProviderParamsSetMaxSize", hParams, set_max_size, &max_size);
}

static umf_result_t set_visibility(umf_shim_params_t *p, const void *arg)
{
    umf_memory_visibility_t v = *(const umf_memory_visibility_t *)arg;
    if (v != UMF_MEM_MAP_PRIVATE && v != UMF_MEM_MAP_SHARED)
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "umfLociMemoryProviderParamsSetVisibility: %d is neither UMF_MEM_MAP_PRIVATE (%d) "
                                "nor UMF_MEM_MAP_SHARED (%d)", (int)v, UMF_MEM_MAP_PRIVATE, UMF_MEM_MAP_SHARED);
    p->shared = v == UMF_MEM_MAP_SHARED;
    return UMF_RESULT_SUCCESS;
}

UMF_SHIM_EXPORT umf_result_t
umfLociMemoryProviderParamsSetVisibility(umf_loci_memory_provider_params_handle_t hParams,
                                         umf_memory_visibility_t visibility)
{
    return set("umfLociMemoryProviderParamsSetVisibility", hParams, set_visibility, &visibility);
}

static umf_result_t set_name(umf_shim_params_t *p, const void *arg)
{
    const char *name = arg;
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > UMF_SHIM_NAME_MAX || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789_-") != n)
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "umfLociMemoryProviderParamsSetName: \"%.80s\" is not 1-%d of [A-Za-z0-9_-]",
                                name ? name : "(null)", UMF_SHIM_NAME_MAX);
    memcpy(p->name, name, n + 1);
    return UMF_RESULT_SUCCESS;
}

UMF_SHIM_EXPORT umf_result_t umfLociMemoryProviderParamsSetName(umf_loci_memory_provider_params_handle_t hParams,
                                                                const char *name)
{
    return set("umfLociMemoryProviderParamsSetName", hParams, set_name, name);
}

bool params_copy(const void *params, umf_shim_params_t *out, bool *no_memory)
{
    pthread_mutex_lock(&lock);
    const umf_shim_params_t *p = known(params);
    if (p) {
        *out = *p;
        out->intent = strdup(p->intent);
    }
    pthread_mutex_unlock(&lock);
    *no_memory = p && !out->intent;
    return p && out->intent;
}
