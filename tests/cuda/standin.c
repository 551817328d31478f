/*
 * A CUDA driver stand-in: libcuda.so.1 implementing, over host memory,
 * exactly the driver API entry points loci uses (src/os/cuda_driver.c),
 * so that loci's GPU support is tested on machines without a GPU. It sits
 * below loci: nothing in loci is faked. Point loci at it with
 * LOCI_CUDA_LIBRARY=<build>/tests/cuda/libcuda.so.1 (docs/GPU.md).
 *
 * What it models, as the driver documents it:
 *  - devices with PCI bus ids, total memory and a capacity limit: device
 *    allocations past it fail with CUDA_ERROR_OUT_OF_MEMORY;
 *  - device memory the CPU cannot touch: each allocation is a memfd mapped
 *    PROT_NONE at the address handed out (a CPU load or store there faults,
 *    as on a real GPU) and read-write at a second, private address through
 *    which cuMemsetD8 and cuMemcpy work;
 *  - managed memory (CPU-accessible) with per-page preferred location and
 *    last prefetch location, as cuMemRangeGetAttribute reports them;
 *  - registered host memory, pointer attributes, contexts (calls that need
 *    one fail with CUDA_ERROR_INVALID_CONTEXT without one), and
 *    CUDA_ERROR_NOT_INITIALIZED before cuInit.
 *
 * Configuration (environment, read when each call runs, except the two
 * marked "at cuInit"):
 *   LOCI_FAKE_CUDA_DEVICES   number of devices (default 1)
 *   LOCI_FAKE_CUDA_MEM       bytes of memory per device (default 256 MiB; K/M/G suffixes)
 *   LOCI_FAKE_CUDA_BUSIDS    comma-separated PCI bus ids, device 0 first
 *                            (default 0000:0N:00.0 for device N-1)
 *   LOCI_FAKE_CUDA_VERSION   cuDriverGetVersion's answer (default 12040)
 *   LOCI_FAKE_CUDA_INIT      a CUresult cuInit returns (at cuInit; default 0)
 *   LOCI_FAKE_CUDA_FAIL      "CODE" (every call fails with CODE) or
 *                            "SYMBOL:CODE" (that entry point does): a driver
 *                            that errors mid-run
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
    OK = 0,
    E_INVALID_VALUE = 1,
    E_OUT_OF_MEMORY = 2,
    E_NOT_INITIALIZED = 3,
    E_NO_DEVICE = 100,
    E_INVALID_DEVICE = 101,
    E_INVALID_CONTEXT = 201,
    E_ALREADY_REGISTERED = 712,
    E_NOT_REGISTERED = 713,
    E_UNKNOWN = 999,
};

#define MAX_DEVICES 16
#define CPU (-1)
#define NO_LOCATION (-2)

typedef enum { DEVICE_MEM, MANAGED_MEM, HOST_MEM } mem_kind_t;

typedef struct block {
    uintptr_t addr;
    size_t size;
    mem_kind_t kind;
    int device;
    char *rw;              /* device memory: the read-write alias */
    signed char *preferred; /* managed memory: per page */
    signed char *prefetched;
    struct block *next;
} block_t;

typedef struct ctx {
    int device;
} ctx_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block_t *blocks;
static size_t used[MAX_DEVICES];
static ctx_t contexts[MAX_DEVICES];
static int initialised;
static __thread ctx_t *stack[8];
static __thread int depth;

/* ---- configuration ------------------------------------------------------ */

static unsigned long long env_number(const char *name, unsigned long long dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long n = strtoull(v, &end, 0);
    switch (*end) {
    case 'K': case 'k': n <<= 10; break;
    case 'M': case 'm': n <<= 20; break;
    case 'G': case 'g': n <<= 30; break;
    default: break;
    }
    return n;
}

static int ndevices(void)
{
    unsigned long long n = env_number("LOCI_FAKE_CUDA_DEVICES", 1);
    return n > MAX_DEVICES ? MAX_DEVICES : (int)n;
}

static size_t capacity(void) { return (size_t)env_number("LOCI_FAKE_CUDA_MEM", 256ull << 20); }

