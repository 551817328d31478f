/*
 * cuda providers: GPU memory through the CUDA driver (cuda_driver.h).
 *
 *  - cuda_device: device memory (cuMemAlloc). The CPU cannot touch it, so
 *    zeroing and copying go through the driver (cuMemsetD8, cuMemcpy) and
 *    nothing here or in the pool ever reads or writes it. It cannot move.
 *  - cuda_managed: managed memory (cuMemAllocManaged), reachable by CPU and
 *    GPU at one address. Placed with "preferred location" advice and a
 *    prefetch; moving = new advice + prefetch to a GPU or to the host, the
 *    addresses unchanged.
 *  - cuda_host: host memory on a NUMA node (the numa provider's mapping)
 *    page-locked and registered with the driver (cuMemHostRegister,
 *    portable), so that every GPU's DMA reaches it.
 *
 * The driver aligns allocations to at least 256 bytes; the pool asks for up
 * to 64 KiB (slab segments), so an extent the driver gives unaligned is
 * asked again with room to align it. The real base of such extents is kept
 * here, out of band, in a table sorted by address.
 */
#include "os/cuda_driver.h"
#include "provider/provider.h"
#include "addr_table.h"
#include "units.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uintptr_t base;   /* what the pool got */
    CUdeviceptr real; /* what the driver gave */
    size_t size;
    int device;
} extent_t;

static addr_table_t extents = ADDR_TABLE_INIT; /* of malloc'd extent_t */
static pthread_mutex_t extents_lock = PTHREAD_MUTEX_INITIALIZER;

static int remember(const extent_t *e)
{
    extent_t *copy = malloc(sizeof *copy);
    if (copy)
        *copy = *e;
    pthread_mutex_lock(&extents_lock);
    bool added = copy && addr_table_add(&extents, e->base, e->size, copy);
    pthread_mutex_unlock(&extents_lock);
    if (!added) {
        free(copy);
        return loci__fail(LOCI_ENOMEM, "out of memory recording a GPU extent");
    }
    return 0;
}

/* The extent containing addr (copied into *out); remove it too if asked. */
static bool find(uintptr_t addr, extent_t *out, bool remove)
{
    pthread_mutex_lock(&extents_lock);
    extent_t *e = addr_table_find(&extents, addr);
    if (e) {
        *out = *e;
        if (remove) {
            addr_table_remove(&extents, e->base);
            free(e);
        }
    }
    pthread_mutex_unlock(&extents_lock);
    return e != NULL;
}

/* The GPU whose memory (and driver context) a place means. */
static int device_of(const place_t *place)
{
    return place->target && place->target->cuda_device >= 0 ? place->target->cuda_device : place->cuda_device;
}

/* Where managed memory of a place belongs: its GPU, or the host. */
static CUdevice location_of(const place_t *place)
{
    return place->target && place->target->numa_node < 0 ? place->target->cuda_device : CU_DEVICE_CPU;
}

/* Zero through the driver and wait for it (cuMemsetD8 may return early). */
static CUresult zero_now(const cuda_api_t *cu, CUdeviceptr p, size_t size)
{
    CUresult rc = cu->MemsetD8(p, 0, size);
    return rc == CUDA_SUCCESS ? cu->CtxSynchronize() : rc;
}

