/*
 * UMF's IPC test across processes (its test/ipc_os_prov_{producer,consumer}.c, with
 * test/common/ipc_common.c) on loci's provider: `ipc_process producer|consumer PORT`. Both
 * make a shared loci provider under UMF's disjoint pool; the producer puts a number in its
 * memory and sends an IPC handle over a socket, the consumer opens it, reads the number and
 * writes half of it into the producer's memory, which the producer then checks.
 */
#include <loci_umf.h>

#include <umf/pools/pool_disjoint.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ipc_common.h"

/* run_producer lets its parent ptrace it (PR_SET_PTRACER), which UMF's OS provider needs to
 * take the producer's memfd (pidfd_getfd). Kernels without the Yama LSM have no such setting
 * and say EINVAL; loci's shared arenas are files the consumer opens itself, so that is no
 * failure here. Every other prctl goes to the kernel as it is. */
int prctl(int option, ...)
{
    va_list ap;
    va_start(ap, option);
    unsigned long a[4];
    for (int i = 0; i < 4; i++)
        a[i] = va_arg(ap, unsigned long);
    va_end(ap);
    long r = syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
    if (r == -1 && option == PR_SET_PTRACER && errno == EINVAL && access("/proc/sys/kernel/yama", F_OK) != 0)
        r = 0;
    return (int)r;
}

static void copy(void *dst, const void *src, size_t size, void *context)
{
    (void)context;
    memcpy(dst, src, size);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "producer") && strcmp(argv[1], "consumer"))) {
        fprintf(stderr, "usage: %s producer|consumer PORT\n", argv[0]);
        return 2;
    }
    umf_loci_memory_provider_params_handle_t params = NULL;
    umf_disjoint_pool_params_handle_t pool_params = NULL;
    int ret = -1;
    if (umfLociMemoryProviderParamsCreate(&params) == UMF_RESULT_SUCCESS &&
        umfLociMemoryProviderParamsSetVisibility(params, UMF_MEM_MAP_SHARED) == UMF_RESULT_SUCCESS &&
        umfDisjointPoolParamsCreate(&pool_params) == UMF_RESULT_SUCCESS)
        ret = (strcmp(argv[1], "producer") ? run_consumer : run_producer)(
            atoi(argv[2]), umfDisjointPoolOps(), pool_params, umfLociMemoryProviderOps(), params, copy, NULL);
    else
        fprintf(stderr, "[%s] ERROR: no provider or pool params\n", argv[1]);
    umfDisjointPoolParamsDestroy(pool_params);
    umfLociMemoryProviderParamsDestroy(params);
    return ret == 0 ? 0 : 1;
}