/* The failure LOCI_FAKE_CUDA_FAIL injects into `symbol`, or OK. */
static CUresult injected(const char *symbol)
{
    const char *v = getenv("LOCI_FAKE_CUDA_FAIL");
    if (!v || !*v)
        return OK;
    const char *colon = strchr(v, ':');
    if (!colon)
        return (CUresult)strtol(v, NULL, 0);
    size_t n = (size_t)(colon - v);
    return strlen(symbol) == n && strncmp(symbol, v, n) == 0 ? (CUresult)strtol(colon + 1, NULL, 0) : OK;
}

/* Every entry point but cuInit and cuGetErrorString* starts with this. */
#define ENTER(symbol)                               \
    do {                                            \
        if (!initialised)                           \
            return E_NOT_INITIALIZED;               \
        CUresult inj_ = injected(symbol);           \
        if (inj_ != OK)                             \
            return inj_;                            \
    } while (0)

static int current_device(void) { return depth > 0 ? stack[depth - 1]->device : -1; }

/* The block containing [p, p+n), or NULL. Lock held. */
static block_t *find(uintptr_t p, size_t n)
{
    for (block_t *b = blocks; b; b = b->next)
        if (p >= b->addr && p - b->addr < b->size && n <= b->size - (p - b->addr))
            return b;
    return NULL;
}

static size_t page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* ---- init, version, errors ---------------------------------------------- */

API CUresult cuInit(unsigned flags)
{
    if (flags != 0)
        return E_INVALID_VALUE;
    CUresult rc = (CUresult)env_number("LOCI_FAKE_CUDA_INIT", 0);
    if (rc == OK)
        initialised = 1;
    return rc;
}

API CUresult cuDriverGetVersion(int *v)
{
    if (!v)
        return E_INVALID_VALUE;
    *v = (int)env_number("LOCI_FAKE_CUDA_VERSION", 12040);
    return OK;
}

API CUresult cuGetErrorString(CUresult rc, const char **s)
{
    static const struct {
        CUresult rc;
        const char *text;
    } texts[] = {
        {OK, "no error"},
        {E_INVALID_VALUE, "invalid argument"},
        {E_OUT_OF_MEMORY, "out of memory"},
        {E_NOT_INITIALIZED, "initialization error"},
        {E_NO_DEVICE, "no CUDA-capable device is detected"},
        {E_INVALID_DEVICE, "invalid device ordinal"},
        {E_INVALID_CONTEXT, "invalid device context"},
        {E_ALREADY_REGISTERED, "part or all of the requested memory range is already mapped"},
        {E_NOT_REGISTERED, "pointer does not correspond to a registered memory region"},
        {E_UNKNOWN, "unknown error"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (texts[i].rc == rc) {
            *s = texts[i].text;
            return OK;
        }
    *s = NULL;
    return E_INVALID_VALUE;
}

/* ---- devices -------------------------------------------------------------- */

API CUresult cuDeviceGetCount(int *n)
{
    ENTER("cuDeviceGetCount");
    *n = ndevices();
    return OK;
}

API CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    ENTER("cuDeviceGet");
    if (ordinal < 0 || ordinal >= ndevices())
        return E_INVALID_DEVICE;
    *dev = ordinal;
    return OK;
}

API CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev)
{
    ENTER("cuDeviceGetAttribute");
    if (dev < 0 || dev >= ndevices())
        return E_INVALID_DEVICE;
    switch (attribute) {
    case 36: *value = 2619000; break;          /* memory clock, kHz */
    case 37: *value = 5120; break;             /* memory bus width, bits */
    case 41: case 83: case 89: *value = 1; break; /* unified addressing, managed memory, concurrent access */
    default: *value = 0;
    }
    return OK;
}