/* Device or managed memory of `size` bytes aligned to `alignment`, zeroed. */
static void *gpu_alloc(const place_t *place, size_t size, size_t alignment, bool managed)
{
    int dev = device_of(place);
    const char *name = place->target ? place->target->name : "GPU";
    if (cuda_enter(dev) != 0)
        return NULL;
    const cuda_api_t *cu = cuda_driver(NULL);
    const char *call = managed ? "cuMemAllocManaged" : "cuMemAlloc";
    CUdeviceptr real = 0;
    size_t got = size;
    CUresult cr = managed ? cu->MemAllocManaged(&real, got, CU_MEM_ATTACH_GLOBAL) : cu->MemAlloc(&real, got);
    if (cr == CUDA_SUCCESS && (real & (alignment - 1))) {
        cu->MemFree(real);
        real = 0;
        got = size + alignment;
        cr = managed ? cu->MemAllocManaged(&real, got, CU_MEM_ATTACH_GLOBAL) : cu->MemAlloc(&real, got);
    }
    CUdeviceptr base = (real + alignment - 1) & ~(CUdeviceptr)(alignment - 1);
    if (cr == CUDA_SUCCESS && managed) /* its home: this GPU, or the host an arena moved to */
        cr = (call = "cuMemAdvise", cu->MemAdvise(real, got, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, location_of(place)));
    if (cr == CUDA_SUCCESS)
        cr = (call = "cuMemsetD8", zero_now(cu, base, size));
    extent_t e = {(uintptr_t)base, real, size, dev};
    int rc = cr == CUDA_SUCCESS ? remember(&e) : 0;
    if ((cr != CUDA_SUCCESS || rc != 0) && real)
        cu->MemFree(real);
    cuda_leave();
    if (rc != 0)
        return NULL;
    if (cr != CUDA_SUCCESS) {
        char sz[32];
        return loci__fail_null(cr == CUDA_ERROR_OUT_OF_MEMORY ? LOCI_ENOMEM : LOCI_EIO,
                               "%s (CUDA device %d): %s of %s failed: %s (%d)", name, dev, call,
                               units_format_size(size, sz, sizeof sz), cuda_error_string(cr), cr);
    }
    return (void *)(uintptr_t)base;
}

static void *device_alloc(const place_t *place, size_t size, size_t alignment)
{
    return gpu_alloc(place, size, alignment, false);
}

static void *managed_alloc(const place_t *place, size_t size, size_t alignment)
{
    return gpu_alloc(place, size, alignment, true);
}

static int gpu_free(void *addr, size_t size)
{
    extent_t e;
    if (!find((uintptr_t)addr, &e, true) || e.base != (uintptr_t)addr)
        return loci__fail(LOCI_EINVAL, "cuda: %p (%zu bytes) is no GPU extent loci mapped", addr, size);
    int rc = cuda_enter(e.device);
    if (rc)
        return rc;
    CUresult cr = cuda_driver(NULL)->MemFree(e.real);
    cuda_leave();
    return cr == CUDA_SUCCESS ? 0 : cuda_fail(cr, "cuMemFree", e.device);
}

/* A device for the driver calls on [addr, ...): the extent's, else device 0. */
static int enter_for(const void *addr)
{
    extent_t e;
    return cuda_enter(find((uintptr_t)addr, &e, false) ? e.device : 0);
}

static int gpu_zero(void *addr, size_t size)
{
    extent_t e;
    int dev = find((uintptr_t)addr, &e, false) ? e.device : 0;
    int rc = cuda_enter(dev);
    if (rc)
        return rc;
    CUresult cr = zero_now(cuda_driver(NULL), (CUdeviceptr)(uintptr_t)addr, size);
    cuda_leave();
    return cr == CUDA_SUCCESS ? 0 : cuda_fail(cr, "cuMemsetD8", dev);
}

/* cuMemcpy infers each side (host or device) from the address: unified
 * addressing, which every device loci uses has (a 64-bit process). */
static int gpu_copy(void *dst, const void *src, size_t size)
{
    extent_t e;
    int dev = find((uintptr_t)dst, &e, false) || find((uintptr_t)src, &e, false) ? e.device : 0;
    int rc = cuda_enter(dev);
    if (rc)
        return rc;
    CUresult cr = cuda_driver(NULL)->Memcpy((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, size);
    cuda_leave();
    return cr == CUDA_SUCCESS ? 0 : cuda_fail(cr, "cuMemcpy", dev);
}

static int device_available(const place_t *place, uint64_t *bytes)
{
    int dev = device_of(place);
    int rc = cuda_enter(dev);
    if (rc)
        return rc;
    size_t free_bytes = 0, total = 0;
    CUresult cr = cuda_driver(NULL)->MemGetInfo(&free_bytes, &total);
    cuda_leave();
    *bytes = free_bytes;
    return cr == CUDA_SUCCESS ? 0 : cuda_fail(cr, "cuMemGetInfo", dev);
}

/* Managed memory to a GPU (to->target a GPU) or to the host (a NUMA node):
 * preferred location first, so that later faults keep it there, then a
 * prefetch of what is already there, waited for. */
static int managed_move(void *addr, size_t size, const place_t *to)
{
    CUdevice where = location_of(to);
    extent_t e;
    int dev = find((uintptr_t)addr, &e, false) ? e.device : 0;
    int rc = cuda_enter(where >= 0 ? where : dev);
    if (rc)
        return rc;
    const cuda_api_t *cu = cuda_driver(NULL);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)addr;
    const char *call = "cuMemAdvise";
    CUresult cr = cu->MemAdvise(p, size, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, where);
    if (cr == CUDA_SUCCESS && (call = "cuMemPrefetchAsync", cr = cu->MemPrefetchAsync(p, size, where, NULL)) ==
                                  CUDA_SUCCESS)
        cr = (call = "cuCtxSynchronize", cu->CtxSynchronize());
    cuda_leave();
    return cr == CUDA_SUCCESS ? 0 : cuda_fail(cr, call, where >= 0 ? where : dev);
}

