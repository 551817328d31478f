/*
 * The OpenMP runtime the program runs with. Both use the same numbering
 * (abi.h); what this file knows is which one is loaded, its own entry points
 * for what loci did not make, and the handles only it defines.
 */
#include "shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* libomp's llvm_omp_target_{host,shared,device}_mem_alloc and _mem_space. */
static const omp_handle_t libomp_own[] = {100, 101, 102, 0};
static const omp_handle_t none_own[] = {0};

static shim_runtime_t rt;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The definition after ours in the lookup order: the runtime's. */
#define NEXT(field, name) (rt.field = (__typeof__(rt.field))dlsym(RTLD_NEXT, name))

static void find(void)
{
    /* libomp (and Intel's libiomp5) also export GOMP_* for GCC-built code,
     * so its __kmpc_ entry point is asked first. */
    void *kmpc = dlsym(RTLD_DEFAULT, "__kmpc_fork_call");
    void *gomp = kmpc ? NULL : dlsym(RTLD_DEFAULT, "GOMP_parallel");
    rt.name = kmpc ? "libomp" : gomp ? "libgomp" : "no OpenMP runtime";
    rt.own = kmpc ? libomp_own : none_own;
    Dl_info info;
    if ((kmpc || gomp) && dladdr(kmpc ? kmpc : gomp, &info) && info.dli_fname)
        snprintf(rt.path, sizeof rt.path, "%s", info.dli_fname);
    NEXT(aligned_alloc, "omp_aligned_alloc");
    NEXT(aligned_calloc, "omp_aligned_calloc");
    NEXT(realloc, "omp_realloc");
    NEXT(free, "omp_free");
    NEXT(init_allocator, "omp_init_allocator");
    NEXT(destroy_allocator, "omp_destroy_allocator");
    NEXT(set_default_allocator, "omp_set_default_allocator");
    NEXT(get_default_allocator, "omp_get_default_allocator");
}

const shim_runtime_t *shim_runtime(void)
{
    pthread_once(&once, find);
    return &rt;
}

static bool own(omp_handle_t h)
{
    for (const omp_handle_t *o = shim_runtime()->own; *o; o++)
        if (*o == h)
            return true;
    return false;
}

bool shim_runtime_allocator(omp_handle_t a) { return a >= SHIM_HANDLE_END || own(a); }

bool shim_runtime_memspace(omp_handle_t m) { return own(m); }