API CUresult cuDeviceGetPCIBusId(char *out, int len, CUdevice dev)
{
    ENTER("cuDeviceGetPCIBusId");
    if (dev < 0 || dev >= ndevices() || !out || len <= 0)
        return dev < 0 || dev >= ndevices() ? E_INVALID_DEVICE : E_INVALID_VALUE;
    const char *list = getenv("LOCI_FAKE_CUDA_BUSIDS");
    char id[64];
    snprintf(id, sizeof id, "0000:%02x:00.0", dev + 1);
    for (int i = 0; list && *list; i++) {
        size_t n = strcspn(list, ",");
        if (i == dev && n < sizeof id) {
            memcpy(id, list, n);
            id[n] = '\0';
        }
        list += n + (list[n] == ',');
    }
    snprintf(out, (size_t)len, "%s", id);
    return OK;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    ENTER("cuDeviceTotalMem_v2");
    if (dev < 0 || dev >= ndevices())
        return E_INVALID_DEVICE;
    *bytes = capacity();
    return OK;
}

/* ---- contexts --------------------------------------------------------------- */

API CUresult cuDevicePrimaryCtxRetain(ctx_t **ctx, CUdevice dev)
{
    ENTER("cuDevicePrimaryCtxRetain");
    if (dev < 0 || dev >= ndevices())
        return E_INVALID_DEVICE;
    contexts[dev].device = dev;
    *ctx = &contexts[dev];
    return OK;
}

API CUresult cuCtxPushCurrent_v2(ctx_t *ctx)
{
    ENTER("cuCtxPushCurrent_v2");
    if (!ctx || depth == (int)(sizeof stack / sizeof *stack))
        return E_INVALID_CONTEXT;
    stack[depth++] = ctx;
    return OK;
}

API CUresult cuCtxPopCurrent_v2(ctx_t **ctx)
{
    ENTER("cuCtxPopCurrent_v2");
    if (depth == 0)
        return E_INVALID_CONTEXT;
    ctx_t *c = stack[--depth];
    if (ctx)
        *ctx = c;
    return OK;
}

API CUresult cuCtxSynchronize(void)
{
    ENTER("cuCtxSynchronize");
    return current_device() < 0 ? E_INVALID_CONTEXT : OK;
}

API CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    ENTER("cuMemGetInfo_v2");
    int dev = current_device();
    if (dev < 0)
        return E_INVALID_CONTEXT;
    pthread_mutex_lock(&lock);
    size_t cap = capacity(), u = used[dev];
    pthread_mutex_unlock(&lock);
    *free_bytes = u < cap ? cap - u : 0;
    *total = cap;
    return OK;
}

/* ---- allocation ------------------------------------------------------------- */

static size_t round_up(size_t n) { return (n + page() - 1) & ~(page() - 1); }

API CUresult cuMemAlloc_v2(CUdeviceptr *out, size_t size)
{
    ENTER("cuMemAlloc_v2");
    int dev = current_device();
    if (dev < 0)
        return E_INVALID_CONTEXT;
    if (!out || size == 0)
        return E_INVALID_VALUE;
    size_t bytes = round_up(size);
    pthread_mutex_lock(&lock);
    CUresult rc = used[dev] + bytes > capacity() ? E_OUT_OF_MEMORY : OK;
    if (rc == OK)
        used[dev] += bytes;
    pthread_mutex_unlock(&lock);
    if (rc != OK)
        return rc;
    int fd = memfd_create("cuda-standin-device", MFD_CLOEXEC);
    void *gpu = MAP_FAILED, *rw = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)bytes) == 0) {
        gpu = mmap(NULL, bytes, PROT_NONE, MAP_SHARED, fd, 0);
        rw = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (fd >= 0)
        close(fd);
    block_t *b = calloc(1, sizeof *b);
    if (gpu == MAP_FAILED || rw == MAP_FAILED || !b) {
        if (gpu != MAP_FAILED)
            munmap(gpu, bytes);
        if (rw != MAP_FAILED)
            munmap(rw, bytes);
        free(b);
        pthread_mutex_lock(&lock);
        used[dev] -= bytes;
        pthread_mutex_unlock(&lock);
        return E_OUT_OF_MEMORY;
    }
    /* fresh device memory is not zeroed on a real GPU: make that visible */
    memset(rw, 0xa5, bytes);
    *b = (block_t){(uintptr_t)gpu, bytes, DEVICE_MEM, dev, rw, NULL, NULL, NULL};
    pthread_mutex_lock(&lock);
    b->next = blocks;
    blocks = b;
    pthread_mutex_unlock(&lock);
    *out = (CUdeviceptr)(uintptr_t)gpu;
    return OK;
}