static int managed_available(const place_t *place, uint64_t *bytes)
{
    (void)place; /* managed memory can exceed a GPU's memory: no limit to check */
    (void)bytes;
    return LOCI_ENOTSUP;
}

static const provider_device_ops_t gpu_device = {
    .zero = gpu_zero,
    .copy = gpu_copy,
};

static const provider_move_ops_t managed_moves = {
    .move = managed_move,
    .adopt = NULL, /* other memory cannot become managed memory at its addresses */
};

const provider_ops_t provider_cuda_device = {
    .name = "cuda_device",
    .props = PROVIDER_NO_CPU,
    .alloc = device_alloc,
    .free = gpu_free,
    .purge = NULL,
    .available = device_available,
    .move = NULL, /* another target would need other addresses */
    .device = &gpu_device,
};

const provider_ops_t provider_cuda_managed = {
    .name = "cuda_managed",
    .props = PROVIDER_FOLLOWS_GPU,
    .alloc = managed_alloc,
    .free = gpu_free,
    .purge = NULL,
    .available = managed_available,
    .move = &managed_moves,
    .device = &gpu_device,
};

bool provider_cuda_device_pointer(const void *p)
{
    const cuda_api_t *cu = cuda_driver(NULL);
    unsigned type = 0;
    int managed = 0;
    return cu && cu->PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p) ==
                     CUDA_SUCCESS &&
           type == CU_MEMORYTYPE_DEVICE &&
           cu->PointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)(uintptr_t)p) ==
               CUDA_SUCCESS &&
           !managed;
}

/* ---- pinned host memory --------------------------------------------------- */

static void *host_alloc(const place_t *place, size_t size, size_t alignment)
{
    place_t unlocked = *place; /* the driver pins it, beyond RLIMIT_MEMLOCK */
    unlocked.pinned = false;
    void *p = provider_numa.alloc(&unlocked, size, alignment);
    if (!p)
        return NULL;
    CUresult cr = CUDA_SUCCESS;
    int rc = enter_for(p);
    if (rc == 0) {
        cr = cuda_driver(NULL)->MemHostRegister(p, size, CU_MEMHOSTREGISTER_PORTABLE);
        cuda_leave();
    }
    if (rc == 0 && cr == CUDA_SUCCESS)
        return p;
    provider_numa.free(p, size);
    if (rc != 0)
        return NULL;
    char sz[32];
    return loci__fail_null(cr == CUDA_ERROR_OUT_OF_MEMORY ? LOCI_ENOMEM : LOCI_EIO,
                           "%s: cuMemHostRegister of %s (host memory pinned for the GPU) failed: %s (%d)",
                           place->target->name, units_format_size(size, sz, sizeof sz), cuda_error_string(cr), cr);
}

static int host_free(void *addr, size_t size)
{
    int rc = enter_for(addr);
    if (rc == 0) {
        CUresult cr = cuda_driver(NULL)->MemHostUnregister(addr);
        cuda_leave();
        if (cr != CUDA_SUCCESS) /* still unmap it: the pages go either way */
            loci__log(LOCI_LOG_WARN, "cuMemHostUnregister(%p): %s", addr, cuda_error_string(cr));
    }
    return provider_numa.free(addr, size);
}

static int host_available(const place_t *place, uint64_t *bytes)
{
    return provider_numa.available(place, bytes);
}

const provider_ops_t provider_cuda_host = {
    .name = "cuda_host",
    .alloc = host_alloc,
    .free = host_free,
    .purge = NULL,
    .populate = NULL, /* registration faulted it in */
    .available = host_available,
    .move = NULL, /* registered pages stay where the GPU's DMA expects them */
};
