/*
 * Source "driver": GPUs from the CUDA driver API (provider/cuda_driver.h).
 *
 * Each device becomes a gpuN target (kind gpu: its device memory; capacity
 * from the driver, source "os", and as free until used: no context is
 * created at discovery; bandwidth and latency from
 * the class defaults until `loci bench` measures them). Its PCI bus id is
 * looked up among hwloc's PCI devices: the match gives its NUMA locality
 * (near=gpu:N), and hwloc's GPU devices are renamed so that gpuN is CUDA
 * device N everywhere. Where the GPU's memory is already a NUMA node
 * (Grace Hopper: subtype GPUMemory, named gpuK by classification), the K-th
 * such node belongs to the K-th GPU of hwloc's PCI order: that node becomes
 * the device's target instead of a second one, so both views name one GPU.
 */
#include "os/cuda_driver.h"
#include "topo/topo_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    unsigned domain, bus, dev, func;
} busid_t;

static bool parse_busid(const char *s, busid_t *out)
{
    char end;
    return sscanf(s, "%x:%x:%x.%x%c", &out->domain, &out->bus, &out->dev, &out->func, &end) == 4;
}

/* The hwloc GPU device at `busid`, and its position among hwloc's GPUs. */
static int find_device(const topo_t *t, const busid_t *busid, int *gpu_ordinal)
{
    for (int i = 0, k = 0; i < t->ndevices; i++) {
        busid_t b;
        if (t->devices[i].kind != DEV_GPU)
            continue;
        if (parse_busid(t->devices[i].busid, &b) && b.domain == busid->domain && b.bus == busid->bus &&
            b.dev == busid->dev && b.func == busid->func) {
            *gpu_ordinal = k;
            return i;
        }
        k++;
    }
    return -1;
}

/* The K-th GPU-memory NUMA node's target (Grace Hopper), or NULL. */
static struct loci_target *gpu_memory_node(topo_t *t, int k)
{
    for (int i = 0, seen = 0; i < t->ntargets; i++)
        if (t->targets[i].kind == KIND_GPU && t->targets[i].numa_node >= 0 && seen++ == k)
            return &t->targets[i];
    return NULL;
}

static int gpu_targets(const topo_t *t)
{
    int n = 0;
    for (int i = 0; i < t->ntargets; i++)
        n += t->targets[i].kind == KIND_GPU;
    return n;
}

static struct loci_target *add_device_target(topo_t *t, const cuda_api_t *cu, int ordinal, CUdevice dev)
{
    if (t->ntargets >= t->nnodes + TOPO_MAX_EXTRA_TARGETS) {
        loci__log(LOCI_LOG_WARN, "CUDA device %d: no room for more targets (at most %d beyond the NUMA nodes)",
                  ordinal, TOPO_MAX_EXTRA_TARGETS);
        return NULL;
    }
    int name = gpu_targets(t);
    struct loci_target *tg = topo_add_target(t, KIND_GPU, -1);
    if (!tg)
        return NULL;
    snprintf(tg->name, sizeof tg->name, "gpu%d", name);
    tg->kind_source = SRC_OS;
    tg->flags = LOCI_TARGET_GPU_ACCESSIBLE;
    tg->cuda_device = ordinal;
    size_t total = 0;
    if (cu->DeviceTotalMem(&total, dev) == CUDA_SUCCESS)
        topo_attr_offer(&tg->capacity, total, SRC_OS);
    /* Free bytes would need a context (cuMemGetInfo): creating one on every
     * GPU costs each process GPU memory and time, GPU user or not. So the
     * device counts as free until loci uses it; the provider asks then. */
    topo_attr_offer(&tg->available, total, SRC_DEFAULT);
    return tg;
}

/* One CUDA device: its target and its hwloc device. */
static void add_gpu(topo_t *t, const cuda_api_t *cu, int ordinal, int *renamed)
{
    CUdevice dev;
    int uva = 0;
    char text[32] = "";
    busid_t busid;
    if (cu->DeviceGet(&dev, ordinal) != CUDA_SUCCESS)
        return;
    if (cu->DeviceGetAttribute(&uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev) != CUDA_SUCCESS || !uva) {
        loci__log(LOCI_LOG_WARN, "CUDA device %d has no unified addressing (loci needs one address space for "
                  "host and device pointers): left out", ordinal);
        return;
    }
    int k = -1, d = -1;
    if (cu->DeviceGetPCIBusId(text, sizeof text, dev) == CUDA_SUCCESS && parse_busid(text, &busid))
        d = find_device(t, &busid, &k);
    struct loci_target *tg = d >= 0 ? gpu_memory_node(t, k) : NULL;
    if (tg && tg->cuda_device < 0)
        tg->cuda_device = ordinal; /* the GPU's memory is that NUMA node */
    else if (!(tg = add_device_target(t, cu, ordinal, dev)))
        return;
    if (d < 0) {
        loci__log(LOCI_LOG_INFO, "%s: PCI bus id %s is not among %s's PCI devices: its NUMA locality is unknown",
                  tg->name, text[0] ? text : "(none)", t->origin);
        return;
    }
    topo_device_t *pci = &t->devices[d];
    snprintf(pci->name, sizeof pci->name, "gpu%d", ordinal);
    if (!pci->osdev[0])
        snprintf(pci->osdev, sizeof pci->osdev, "cuda%d", ordinal);
    renamed[d] = 1;
    tg->near_devices |= 1ull << d;
}

void topo_source_gpus(topo_t *t)
{
    const char *why;
    const cuda_api_t *cu = cuda_driver(&why);
    int count = 0;
    if (!cu || cu->DeviceGetCount(&count) != CUDA_SUCCESS || count <= 0) {
        loci__log(LOCI_LOG_DEBUG, "no GPU targets: %s", cu ? "the CUDA driver reports no device" : why);
        return;
    }
    int renamed[64] = {0};
    for (int i = 0; i < count; i++)
        add_gpu(t, cu, i, renamed);
    /* hwloc GPUs without a CUDA device (another vendor's) get the numbers after the CUDA ones */
    for (int i = 0, next = count; i < t->ndevices && i < 64; i++)
        if (t->devices[i].kind == DEV_GPU && !renamed[i])
            snprintf(t->devices[i].name, sizeof t->devices[i].name, "gpu%d", next++);
}
