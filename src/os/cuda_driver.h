/*
 * The CUDA driver API, as much of it as loci uses, loaded at run time with
 * dlopen("libcuda.so.1") (or $LOCI_CUDA_LIBRARY; "none" = do not look) and dlsym of the documented
 * entry points: loci has no build- or link-time dependency on CUDA. No
 * driver, a driver that fails cuInit or no device = no GPU, never an error;
 * a driver too old for what loci uses says so once (warning) and gives no GPU.
 *
 * The types and constants below are declared here, with the values of the
 * driver API's documentation (cuda.h), so that no CUDA header is needed.
 */
#ifndef LOCI_CUDA_DRIVER_H
#define LOCI_CUDA_DRIVER_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr; /* the _v2 entry points' 64-bit pointer */

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NOT_SUPPORTED = 801,
};

enum { /* CUdevice_attribute */
    CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,      /* kHz */
    CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37, /* bits */
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
    CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
    CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
};

enum { /* CUpointer_attribute */
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
};

enum { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2 }; /* CUmemorytype */

enum { /* CUmem_range_attribute */
    CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 4,
};

enum { CU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3 }; /* CUmem_advise */
enum { CU_MEM_ATTACH_GLOBAL = 1 };                /* cuMemAllocManaged flags */
enum { CU_MEMHOSTREGISTER_PORTABLE = 1 };         /* cuMemHostRegister flags */
#define CU_DEVICE_CPU ((CUdevice)-1)               /* the host, as a prefetch/advice location */
#define CU_DEVICE_INVALID ((CUdevice)-2)           /* a range without one location */

/* Driver version loci needs: managed-memory prefetch and range attributes came with CUDA 8.0. */
#define CUDA_DRIVER_MIN_VERSION 8000

/** The entry points, resolved by cuda_driver(). */
typedef struct {
    CUresult (*Init)(unsigned flags);
    CUresult (*DriverGetVersion)(int *version);
    CUresult (*GetErrorString)(CUresult error, const char **str);
    CUresult (*DeviceGetCount)(int *count);
    CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
    CUresult (*DeviceGetAttribute)(int *value, int attribute, CUdevice dev);
    CUresult (*DeviceGetPCIBusId)(char *busid, int len, CUdevice dev);
    CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
    CUresult (*CtxPushCurrent)(CUcontext ctx);
    CUresult (*CtxPopCurrent)(CUcontext *ctx);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemGetInfo)(size_t *free, size_t *total);
    CUresult (*MemAlloc)(CUdeviceptr *ptr, size_t bytes);
    CUresult (*MemAllocManaged)(CUdeviceptr *ptr, size_t bytes, unsigned flags);
    CUresult (*MemFree)(CUdeviceptr ptr);
    CUresult (*MemHostRegister)(void *p, size_t bytes, unsigned flags);
    CUresult (*MemHostUnregister)(void *p);
    CUresult (*MemsetD8)(CUdeviceptr ptr, unsigned char value, size_t bytes);
    CUresult (*Memcpy)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
    CUresult (*MemPrefetchAsync)(CUdeviceptr ptr, size_t bytes, CUdevice dst, CUstream stream);
    CUresult (*MemAdvise)(CUdeviceptr ptr, size_t bytes, int advice, CUdevice dev);
    CUresult (*PointerGetAttribute)(void *data, int attribute, CUdeviceptr ptr);
    CUresult (*MemRangeGetAttribute)(void *data, size_t size, int attribute, CUdeviceptr ptr, size_t bytes);
} cuda_api_t;

/** The driver, loaded and initialised on first call (thread-safe), or NULL
 *  when there is none usable here; *why (may be NULL) then says why
 *  ("libcuda.so.1: cannot open shared object file", "cuInit: no CUDA-capable
 *  device", "driver version 7050 is older than 8000"...). */
const cuda_api_t *cuda_driver(const char **why);

/** The driver's name for a result code ("out of memory"...). */
const char *cuda_error_string(CUresult rc);

/** Make device `ordinal`'s primary context current on the calling thread
 *  for the calls that follow, above whatever context the program has
 *  current (pushed; cuda_leave pops it, so the program's own context is
 *  untouched). 0 or LOCI_E* with loci__fail (then no cuda_leave). */
int cuda_enter(int ordinal);
void cuda_leave(void);

/** A driver failure as a loci error: LOCI_ENOMEM for out of memory,
 *  LOCI_EIO otherwise, with the call, the device and the driver's words. */
int cuda_fail(CUresult rc, const char *call, int device);

#endif