API CUresult cuMemAllocManaged(CUdeviceptr *out, size_t size, unsigned flags)
{
    ENTER("cuMemAllocManaged");
    int dev = current_device();
    if (dev < 0)
        return E_INVALID_CONTEXT;
    if (!out || size == 0 || (flags != 1 && flags != 2))
        return E_INVALID_VALUE;
    size_t bytes = round_up(size), pages = bytes / page();
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    block_t *b = calloc(1, sizeof *b);
    signed char *pref = malloc(pages), *pf = malloc(pages);
    if (p == MAP_FAILED || !b || !pref || !pf) {
        if (p != MAP_FAILED)
            munmap(p, bytes);
        free(b);
        free(pref);
        free(pf);
        return E_OUT_OF_MEMORY;
    }
    memset(p, 0xa5, bytes);
    memset(pref, NO_LOCATION, pages);
    memset(pf, NO_LOCATION, pages);
    *b = (block_t){(uintptr_t)p, bytes, MANAGED_MEM, dev, NULL, pref, pf, NULL};
    pthread_mutex_lock(&lock);
    b->next = blocks;
    blocks = b;
    pthread_mutex_unlock(&lock);
    *out = (CUdeviceptr)(uintptr_t)p;
    return OK;
}

/* Unlink the block starting exactly at p of one of `kinds` (bit mask). */
static block_t *take(uintptr_t p, unsigned kinds)
{
    pthread_mutex_lock(&lock);
    block_t **link = &blocks;
    while (*link && !((*link)->addr == p && (kinds & (1u << (*link)->kind))))
        link = &(*link)->next;
    block_t *b = *link;
    if (b) {
        *link = b->next;
        if (b->kind == DEVICE_MEM)
            used[b->device] -= b->size;
    }
    pthread_mutex_unlock(&lock);
    return b;
}

API CUresult cuMemFree_v2(CUdeviceptr p)
{
    ENTER("cuMemFree_v2");
    block_t *b = take((uintptr_t)p, 1u << DEVICE_MEM | 1u << MANAGED_MEM);
    if (!b)
        return E_INVALID_VALUE;
    munmap((void *)b->addr, b->size);
    if (b->rw)
        munmap(b->rw, b->size);
    free(b->preferred);
    free(b->prefetched);
    free(b);
    return OK;
}

API CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned flags)
{
    ENTER("cuMemHostRegister_v2");
    if (current_device() < 0)
        return E_INVALID_CONTEXT;
    if (!p || size == 0 || flags > 0xf)
        return E_INVALID_VALUE;
    block_t *b = calloc(1, sizeof *b);
    if (!b)
        return E_OUT_OF_MEMORY;
    pthread_mutex_lock(&lock);
    CUresult rc = OK;
    for (block_t *o = blocks; o; o = o->next)
        if ((uintptr_t)p < o->addr + o->size && o->addr < (uintptr_t)p + size)
            rc = E_ALREADY_REGISTERED;
    if (rc == OK) {
        *b = (block_t){(uintptr_t)p, size, HOST_MEM, current_device(), NULL, NULL, NULL, blocks};
        blocks = b;
    }
    pthread_mutex_unlock(&lock);
    if (rc != OK)
        free(b);
    return rc;
}

API CUresult cuMemHostUnregister(void *p)
{
    ENTER("cuMemHostUnregister");
    block_t *b = take((uintptr_t)p, 1u << HOST_MEM);
    free(b);
    return b ? OK : E_NOT_REGISTERED;
}

/* ---- access through the driver ------------------------------------------- */

/* Where the CPU may touch p..p+n: the alias for device memory, p itself for
 * host memory (pageable memory is fine for cuMemcpy with unified addressing). */
