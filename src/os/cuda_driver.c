/*
 * Loading the CUDA driver (see cuda_driver.h). Once per process: the
 * library stays loaded until exit, as the driver expects.
 */
#include "os/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cuda_api_t api;
static const cuda_api_t *loaded;
static char why_not[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Each member and the documented symbol it comes from (the _v2 names are
 * what cuda.h maps the plain names to since CUDA 3.2). */
#define ENTRY(member, symbol) {#symbol, offsetof(cuda_api_t, member)}
static const struct {
    const char *symbol;
    size_t offset;
} entries[] = {
    ENTRY(Init, cuInit),
    ENTRY(DriverGetVersion, cuDriverGetVersion),
    ENTRY(GetErrorString, cuGetErrorString),
    ENTRY(DeviceGetCount, cuDeviceGetCount),
    ENTRY(DeviceGet, cuDeviceGet),
    ENTRY(DeviceGetAttribute, cuDeviceGetAttribute),
    ENTRY(DeviceGetPCIBusId, cuDeviceGetPCIBusId),
    ENTRY(DeviceTotalMem, cuDeviceTotalMem_v2),
    ENTRY(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain),
    ENTRY(CtxPushCurrent, cuCtxPushCurrent_v2),
    ENTRY(CtxPopCurrent, cuCtxPopCurrent_v2),
    ENTRY(CtxSynchronize, cuCtxSynchronize),
    ENTRY(MemGetInfo, cuMemGetInfo_v2),
    ENTRY(MemAlloc, cuMemAlloc_v2),
    ENTRY(MemAllocManaged, cuMemAllocManaged),
    ENTRY(MemFree, cuMemFree_v2),
    ENTRY(MemHostRegister, cuMemHostRegister_v2),
    ENTRY(MemHostUnregister, cuMemHostUnregister),
    ENTRY(MemsetD8, cuMemsetD8_v2),
    ENTRY(Memcpy, cuMemcpy),
    ENTRY(MemPrefetchAsync, cuMemPrefetchAsync),
    ENTRY(MemAdvise, cuMemAdvise),
    ENTRY(PointerGetAttribute, cuPointerGetAttribute),
    ENTRY(MemRangeGetAttribute, cuMemRangeGetAttribute),
};

static void load(void)
{
    const char *path = getenv("LOCI_CUDA_LIBRARY");
    if (!path || !*path)
        path = "libcuda.so.1";
    if (strcmp(path, "none") == 0) {
        snprintf(why_not, sizeof why_not, "LOCI_CUDA_LIBRARY=none");
        return;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why_not, sizeof why_not, "%s", dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
        void *fn = dlsym(lib, entries[i].symbol);
        if (!fn) {
            snprintf(why_not, sizeof why_not, "the CUDA driver %s has no %s: it is too old for loci, which needs "
                     "driver API version %d (CUDA %d.%d) or newer; no GPU targets", path, entries[i].symbol,
                     CUDA_DRIVER_MIN_VERSION, CUDA_DRIVER_MIN_VERSION / 1000, CUDA_DRIVER_MIN_VERSION % 1000 / 10);
            loci__log(LOCI_LOG_WARN, "%s", why_not);
            return; /* the library stays loaded: unloading a driver is not worth the risk */
        }
        memcpy((char *)&api + entries[i].offset, &fn, sizeof fn);
    }
    int version = 0;
    CUresult rc = api.Init(0);
    if (rc != CUDA_SUCCESS) {
        snprintf(why_not, sizeof why_not, "cuInit failed: %s", cuda_error_string(rc));
        if (rc != CUDA_ERROR_NO_DEVICE) /* no GPU is ordinary; a broken driver is worth a word */
            loci__log(LOCI_LOG_WARN, "CUDA driver %s: %s; no GPU targets", path, why_not);
        return;
    }
    if (api.DriverGetVersion(&version) != CUDA_SUCCESS || version < CUDA_DRIVER_MIN_VERSION) {
        snprintf(why_not, sizeof why_not, "the CUDA driver %s has API version %d; loci needs %d (CUDA %d.%d) or "
                 "newer for managed-memory prefetch and range attributes; no GPU targets (update the driver)",
                 path, version, CUDA_DRIVER_MIN_VERSION, CUDA_DRIVER_MIN_VERSION / 1000,
                 CUDA_DRIVER_MIN_VERSION % 1000 / 10);
        loci__log(LOCI_LOG_WARN, "%s", why_not);
        return;
    }
    loaded = &api;
}

const cuda_api_t *cuda_driver(const char **why)
{
    pthread_once(&load_once, load);
    if (why)
        *why = loaded ? NULL : why_not;
    return loaded;
}

const char *cuda_error_string(CUresult rc)
{
    const char *s = NULL;
    if (api.GetErrorString && api.GetErrorString(rc, &s) == CUDA_SUCCESS && s)
        return s;
    return rc == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : "unknown CUDA error";
}

int cuda_fail(CUresult rc, const char *call, int device)
{
    return loci__fail(rc == CUDA_ERROR_OUT_OF_MEMORY ? LOCI_ENOMEM : LOCI_EIO, "CUDA device %d: %s failed: %s (%d)",
                      device, call, cuda_error_string(rc), rc);
}

#define MAX_DEVICES 64

static CUcontext contexts[MAX_DEVICES];
static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;

int cuda_enter(int ordinal)
{
    const cuda_api_t *cu = cuda_driver(NULL);
    if (!cu || ordinal < 0 || ordinal >= MAX_DEVICES)
        return loci__fail(LOCI_ENOTSUP, "CUDA device %d: no such device here", ordinal);
    pthread_mutex_lock(&contexts_lock);
    CUresult rc = CUDA_SUCCESS;
    CUdevice dev;
    if (!contexts[ordinal] && (rc = cu->DeviceGet(&dev, ordinal)) == CUDA_SUCCESS)
        rc = cu->DevicePrimaryCtxRetain(&contexts[ordinal], dev);
    CUcontext ctx = contexts[ordinal];
    pthread_mutex_unlock(&contexts_lock);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(rc, "cuDevicePrimaryCtxRetain", ordinal);
    if ((rc = cu->CtxPushCurrent(ctx)) != CUDA_SUCCESS)
        return cuda_fail(rc, "cuCtxPushCurrent", ordinal);
    return 0;
}

void cuda_leave(void)
{
    CUcontext ctx;
    loaded->CtxPopCurrent(&ctx);
}
