/*
 * UMF memspaces from intents: the NUMA nodes an intent resolves to, best
 * first, for UMF code that takes a memspace. UMF's predefined memspaces
 * come from HMAT alone; loci's ranking also knows measured figures and
 * LOCI_CONFIG, so "bandwidth=high!" finds high-bandwidth memory where
 * umfMemspaceHighestBandwidthGet() has no figures to go by.
 */
#include "umf_shim.h"

#include <errno.h>
#include <stdlib.h>

UMF_SHIM_EXPORT umf_result_t umfLociMemspaceCreate(const char *intent, umf_memspace_handle_t *hMemspace)
{
    if (!intent || !hMemspace)
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "umfLociMemspaceCreate: NULL %s", intent ? "memspace handle" : "intent");
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a)
        return native_error_errno(errno);
    int n = loci_allocator_targets(a, NULL, 0);
    const loci_target_t **t = calloc(n > 0 ? (size_t)n : 1, sizeof *t);
    unsigned *nodes = calloc(n > 0 ? (size_t)n : 1, sizeof *nodes);
    int got = t && nodes ? loci_allocator_targets(a, t, n) : 0;
    size_t count = 0;
    bool simulated = false;
    for (int i = 0; i < got && i < n; i++) {
        loci_target_info_t info;
        if (loci_target_info(t[i], &info) != 0 || info.numa_node < 0)
            continue;
        simulated |= (info.flags & LOCI_TARGET_SIMULATED) != 0;
        nodes[count++] = (unsigned)info.numa_node;
    }
    umf_result_t r;
    if (!t || !nodes)
        r = native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM, "umfLociMemspaceCreate: out of memory");
    else if (simulated || count == 0)
        r = native_error_set(UMF_RESULT_ERROR_NOT_SUPPORTED, LOCI_ENOTSUP,
                             "umfLociMemspaceCreate: intent \"%s\" gives %s: a UMF memspace holds NUMA nodes of this "
                             "machine", loci_allocator_intent(a),
                             simulated ? "NUMA nodes of an injected topology (LOCI_TOPOLOGY)" : "no NUMA node");
    else if ((r = umfMemspaceCreateFromNumaArray(nodes, count, hMemspace)) != UMF_RESULT_SUCCESS)
        native_error_set(r, LOCI_EINVAL, "umfLociMemspaceCreate: UMF made no memspace of the %zu NUMA nodes of "
                         "intent \"%s\" (UMF error %d)", count, loci_allocator_intent(a), (int)r);
    free(t);
    free(nodes);
    loci_allocator_destroy(a);
    return r;
}