static char *host_view(uintptr_t p, size_t n, int *is_gpu)
{
    pthread_mutex_lock(&lock);
    block_t *b = find(p, n);
    char *v = b && b->kind == DEVICE_MEM ? b->rw + (p - b->addr) : (char *)p;
    *is_gpu = b != NULL && b->kind != HOST_MEM;
    /* a device pointer running past its block is an error, not host memory */
    for (block_t *o = blocks; !b && o; o = o->next)
        if (o->kind == DEVICE_MEM && p >= o->addr && p < o->addr + o->size)
            v = NULL;
    pthread_mutex_unlock(&lock);
    return v;
}

API CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char value, size_t n)
{
    ENTER("cuMemsetD8_v2");
    if (current_device() < 0)
        return E_INVALID_CONTEXT;
    int gpu;
    char *v = host_view((uintptr_t)p, n, &gpu);
    if (!v || !gpu) /* only device-accessible memory */
        return E_INVALID_VALUE;
    memset(v, value, n);
    return OK;
}

API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    ENTER("cuMemcpy");
    if (current_device() < 0)
        return E_INVALID_CONTEXT;
    int gd, gs;
    char *d = host_view((uintptr_t)dst, n, &gd), *s = host_view((uintptr_t)src, n, &gs);
    if (!d || !s)
        return E_INVALID_VALUE;
    memmove(d, s, n);
    return OK;
}

/* Set a per-page location of the managed block covering [p, p+n). */
static CUresult set_location(CUdeviceptr p, size_t n, CUdevice where, bool prefetch)
{
    if (where != CPU && (where < 0 || where >= ndevices()))
        return E_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    block_t *b = find((uintptr_t)p, n);
    CUresult rc = b && b->kind == MANAGED_MEM ? OK : E_INVALID_VALUE;
    if (rc == OK) {
        size_t first = ((uintptr_t)p - b->addr) / page(), last = ((uintptr_t)p - b->addr + n - 1) / page();
        memset((prefetch ? b->prefetched : b->preferred) + first, where, last - first + 1);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

API CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t n, CUdevice where, void *stream)
{
    ENTER("cuMemPrefetchAsync");
    if (current_device() < 0)
        return E_INVALID_CONTEXT;
    if (stream != NULL || n == 0)
        return E_INVALID_VALUE;
    return set_location(p, n, where, true);
}

API CUresult cuMemAdvise(CUdeviceptr p, size_t n, int advice, CUdevice where)
{
    ENTER("cuMemAdvise");
    if (n == 0)
        return E_INVALID_VALUE;
    if (advice != 3) /* only SET_PREFERRED_LOCATION is modelled */
        return E_INVALID_VALUE;
    return set_location(p, n, where, false);
}

API CUresult cuMemRangeGetAttribute(void *data, size_t size, int attribute, CUdeviceptr p, size_t n)
{
    ENTER("cuMemRangeGetAttribute");
    if ((attribute != 2 && attribute != 4) || size != sizeof(int) || n == 0)
        return E_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    block_t *b = find((uintptr_t)p, n);
    CUresult rc = b && b->kind == MANAGED_MEM ? OK : E_INVALID_VALUE;
    if (rc == OK) {
        const signed char *v = attribute == 2 ? b->preferred : b->prefetched;
        size_t first = ((uintptr_t)p - b->addr) / page(), last = ((uintptr_t)p - b->addr + n - 1) / page();
        int loc = v[first];
        for (size_t i = first; i <= last; i++)
            if (v[i] != loc)
                loc = NO_LOCATION; /* "not all the same": CU_DEVICE_INVALID */
        *(int *)data = loc;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

API CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr p)
{
    ENTER("cuPointerGetAttribute");
    pthread_mutex_lock(&lock);
    block_t *b = find((uintptr_t)p, 1);
    CUresult rc = b ? OK : E_INVALID_VALUE;
    if (b) {
        switch (attribute) {
        case 2: *(unsigned *)data = b->kind == HOST_MEM ? 1 : 2; break; /* CUmemorytype */
        case 8: *(int *)data = b->kind == MANAGED_MEM; break;
        case 9: *(int *)data = b->device; break;
        default: rc = E_INVALID_VALUE;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
